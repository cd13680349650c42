package spool

import tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

// ReadSpansProto is ReadSpans in the form of the OTLP protobuf types.
//
// Deprecated: the readers of runs use ReadSpans.
//
// ReadSpansProto calls fn, in file order, with each span of the spool at path
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
func ReadSpansProto(path string, max int, fn func(res *tracepb.ResourceSpans, s *tracepb.Span)) (skipped int, err error) {
	given := 0
	wanted := map[[8]byte]bool{} // parents of the spans given, not seen yet
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
					if given >= max && (!wanted[[8]byte([]byte(id+"\x00\x00\x00\x00\x00\x00\x00\x00"))] || given >= 2*max) {
						skipped++
						continue
					}
					delete(wanted, [8]byte([]byte(id+"\x00\x00\x00\x00\x00\x00\x00\x00")))
					given++
					if len(s.ParentSpanId) > 0 {
						wanted[[8]byte([]byte(string(s.ParentSpanId)+"\x00\x00\x00\x00\x00\x00\x00\x00"))] = true
					}
					fn(rs, s)
				}
			}
		}
		return nil, nil
	})
	return skipped, err
}
