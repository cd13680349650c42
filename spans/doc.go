// Package spans models a job's phases as OpenTelemetry spans.
//
// A [Tracker] receives phase messages (begin, end, event, counter, attr) from
// the job's output lines, from the socket named by JOBTRACE_SOCKET and from
// files in JOBTRACE_MARKER_DIR (see the protocol, scan, socket and markerdir
// subpackages), and turns them into child spans of the job span, nested by the
// order in which phases begin. The package also carries trace context through
// the environment (TRACEPARENT, TRACESTATE, BAGGAGE), as OpenTelemetry's
// specification for environment variables as context carriers describes.
package spans
