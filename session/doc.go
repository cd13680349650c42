// Package session is one traced run: the job's span, the phase tracker fed
// by the output scanner, the socket and the marker dir, resource sampling
// with each phase's usage, and the artifacts and summary written at its end.
package session
