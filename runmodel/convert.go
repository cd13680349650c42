package runmodel

import (
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/internal/cleantext"
)

// The two doors into the model: a span as the SDK ends it, and a span as
// pdata reads it from the spool. Both give the same Span for the same span,
// and clean every string.

// MaxNameBytes bounds the name of a span or an event in the model. The
// names jobtrace's own sources give are at most 256 bytes
// (protocol.MaxNameBytes); a spool written by another tool, or edited,
// may hold a name of megabytes, which every renderer would otherwise
// print whole (the report's table, the profile, the diff's JSON). A longer
// name is cut at a character boundary and ends with "…".
const MaxNameBytes = 1024

// name is s cleaned and cut to MaxNameBytes.
func name(s string) string { return cleantext.Cut(cleantext.String(s), MaxNameBytes) }

// fromSDK is the Span of a span the SDK ended.
func fromSDK(s sdktrace.ReadOnlySpan) Span {
	sp := Span{
		Name:   name(s.Name()),
		ID:     s.SpanContext().SpanID(),
		Parent: s.Parent().SpanID(),
		Start:  timeOf(s.StartTime().UnixNano()),
		End:    timeOf(s.EndTime().UnixNano()),
		Failed: s.Status().Code == codes.Error,
		Status: cleantext.String(s.Status().Description),
	}
	sp.Attributes = cleanAttrs(s.Attributes())
	if evs := s.Events(); len(evs) > 0 {
		sp.Events = make([]Event, len(evs))
		for i, e := range evs {
			sp.Events[i] = Event{Name: name(e.Name), Time: timeOf(e.Time.UnixNano()), Attributes: cleanAttrs(e.Attributes)}
		}
	}
	if res := s.Resource(); res != nil {
		sp.resource = cleanAttrs(res.Attributes())
	}
	return sp
}

// fromPData is the Span of a span read from the spool; res is the
// resource of its line, converted once per line.
func fromPData(s ptrace.Span, res []attribute.KeyValue) Span {
	sp := Span{
		Name:       name(s.Name()),
		ID:         trace.SpanID(s.SpanID()),
		Parent:     trace.SpanID(s.ParentSpanID()),
		Start:      timeOf(int64(s.StartTimestamp())),
		End:        timeOf(int64(s.EndTimestamp())),
		Failed:     s.Status().Code() == ptrace.StatusCodeError,
		Status:     cleantext.String(s.Status().Message()),
		Attributes: attrsOf(s.Attributes()),
		resource:   res,
	}
	if evs := s.Events(); evs.Len() > 0 {
		sp.Events = make([]Event, evs.Len())
		for i := range evs.Len() {
			e := evs.At(i)
			sp.Events[i] = Event{Name: name(e.Name()), Time: timeOf(int64(e.Timestamp())), Attributes: attrsOf(e.Attributes())}
		}
	}
	return sp
}

// attrsOf converts pdata attributes, cleaned; nil when there are none.
func attrsOf(m pcommon.Map) []attribute.KeyValue {
	if m.Len() == 0 {
		return nil
	}
	out := make([]attribute.KeyValue, 0, m.Len())
	for k, v := range m.All() {
		out = append(out, attribute.KeyValue{Key: attribute.Key(cleantext.String(k)), Value: valueOf(v)})
	}
	return out
}

// valueOf converts a pdata value, its strings cleaned.
func valueOf(v pcommon.Value) attribute.Value {
	switch v.Type() {
	case pcommon.ValueTypeStr:
		return attribute.StringValue(cleantext.String(v.Str()))
	case pcommon.ValueTypeInt:
		return attribute.Int64Value(v.Int())
	case pcommon.ValueTypeDouble:
		return attribute.Float64Value(v.Double())
	case pcommon.ValueTypeBool:
		return attribute.BoolValue(v.Bool())
	case pcommon.ValueTypeBytes:
		return attribute.ByteSliceValue(v.Bytes().AsRaw())
	case pcommon.ValueTypeSlice:
		s := v.Slice()
		vs := make([]attribute.Value, s.Len())
		for i := range vs {
			vs[i] = valueOf(s.At(i))
		}
		return typedSlice(vs)
	case pcommon.ValueTypeMap:
		return attribute.MapValue(attrsOf(v.Map())...)
	}
	return attribute.Value{}
}

// typedSlice is vs as the SDK's typed slice when its values are all of
// one type the SDK has a slice of: the form the spool was written from
// (an empty list is a list of strings).
func typedSlice(vs []attribute.Value) attribute.Value {
	typ := attribute.STRING
	if len(vs) > 0 {
		typ = vs[0].Type()
	}
	for _, v := range vs {
		if v.Type() != typ {
			return attribute.SliceValue(vs...)
		}
	}
	switch typ {
	case attribute.STRING:
		return typed(vs, attribute.Value.AsString, attribute.StringSliceValue)
	case attribute.INT64:
		return typed(vs, attribute.Value.AsInt64, attribute.Int64SliceValue)
	case attribute.FLOAT64:
		return typed(vs, attribute.Value.AsFloat64, attribute.Float64SliceValue)
	case attribute.BOOL:
		return typed(vs, attribute.Value.AsBool, attribute.BoolSliceValue)
	}
	return attribute.SliceValue(vs...)
}

func typed[T any](vs []attribute.Value, as func(attribute.Value) T, slice func([]T) attribute.Value) attribute.Value {
	out := make([]T, len(vs))
	for i, v := range vs {
		out[i] = as(v)
	}
	return slice(out)
}

// cleanAttrs returns a copy of kvs with every string cleaned, nested ones
// included; nil when there are none. The SDK's slices are not changed.
func cleanAttrs(kvs []attribute.KeyValue) []attribute.KeyValue {
	if len(kvs) == 0 {
		return nil
	}
	out := make([]attribute.KeyValue, len(kvs))
	for i, kv := range kvs {
		out[i] = attribute.KeyValue{Key: attribute.Key(cleantext.String(string(kv.Key))), Value: cleanValue(kv.Value)}
	}
	return out
}

func cleanValue(v attribute.Value) attribute.Value {
	switch v.Type() {
	case attribute.STRING:
		if s := v.AsString(); cleantext.String(s) != s {
			return attribute.StringValue(cleantext.String(s))
		}
	case attribute.STRINGSLICE:
		return cleantext.KeyValue(attribute.KeyValue{Value: v}).Value
	case attribute.SLICE:
		vs := v.AsSlice()
		for i := range vs {
			vs[i] = cleanValue(vs[i])
		}
		return attribute.SliceValue(vs...)
	case attribute.MAP:
		return attribute.MapValue(cleanAttrs(v.AsMap())...)
	}
	return v
}
