package spool

import (
	"fmt"
	"math"

	"go.opentelemetry.io/collector/pdata/ptrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// appendSpansLine appends spans as one line of OTLP/JSON, newline
// included, with the same content as the SDK's transform to OTLP (package
// otlptrace's tracetransform) handed to pdata for its JSON (the test's
// encodeLine), written straight from the SDK's spans (appendRequest): the
// proto form, its encoding and its decoding into pdata, and pdata itself,
// are skipped. Spans are grouped by resource, then by scope, in the order
// they first appear. A string that is not valid UTF-8 is cleaned (U+FFFD
// for each bad byte), so that the line can be read back.
func appendSpansLine(b []byte, spans []sdktrace.ReadOnlySpan) []byte {
	return append(appendRequest(b, spans), '\n')
}

// marshalLine is td as one line of OTLP/JSON, newline included: pdata's
// JSON of TracesData, which is also the JSON of an ExportTraceServiceRequest
// (both are one field, resourceSpans).
func marshalLine(td ptrace.Traces) ([]byte, error) {
	js, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	if err != nil {
		return nil, fmt.Errorf("spool: encode: %w", err)
	}
	return append(js, '\n'), nil
}

// The span flag bits of OTLP's trace.proto (SpanFlags) above the W3C
// trace flags, which are the low byte: whether the flags say if the parent
// is remote, and whether it is. The SDK always sets FlagHasIsRemote, which
// tells a span whose flags were filled in from one that carries none.
const (
	FlagHasIsRemote uint32 = 0x100
	FlagIsRemote    uint32 = 0x200
)

// spanFlags are the W3C trace flags in the low byte, and whether the parent
// is remote, as tracetransform sets them: the forwarder reads the sampled
// flag there.
func spanFlags(tf trace.TraceFlags, parent trace.SpanContext) uint32 {
	f := uint32(tf) | FlagHasIsRemote
	if parent.IsRemote() {
		f |= FlagIsRemote
	}
	return f
}

func spanKind(k trace.SpanKind) ptrace.SpanKind {
	switch k {
	case trace.SpanKindInternal:
		return ptrace.SpanKindInternal
	case trace.SpanKindClient:
		return ptrace.SpanKindClient
	case trace.SpanKindServer:
		return ptrace.SpanKindServer
	case trace.SpanKindProducer:
		return ptrace.SpanKindProducer
	case trace.SpanKindConsumer:
		return ptrace.SpanKindConsumer
	}
	return ptrace.SpanKindUnspecified
}

func clampUint32(v int) uint32 { return uint32(min(max(v, 0), math.MaxUint32)) }
