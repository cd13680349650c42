package protocol

import (
	"strconv"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/spans/wire"
)

// AppendJSON appends m as one protocol line, newline included, in package
// wire's encoding. Fields that are not in the protocol (Syntax, Title) are
// left out, as are empty ones. A counter's value is always written; another
// type's when it is not 0. Attribute types the protocol has no form for
// (maps, nested slices, bytes) are written as their string form; non-finite
// floats as null, which the receiver skips.
func (m Msg) AppendJSON(b []byte) []byte {
	w := wire.Msg{V: m.V, Type: string(m.Type), Name: m.Name, Parent: m.Parent, Span: m.Span, Scope: m.Scope, Result: m.Result, Status: m.Status,
		Time: m.Time, Start: m.Start, End: m.End, Value: m.Value, Ack: m.Ack}
	b = w.AppendHead(b)
	for i, kv := range m.Attrs {
		b = wire.AppendAttrKey(b, i, string(kv.Key))
		b = appendValue(b, kv.Value)
	}
	return w.AppendTail(b, len(m.Attrs))
}

func appendValue(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.BOOL:
		return wire.AppendBool(b, v.AsBool())
	case attribute.INT64:
		return strconv.AppendInt(b, v.AsInt64(), 10)
	case attribute.FLOAT64:
		return wire.AppendFloat(b, v.AsFloat64())
	case attribute.STRING:
		return wire.AppendString(b, v.AsString())
	case attribute.BOOLSLICE:
		return appendSlice(b, v.AsBoolSlice(), wire.AppendBool)
	case attribute.INT64SLICE:
		return appendSlice(b, v.AsInt64Slice(), func(b []byte, x int64) []byte { return strconv.AppendInt(b, x, 10) })
	case attribute.FLOAT64SLICE:
		return appendSlice(b, v.AsFloat64Slice(), wire.AppendFloat)
	case attribute.STRINGSLICE:
		return appendSlice(b, v.AsStringSlice(), wire.AppendString)
	case attribute.EMPTY:
		return append(b, "null"...)
	}
	return wire.AppendString(b, v.Emit())
}

func appendSlice[T any](b []byte, xs []T, app func([]byte, T) []byte) []byte {
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		b = app(b, x)
	}
	return append(b, ']')
}
