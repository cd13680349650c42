package spool

import (
	"bytes"
	"encoding/hex"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// MaxReadSpans is the number of spans a model of a run (package runmodel)
// keeps, whether read from the spool or recorded as the spans end. A span
// decoded from the spool takes up to 7 KiB, so the bound keeps such a model
// near 35 MiB whatever the job sent, where a flood of a million phases
// would take GiBs. It is far more phases than a person reads in a report
// (which lists 2,000) or scrolls through in a profile.
const MaxReadSpans = 5000

// ReadSpans calls fn, in file order, with each span of the spool at path
// and the resource of its line, decoded once, as pdata (the collector's
// form of OTLP), keeping to max spans as SpanBound says. It returns the
// number of spans left out. Errors are those of ReadLines: lines that
// could not be read are reported and skipped.
//
// Past the bound, a line is decoded only when it holds the id of a span
// wanted (a quick scan of its "spanId" fields), so that reading a spool of
// a million spans costs little more than reading the first max.
func ReadSpans(path string, max int, fn func(res pcommon.Resource, s ptrace.Span)) (skipped int, err error) {
	bound := NewSpanBound(max)
	var dec ptrace.JSONUnmarshaler
	err = readRaw(path, 0, func(body []byte, n int, start, _ int64) (error, error) {
		if bound.Full() {
			if k, ok := spanIDsWanted(body, bound.wanted); !ok || bound.Closed() {
				bound.skipped += k
				return nil, nil
			}
		}
		td, err := unmarshalLine(&dec, body)
		if err != nil {
			return &LineError{Path: path, Line: n, Offset: start, Kind: ErrParse, Err: err}, nil
		}
		rss := td.ResourceSpans()
		for i := range rss.Len() {
			rs := rss.At(i)
			sss := rs.ScopeSpans()
			for j := range sss.Len() {
				spans := sss.At(j).Spans()
				for k := range spans.Len() {
					s := spans.At(k)
					if bound.Keep(s.SpanID(), s.ParentSpanID()) {
						fn(rs.Resource(), s)
					}
				}
			}
		}
		return nil, nil
	})
	return bound.Skipped(), err
}

// SpanBound is the rule by which a view of a run in memory keeps spans,
// given in the order they ended (the spool's order): the first max, then
// only the ancestors of spans kept (the job span, which ends last, and the
// phases that hold the ones kept), so that what a reader shows still hangs
// together; those ancestors are bounded by max too, so no run (one whose
// every span names a later one as its parent, say) makes a reader keep
// more than 2 × max spans.
type SpanBound struct {
	max, kept, skipped int
	wanted             map[[8]byte]bool // parents of the spans kept, not seen yet
}

// NewSpanBound returns a SpanBound that keeps max spans and their
// ancestors.
func NewSpanBound(max int) *SpanBound {
	return &SpanBound{max: max, wanted: map[[8]byte]bool{}}
}

// Keep says whether the span id, child of parent (zero for none), is kept,
// and counts it.
func (b *SpanBound) Keep(id, parent [8]byte) bool {
	if b.Full() && (!b.wanted[id] || b.Closed()) {
		b.skipped++
		return false
	}
	delete(b.wanted, id)
	b.kept++
	if parent != ([8]byte{}) {
		b.wanted[parent] = true
	}
	return true
}

// Full reports whether the first max spans are kept: from now on only
// ancestors are.
func (b *SpanBound) Full() bool { return b.kept >= b.max }

// Closed reports whether 2 × max spans are kept: from now on none is.
func (b *SpanBound) Closed() bool { return b.kept >= 2*b.max }

// Skipped is the number of spans left out.
func (b *SpanBound) Skipped() int { return b.skipped }

// spanIDsWanted scans a line of OTLP/JSON for its "spanId" fields without
// decoding it. It returns how many there are, and whether one of them (or
// one it could not read) is in wanted, which holds span ids as raw bytes.
func spanIDsWanted(line []byte, wanted map[[8]byte]bool) (int, bool) {
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
		if wanted[id] {
			return n, true
		}
	}
}
