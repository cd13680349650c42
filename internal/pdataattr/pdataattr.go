// Package pdataattr puts OpenTelemetry attributes into pdata, as the SDK's
// transform to OTLP (otlptrace's tracetransform, otlpmetric's transform)
// writes them: the one attribute mapping of the spool and of both OTLP
// exporters. A string that is not valid UTF-8 is cleaned (U+FFFD for each
// bad byte, cleantext.String), since OTLP's protobuf strings must be UTF-8
// and one bad string would fail its whole batch.
package pdataattr

import (
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/internal/cleantext"
)

// PutIter puts every attribute of it into m, in its order.
func PutIter(m pcommon.Map, it attribute.Iterator) {
	m.EnsureCapacity(it.Len())
	for it.Next() {
		kv := it.Attribute()
		PutValue(m.PutEmpty(Valid(string(kv.Key))), kv.Value)
	}
}

// Put puts kvs into m, in their order.
func Put(m pcommon.Map, kvs []attribute.KeyValue) {
	m.EnsureCapacity(len(kvs))
	for _, kv := range kvs {
		PutValue(m.PutEmpty(Valid(string(kv.Key))), kv.Value)
	}
}

// PutValue sets v into dst: an EMPTY value leaves dst empty, and a value of
// no known type is the string "INVALID".
func PutValue(dst pcommon.Value, v attribute.Value) {
	switch v.Type() {
	case attribute.BOOL:
		dst.SetBool(v.AsBool())
	case attribute.INT64:
		dst.SetInt(v.AsInt64())
	case attribute.FLOAT64:
		dst.SetDouble(v.AsFloat64())
	case attribute.STRING:
		dst.SetStr(Valid(v.AsString()))
	case attribute.BOOLSLICE:
		s := dst.SetEmptySlice()
		for _, b := range v.AsBoolSlice() {
			s.AppendEmpty().SetBool(b)
		}
	case attribute.INT64SLICE:
		s := dst.SetEmptySlice()
		for _, n := range v.AsInt64Slice() {
			s.AppendEmpty().SetInt(n)
		}
	case attribute.FLOAT64SLICE:
		s := dst.SetEmptySlice()
		for _, f := range v.AsFloat64Slice() {
			s.AppendEmpty().SetDouble(f)
		}
	case attribute.STRINGSLICE:
		s := dst.SetEmptySlice()
		for _, x := range v.AsStringSlice() {
			s.AppendEmpty().SetStr(Valid(x))
		}
	case attribute.BYTESLICE:
		dst.SetEmptyBytes().FromRaw(v.AsByteSlice())
	case attribute.SLICE:
		s := dst.SetEmptySlice()
		for _, e := range v.AsSlice() {
			PutValue(s.AppendEmpty(), e)
		}
	case attribute.MAP:
		Put(dst.SetEmptyMap(), v.AsMap())
	case attribute.EMPTY:
	default:
		dst.SetStr("INVALID")
	}
}

// Valid returns s when it is valid UTF-8, else s cleaned as every door
// cleans text (cleantext.String): the net under the doors.
func Valid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return cleantext.String(s)
}
