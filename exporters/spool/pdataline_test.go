package spool

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/jobtrace/jobtrace/internal/pdataattr"
)

// encodeSpans is appendSpansLine into a line of its own.
func encodeSpans(spans []sdktrace.ReadOnlySpan) ([]byte, error) {
	return appendSpansLine(nil, spans), nil
}

// pdataLine is how the spool wrote spans before appendRequest, and what
// appendRequest must write byte for byte: it turns spans into one line of OTLP/JSON, newline included,
// with the same content as the SDK's transform to OTLP (package
// otlptrace's tracetransform) handed to pdata for its JSON (the test's
// encodeLine), but built straight into pdata, whose JSON encoder writes the
// line: the proto form, its encoding and its decoding into pdata are
// skipped, which makes a line about five times cheaper. Spans are grouped by resource, then by scope,
// in the order they first appear. A string that is not valid UTF-8 is
// cleaned (U+FFFD for each bad byte), so that the line can be read back.
func pdataLine(spans []sdktrace.ReadOnlySpan) ([]byte, error) {
	td := ptrace.NewTraces()
	type scopeKey struct {
		res   attribute.Distinct
		scope instrumentation.Scope
	}
	resources := map[attribute.Distinct]ptrace.ResourceSpans{}
	scopes := map[scopeKey]ptrace.SpanSlice{}
	for _, sd := range spans {
		if sd == nil {
			continue
		}
		res := sd.Resource()
		rk := res.Equivalent()
		sk := scopeKey{rk, sd.InstrumentationScope()}
		out, ok := scopes[sk]
		if !ok {
			rs, ok := resources[rk]
			if !ok {
				rs = td.ResourceSpans().AppendEmpty()
				rs.SetSchemaUrl(res.SchemaURL())
				pdataattr.PutIter(rs.Resource().Attributes(), res.Iter())
				resources[rk] = rs
			}
			ss := rs.ScopeSpans().AppendEmpty()
			ss.SetSchemaUrl(sk.scope.SchemaURL)
			ss.Scope().SetName(pdataattr.Valid(sk.scope.Name))
			ss.Scope().SetVersion(pdataattr.Valid(sk.scope.Version))
			pdataattr.PutIter(ss.Scope().Attributes(), sk.scope.Attributes.Iter())
			out = ss.Spans()
			scopes[sk] = out
		}
		putSpan(out.AppendEmpty(), sd)
	}
	return marshalLine(td)
}

func putSpan(s ptrace.Span, sd sdktrace.ReadOnlySpan) {
	sc := sd.SpanContext()
	s.SetTraceID(pcommon.TraceID(sc.TraceID()))
	s.SetSpanID(pcommon.SpanID(sc.SpanID()))
	s.TraceState().FromRaw(sc.TraceState().String())
	parent := sd.Parent()
	if id := parent.SpanID(); id.IsValid() {
		s.SetParentSpanID(pcommon.SpanID(id))
	}
	s.SetFlags(spanFlags(sc.TraceFlags(), parent))
	s.SetName(pdataattr.Valid(sd.Name()))
	s.SetKind(spanKind(sd.SpanKind()))
	s.SetStartTimestamp(timestamp(sd.StartTime().UnixNano()))
	s.SetEndTimestamp(timestamp(sd.EndTime().UnixNano()))
	pdataattr.Put(s.Attributes(), sd.Attributes())
	s.SetDroppedAttributesCount(clampUint32(sd.DroppedAttributes()))
	if evs := sd.Events(); len(evs) > 0 {
		out := s.Events()
		out.EnsureCapacity(len(evs))
		for _, e := range evs {
			oe := out.AppendEmpty()
			oe.SetName(pdataattr.Valid(e.Name))
			oe.SetTimestamp(timestamp(e.Time.UnixNano()))
			pdataattr.Put(oe.Attributes(), e.Attributes)
			oe.SetDroppedAttributesCount(clampUint32(e.DroppedAttributeCount))
		}
	}
	s.SetDroppedEventsCount(clampUint32(sd.DroppedEvents()))
	if links := sd.Links(); len(links) > 0 {
		out := s.Links()
		out.EnsureCapacity(len(links))
		for _, l := range links {
			ol := out.AppendEmpty()
			ol.SetTraceID(pcommon.TraceID(l.SpanContext.TraceID()))
			ol.SetSpanID(pcommon.SpanID(l.SpanContext.SpanID()))
			ol.TraceState().FromRaw(l.SpanContext.TraceState().String())
			pdataattr.Put(ol.Attributes(), l.Attributes)
			ol.SetDroppedAttributesCount(clampUint32(l.DroppedAttributeCount))
			ol.SetFlags(spanFlags(l.SpanContext.TraceFlags(), l.SpanContext))
		}
	}
	s.SetDroppedLinksCount(clampUint32(sd.DroppedLinks()))
	st := sd.Status()
	switch st.Code {
	case codes.Ok:
		s.Status().SetCode(ptrace.StatusCodeOk)
	case codes.Error:
		s.Status().SetCode(ptrace.StatusCodeError)
	}
	s.Status().SetMessage(pdataattr.Valid(st.Description))
}

func timestamp(ns int64) pcommon.Timestamp { return pcommon.Timestamp(uint64(max(0, ns))) }
