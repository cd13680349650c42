// Package markerdir reads marker messages (package protocol) that processes
// append to files in a directory, JOBTRACE_MARKER_DIR, for tools that can
// write a file but not open a socket:
//
//	echo '{"type":"begin","name":"deploy"}' >> "$JOBTRACE_MARKER_DIR/$$.jsonl"
//
// A Reader polls the directory, reads each *.jsonl file from where it
// stopped, and passes complete lines on in file order. A line without its
// newline yet waits for the next poll (or for Final). Files are opened,
// read and closed within one poll, so the number of open handles stays at
// one whatever the number of files.
package markerdir
