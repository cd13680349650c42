package proctree

import (
	"bytes"

	"github.com/jobtrace/jobtrace/internal/kernfmt"
)

// procIO holds the fields used from /proc/<pid>/io, described in
// https://docs.kernel.org/filesystems/proc.html (section 3.3): read_bytes
// and write_bytes count what the process caused to be fetched from or sent
// to the storage layer (rchar and wchar, the bytes through read- and
// write-like calls, page cache and pipes included, are not used).
type procIO struct {
	readBytes, writeBytes uint64
}

// parseIO parses the content of /proc/<pid>/io: lines of "name: value".
// Lines it does not know are skipped, so new fields do not break it; it
// stops once it has both of its fields.
func parseIO(data []byte) (procIO, bool) {
	var p procIO
	var seen uint8 // a bit per field read
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if len(line) == 0 {
			continue
		}
		colon := bytes.IndexByte(line, ':')
		if colon < 0 {
			return p, false
		}
		var dst *uint64
		var bit uint8
		switch string(line[:colon]) {
		case "read_bytes":
			dst, bit = &p.readBytes, 1
		case "write_bytes":
			dst, bit = &p.writeBytes, 2
		default:
			continue
		}
		f, _ := kernfmt.NextField(line[colon+1:])
		v, ok := kernfmt.ParseUint(f)
		if !ok {
			return p, false
		}
		*dst = v
		if seen |= bit; seen == 3 {
			break
		}
	}
	return p, seen == 3
}
