package spool

import (
	"bytes"
	"encoding/hex"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// MaxReadSpans is the number of spans the readers that build a view of a
// run in memory (the HTML report, the profile) keep. A span decoded from the
// spool takes up to 7 KiB (each attribute is three protobuf messages), so the
// bound keeps such a reader near 35 MiB whatever the job sent, where a flood
// of a million phases would take GiBs. It is far more phases than a person
// reads in a report (which lists 2,000) or scrolls through in a profile.
const MaxReadSpans = 5000

// ReadSpans calls fn, in file order, with each span of the spool at path
// and the resource of its line, keeping to max spans: past the first max,
// only the ancestors of spans already given (the job span, which ends last,
// and the phases that hold the ones given) are given too, so that what a
// reader shows still hangs together; those ancestors are bounded by max
// too, so no spool (one whose every span names a later one as its parent,
// say) makes a reader keep more than 2 × max spans. It returns the number
// of spans left out. Errors are those of ReadLines: lines that could not be read are
// reported and skipped.
//
// Past the bound, a line is decoded only when it holds the id of a span
// wanted (a quick scan of its "spanId" fields), so that reading a spool of
// a million spans costs little more than reading the first max.
func ReadSpans(path string, max int, fn func(res *tracepb.ResourceSpans, s *tracepb.Span)) (skipped int, err error) {
	given := 0
	wanted := map[string]bool{} // parents of the spans given, not seen yet
	err = readRaw(path, 0, func(body []byte, n int, start, _ int64) (error, error) {
		if given >= max {
			if k, ok := spanIDsWanted(body, wanted); !ok || given >= 2*max {
				skipped += k
				return nil, nil
			}
		}
		req, _, err := decodeLine(body)
		if err != nil {
			return &LineError{Path: path, Line: n, Offset: start, Kind: ErrParse, Err: err}, nil
		}
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					id := string(s.SpanId)
					if given >= max && (!wanted[id] || given >= 2*max) {
						skipped++
						continue
					}
					delete(wanted, id)
					given++
					if len(s.ParentSpanId) > 0 {
						wanted[string(s.ParentSpanId)] = true
					}
					fn(rs, s)
				}
			}
		}
		return nil, nil
	})
	return skipped, err
}

// spanIDsWanted scans a line of OTLP/JSON for its "spanId" fields without
// decoding it. It returns how many there are, and whether one of them (or
// one it could not read) is in wanted, which holds span ids as raw bytes.
func spanIDsWanted(line []byte, wanted map[string]bool) (int, bool) {
	const key = `"spanId"`
	n := 0
	var id [8]byte
	for i := 0; ; {
		k := bytes.Index(line[i:], []byte(key))
		if k < 0 {
			return n, false
		}
		i += k + len(key)
		j := i
		for j < len(line) && (line[j] == ' ' || line[j] == '\t' || line[j] == ':') {
			j++
		}
		if j+18 > len(line) || line[j] != '"' || line[j+17] != '"' {
			return n, true // not the form written here: decode to be sure
		}
		if _, err := hex.Decode(id[:], line[j+1:j+17]); err != nil {
			return n, true
		}
		n++
		if wanted[string(id[:])] {
			return n, true
		}
	}
}
