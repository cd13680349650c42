package spans

import (
	"encoding/hex"
	"fmt"

	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/spans/wire"
)

// Traceparent formats sc as a W3C traceparent header value.
func Traceparent(sc trace.SpanContext) string {
	if !sc.IsValid() {
		return ""
	}
	return fmt.Sprintf("00-%s-%s-%s", sc.TraceID(), sc.SpanID(), sc.TraceFlags())
}

// ParseTraceparent returns the remote span context a W3C traceparent
// names, by the W3C rules (wire.ParseTraceparent: a later version read by
// its first 55 characters, version ff and all-zero ids refused), with the
// flags the OpenTelemetry propagator keeps (sampled, random). The tracker
// reads the span a marker names by it, and a phase begun by `jobtrace
// phase` outside a run its parent.
func ParseTraceparent(s string) (trace.SpanContext, bool) {
	tid, sid, flags, ok := wire.ParseTraceparent(s)
	if !ok {
		return trace.SpanContext{}, false
	}
	return trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: tid, SpanID: sid, Remote: true,
		TraceFlags: trace.TraceFlags(flags) & (trace.FlagsSampled | trace.FlagsRandom),
	}), true
}

// parseSpanRef returns the span a marker names (a begin's parent, an end's
// span, a message's scope): a traceparent's (ParseTraceparent) or a span id
// of 16 hex digits.
func parseSpanRef(s string) (trace.SpanID, bool) {
	if sc, ok := ParseTraceparent(s); ok {
		return sc.SpanID(), true
	}
	var id trace.SpanID
	if len(s) != 16 {
		return id, false
	}
	if _, err := hex.Decode(id[:], []byte(s)); err != nil || !id.IsValid() {
		return id, false
	}
	return id, true
}
