// Package protocol defines the marker message shared by jobtrace's three
// marker sources: the output-line scanner (package scan), the unix socket
// (package socket) and the marker directory (package markerdir).
//
// On the wire a message is one JSON object on one line:
//
//	{"v":1,"type":"begin","name":"compile","attrs":{"target":"linux"}}
//
// docs/markers.md is the user-facing reference for the format. Parse decodes
// a line with a small hand-written decoder rather than encoding/json: the
// schema is flat, the socket must take more than 100k messages a second on
// one core, and a decoder that knows the schema allocates only for the
// strings it keeps.
package protocol
