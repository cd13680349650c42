package protocol

import (
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
)

// AppendJSON appends m as one protocol line, newline included. Fields that
// are not in the protocol (Syntax, Title) are left out, as are empty ones.
// A zero Value is left out, which a receiver reads as the default 1.
// Attribute types the protocol has no form for (maps, nested slices, bytes)
// are written as their string form; non-finite floats as null, which the
// receiver skips.
func (m Msg) AppendJSON(b []byte) []byte {
	v := m.V
	if v == 0 {
		v = Version
	}
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(v), 10)
	b = append(b, `,"type":`...)
	b = appendString(b, string(m.Type))
	if m.Name != "" {
		b = append(b, `,"name":`...)
		b = appendString(b, m.Name)
	}
	if m.Parent != "" {
		b = append(b, `,"parent":`...)
		b = appendString(b, m.Parent)
	}
	if m.Result != "" {
		b = append(b, `,"result":`...)
		b = appendString(b, m.Result)
	}
	if !m.Time.IsZero() {
		b = append(b, `,"ts":"`...)
		b = m.Time.AppendFormat(b, time.RFC3339Nano)
		b = append(b, '"')
	}
	if len(m.Attrs) > 0 {
		b = append(b, `,"attrs":{`...)
		for i, kv := range m.Attrs {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, string(kv.Key))
			b = append(b, ':')
			b = appendValue(b, kv.Value)
		}
		b = append(b, '}')
	}
	if m.Value != 0 {
		b = append(b, `,"value":`...)
		b = appendFloat(b, m.Value)
	}
	if m.Ack {
		b = append(b, `,"ack":true`...)
	}
	return append(b, "}\n"...)
}

func appendValue(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.BOOL:
		return strconv.AppendBool(b, v.AsBool())
	case attribute.INT64:
		return strconv.AppendInt(b, v.AsInt64(), 10)
	case attribute.FLOAT64:
		return appendFloat(b, v.AsFloat64())
	case attribute.STRING:
		return appendString(b, v.AsString())
	case attribute.BOOLSLICE:
		b = append(b, '[')
		for i, x := range v.AsBoolSlice() {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendBool(b, x)
		}
		return append(b, ']')
	case attribute.INT64SLICE:
		b = append(b, '[')
		for i, x := range v.AsInt64Slice() {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, x, 10)
		}
		return append(b, ']')
	case attribute.FLOAT64SLICE:
		b = append(b, '[')
		for i, x := range v.AsFloat64Slice() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendFloat(b, x)
		}
		return append(b, ']')
	case attribute.STRINGSLICE:
		b = append(b, '[')
		for i, x := range v.AsStringSlice() {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, x)
		}
		return append(b, ']')
	case attribute.EMPTY:
		return append(b, "null"...)
	}
	return appendString(b, v.Emit())
}

func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string. Invalid UTF-8 becomes U+FFFD;
// U+2028 and U+2029 are escaped so the line is also valid JavaScript.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i++
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
