// Package wire is the encoding of what travels on jobtrace's socket
// (docs/markers.md): one JSON object per line, a message from a step of the
// job and, when it asks for one, a reply line back.
//
// It writes a message's fields and reads JSON values; what the fields mean,
// their limits and the typed attributes are package protocol's. It depends
// on the standard library and internal/jsonstring only (which depends on
// unicode/utf8), and not on os, fmt or reflect, so that
// `jobtrace phase` can use it before the rest of jobtrace (the OpenTelemetry
// SDK, gRPC) is initialized: see cmd/jobtrace/internal/fastpath.
package wire
