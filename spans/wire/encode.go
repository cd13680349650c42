package wire

import (
	"math"
	"strconv"
	"time"

	"github.com/jobtrace/jobtrace/internal/jsonstring"
)

// Version is the protocol version written in every message.
const Version = 1

// The message types.
const (
	TypeBegin   = "begin"
	TypeEnd     = "end"
	TypeEvent   = "event"
	TypeCounter = "counter"
	TypeAttr    = "attr"
	TypeStop    = "stop"
	TypeAdd     = "add"
)

// Msg holds the fields of a message line other than its attributes. A line
// is written in three parts: AppendHead, then each attribute as
// AppendAttrKey followed by its value (AppendString, AppendFloat,
// strconv.AppendInt or AppendBool), then AppendTail.
type Msg struct {
	V      int // 0 means Version
	Type   string
	Name   string
	Parent string
	// Span is, on an end, the phase's own span (the traceparent the
	// begin's reply gave), which it ends rather than the innermost open
	// phase of Name.
	Span string
	// Scope is, on a marker, the TRACEPARENT its sender was started with
	// (ScopeOf): the receiver applies the message within the phase it
	// names.
	Scope  string
	Result string
	// Status is, on an end or add, the description of the phase's status
	// Error when Result fails it ("make exited with code 2").
	Status string
	Time   time.Time // left out when zero
	// Start and End are the times of a phase added after it ended
	// (TypeAdd); left out when zero.
	Start, End time.Time
	// Value is a counter's increment: written for a counter whatever it
	// is (a receiver reads a missing value as 1), and for another type
	// when it is not 0.
	Value float64
	// Ack asks for a reply line. It is written last, so that a receiver
	// that keeps only the end of an over-long line still sees it.
	Ack bool
}

// AppendHead appends the opening of m's line: every field that comes
// before the attributes, empty ones left out.
func (m *Msg) AppendHead(b []byte) []byte {
	v := m.V
	if v == 0 {
		v = Version
	}
	b = append(b, `{"v":`...)
	b = strconv.AppendInt(b, int64(v), 10)
	b = append(b, `,"type":`...)
	b = AppendString(b, m.Type)
	b = appendField(b, "name", m.Name)
	b = appendField(b, "parent", m.Parent)
	b = appendField(b, "span", m.Span)
	b = appendField(b, "scope", m.Scope)
	b = appendField(b, "result", m.Result)
	b = appendField(b, "status", m.Status)
	b = appendTime(b, "ts", m.Time)
	b = appendTime(b, "start", m.Start)
	return appendTime(b, "end", m.End)
}

// appendTime appends `,"key":"t"` in RFC 3339 with nanoseconds, or nothing
// when t is zero.
func appendTime(b []byte, key string, t time.Time) []byte {
	if t.IsZero() {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":"`...)
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}

// appendField appends `,"key":"s"`, or nothing when s is empty.
func appendField(b []byte, key, s string) []byte {
	if s == "" {
		return b
	}
	b = append(b, `,"`...)
	b = append(b, key...)
	b = append(b, `":`...)
	return AppendString(b, s)
}

// AppendAttrKey appends the key of the attribute at index i (from 0) of a
// line begun by AppendHead; its value comes next.
func AppendAttrKey(b []byte, i int, key string) []byte {
	if i == 0 {
		b = append(b, `,"attrs":{`...)
	} else {
		b = append(b, ',')
	}
	b = AppendString(b, key)
	return append(b, ':')
}

// AppendTail ends a line begun by AppendHead that has n attributes, with
// the fields that come after them and the newline.
func (m *Msg) AppendTail(b []byte, n int) []byte {
	if n > 0 {
		b = append(b, '}')
	}
	if m.Type == TypeCounter || m.Value != 0 {
		b = append(b, `,"value":`...)
		b = AppendFloat(b, m.Value)
	}
	if m.Ack {
		b = append(b, `,"ack":true`...)
	}
	return append(b, "}\n"...)
}

// AppendBool appends true or false.
func AppendBool(b []byte, v bool) []byte { return strconv.AppendBool(b, v) }

// AppendFloat appends f as a JSON number; NaN and infinities, which JSON
// has no form for, as null, which a receiver skips.
func AppendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

// AppendString appends s as a JSON string. Invalid UTF-8 becomes U+FFFD;
// U+2028 and U+2029 are escaped so the line is also valid JavaScript
// (jsonstring.Append).
func AppendString(b []byte, s string) []byte { return jsonstring.Append(b, s) }
