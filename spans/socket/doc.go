// Package socket serves the marker protocol (package protocol) over a unix
// socket: each connection sends JSON lines, and gets a reply line for every
// message that asks for one with "ack":true. The agent puts the socket's
// path in the job's environment as JOBTRACE_SOCKET; `jobtrace phase` and
// `jobtrace event` use the Client.
//
// The server is built to take abuse from the job without hurting it or the
// agent: lines are bounded, bad lines are counted and reported through a
// rate-limited warning, a connection that floods the socket slows only
// itself, and connections beyond a bound are refused.
package socket
