package protocol

import (
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/spans/wire"
)

// Parse decodes one JSON line into a Msg. A missing "v" means 1. Unknown
// fields are skipped. It returns an error wrapping ErrParse when the line is
// not a JSON object, when "v" is above Version, when the type is unknown,
// when a required name is missing, or when a name, key or value breaks the
// limits (MaxNameBytes, MaxAttrs).
//
// On a semantic error (valid JSON, bad content) the returned Msg still holds
// what was decoded, in particular Ack, so a socket can answer the sender. On
// a syntax error, Ack is set when the line holds "ack":true (AskedForAck).
func Parse(line []byte) (Msg, error) {
	m := Msg{V: Version}
	d := wire.NewDecoder(line)
	semErr := object(&d, &m)
	if err := d.Err(); err != nil {
		m.Ack = m.Ack || AskedForAck(line)
		return m, perr("%v", err)
	}
	if semErr != nil {
		return m, semErr
	}
	return m, Validate(&m)
}

func perr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrParse}, args...)...)
}

// Validate checks the rules of a message whatever its source: its type,
// the names and the attribute keys (ValidName), the result, the count of
// attributes, an add's times and a counter's value. Parse checks what it
// decodes with it, a session checks a Go program's calls with it, and a
// marker command outside a run checks its message with it, so that a
// socket message, a call and a standalone marker are refused alike. Its
// errors wrap ErrParse.
func Validate(m *Msg) error {
	if !validType(m.Type) {
		if m.Type == "" {
			return perr("missing type")
		}
		return perr("unknown type %q", excerpt(string(m.Type)))
	}
	if m.Name == "" && m.Type != TypeAttr && m.Type != TypeStop {
		return perr("%s without name", m.Type)
	}
	if err := checkName("name", m.Name); err != nil {
		return err
	}
	if err := checkName("parent", m.Parent); err != nil {
		return err
	}
	if err := checkName("span", m.Span); err != nil {
		return err
	}
	if err := checkName("scope", m.Scope); err != nil {
		return err
	}
	if err := checkName("status", m.Status); err != nil {
		return err
	}
	if !ValidResult(m.Result) {
		return perr("unknown result %q", excerpt(m.Result))
	}
	if m.Type == TypeAdd {
		if err := wire.CheckAdd(m.Start, m.End); err != nil {
			return perr("add: %v", err)
		}
	}
	if m.Type == TypeAttr && len(m.Attrs) == 0 {
		return perr("attr without attrs")
	}
	if len(m.Attrs) > MaxAttrs {
		return perr("more than %d attributes", MaxAttrs)
	}
	for _, kv := range m.Attrs {
		if !ValidName(string(kv.Key)) {
			return perr("bad attribute key %q", excerpt(string(kv.Key)))
		}
	}
	if m.Type == TypeCounter && !wire.ValidCounterValue(m.Value) {
		return perr("counter value %v is not a finite non-negative number", m.Value)
	}
	return nil
}

// checkName applies the name rules to an optional field; empty is allowed
// here, callers decide whether the field is required.
func checkName(field, s string) error {
	if len(s) > MaxNameBytes {
		return perr("%s longer than %d bytes", field, MaxNameBytes)
	}
	if !utf8.ValidString(s) {
		return perr("%s is not valid UTF-8", field)
	}
	return nil
}

// ValidName reports whether s can be a phase, event, counter or attribute
// key name: non-empty, at most MaxNameBytes, valid UTF-8.
func ValidName(s string) bool {
	return s != "" && len(s) <= MaxNameBytes && utf8.ValidString(s)
}

// excerpt shortens s for an error message.
func excerpt(s string) string {
	const n = 64
	if len(s) <= n {
		return s
	}
	for i := n; i > n-utf8.UTFMax && i > 0; i-- {
		if utf8.RuneStart(s[i]) {
			return s[:i] + "…"
		}
	}
	return s[:n] + "…"
}

// object decodes the top-level message into m. It returns the first semantic
// error and keeps decoding after one, so that later fields (ack) are known.
func object(d *wire.Decoder, m *Msg) error {
	var sem error
	setSem := func(err error) {
		if sem == nil {
			sem = err
		}
	}
	valueSet := false
	d.Object(func(key []byte) {
		if d.Next() == 'n' { // null: same as absent
			d.Literal("null")
			return
		}
		switch string(key) {
		case "v":
			lit, isInt := d.Number()
			if d.Err() != nil {
				return
			}
			v, err := strconv.Atoi(string(lit))
			if !isInt || err != nil || v < 1 {
				setSem(perr("bad version %s", lit))
			} else if v > Version {
				setSem(perr("unsupported version %d (this jobtrace reads version %d)", v, Version))
			} else {
				m.V = v
			}
		case "type":
			m.Type = internType(d.StringBytes())
		case "name":
			m.Name = cleantext.String(d.String())
		case "parent":
			m.Parent = cleantext.String(d.String())
		case "span":
			m.Span = cleantext.String(d.String())
		case "scope":
			m.Scope = cleantext.String(d.String())
		case "result":
			m.Result = internResult(d.StringBytes())
		case "status":
			m.Status = cleantext.String(d.String())
		case "ts", "start", "end":
			t, err := timeValue(d, key)
			if err != nil {
				setSem(err)
			}
			switch string(key) {
			case "ts":
				m.Time = t
			case "start":
				m.Start = t
			default:
				m.End = t
			}
		case "attrs":
			attrs, err := attrs(d)
			if err != nil {
				setSem(err)
			}
			m.Attrs = attrs
		case "value":
			lit, _ := d.Number()
			if d.Err() != nil {
				return
			}
			f, err := strconv.ParseFloat(string(lit), 64)
			if err != nil {
				setSem(perr("bad value %s", lit))
			}
			m.Value = f
			valueSet = true
		case "ack":
			m.Ack = d.Bool()
		default:
			d.Skip()
		}
	})
	d.End()
	if !valueSet && m.Type == TypeCounter {
		m.Value = 1
	}
	return sem
}

// internType returns the constant for a known type without allocating.
func internType(b []byte) Type {
	switch string(b) {
	case "begin":
		return TypeBegin
	case "end":
		return TypeEnd
	case "event":
		return TypeEvent
	case "counter":
		return TypeCounter
	case "attr":
		return TypeAttr
	case "stop":
		return TypeStop
	case "add":
		return TypeAdd
	}
	return Type(b)
}

func internResult(b []byte) string {
	switch string(b) {
	case "":
		return ""
	case ResultSuccess:
		return ResultSuccess
	case ResultFailure:
		return ResultFailure
	case ResultError:
		return ResultError
	case ResultTimeout:
		return ResultTimeout
	case ResultCancellation:
		return ResultCancellation
	case ResultSkip:
		return ResultSkip
	}
	return string(b)
}

// timeValue decodes a time ("ts", "start", "end", named by key): an RFC
// 3339 string or a number of unix seconds.
func timeValue(d *wire.Decoder, key []byte) (time.Time, error) {
	if d.Next() == '"' {
		s := d.StringBytes()
		if d.Err() != nil {
			return time.Time{}, nil
		}
		t, err := time.Parse(time.RFC3339Nano, string(s))
		if err != nil {
			return time.Time{}, perr("%s %q is not RFC 3339", key, excerpt(string(s)))
		}
		return t, nil
	}
	lit, isInt := d.Number()
	if d.Err() != nil {
		return time.Time{}, nil
	}
	t, ok := unixSeconds(lit, isInt)
	if !ok {
		return time.Time{}, perr("%s %s out of range", key, lit)
	}
	return t, nil
}

// unixSeconds converts a JSON number of seconds since the epoch, keeping
// nanosecond precision for plain decimals (a float64 would round
// 1700000000.123456789 to about a quarter of a microsecond).
func unixSeconds(lit []byte, isInt bool) (time.Time, bool) {
	const maxSec = 1 << 40 // far beyond year 9999, well inside int64 nanoseconds math
	if isInt {
		sec, err := strconv.ParseInt(string(lit), 10, 64)
		if err != nil || sec > maxSec || sec < -maxSec {
			return time.Time{}, false
		}
		return time.Unix(sec, 0), true
	}
	dot := -1
	for i, c := range lit {
		if c == 'e' || c == 'E' {
			dot = -2
			break
		}
		if c == '.' {
			dot = i
		}
	}
	if dot < 0 {
		f, err := strconv.ParseFloat(string(lit), 64)
		if err != nil || math.Abs(f) > maxSec {
			return time.Time{}, false
		}
		sec, frac := math.Modf(f)
		return time.Unix(int64(sec), int64(frac*1e9)), true
	}
	sec, err := strconv.ParseInt(string(lit[:dot]), 10, 64)
	if err != nil || sec > maxSec || sec < -maxSec {
		return time.Time{}, false
	}
	var nsec int64
	frac := lit[dot+1:]
	for i := 0; i < 9; i++ {
		nsec *= 10
		if i < len(frac) {
			nsec += int64(frac[i] - '0')
		}
	}
	if lit[0] == '-' {
		nsec = -nsec
	}
	return time.Unix(sec, nsec), true
}

// attrs decodes the "attrs" object. Values are strings, booleans, numbers
// (int64 when integral, else float64) or arrays of one of those; null values
// are skipped.
func attrs(d *wire.Decoder) ([]attribute.KeyValue, error) {
	if d.Next() != '{' {
		d.Fail("attrs is not an object")
		return nil, nil
	}
	var sem error
	var out []attribute.KeyValue
	d.Object(func(k []byte) {
		key := cleantext.String(string(k))
		v, ok, err := attrValue(d)
		if d.Err() != nil {
			return
		}
		if err != nil && sem == nil {
			sem = err
		}
		if ok && sem == nil {
			// The keys are checked by Validate, with the rest of the
			// message; the count here too, so that a line of many
			// attributes is not held whole.
			if len(out) == MaxAttrs {
				sem = perr("more than %d attributes", MaxAttrs)
				return
			}
			if out == nil {
				out = make([]attribute.KeyValue, 0, 4)
			}
			out = append(out, attribute.KeyValue{Key: attribute.Key(key), Value: v})
		}
	})
	return out, sem
}

// attrValue decodes one attribute value; ok is false for null.
func attrValue(d *wire.Decoder) (v attribute.Value, ok bool, err error) {
	switch c := d.Next(); {
	case c == '"':
		return attribute.StringValue(validString(d.StringBytes())), true, nil
	case c == 't' || c == 'f':
		return attribute.BoolValue(d.Bool()), true, nil
	case c == 'n':
		d.Literal("null")
		return v, false, nil
	case c == '-' || (c >= '0' && c <= '9'):
		lit, isInt := d.Number()
		if d.Err() != nil {
			return v, false, nil
		}
		i, f, isI := numberValue(lit, isInt)
		if isI {
			return attribute.Int64Value(i), true, nil
		}
		return attribute.Float64Value(f), true, nil
	case c == '[':
		return attrArray(d)
	case c == '{':
		d.Skip()
		return v, false, perr("attribute values cannot be objects")
	}
	d.Fail("want a value")
	return v, false, nil
}

// numberValue interprets a number literal as int64 when its value is
// integral and fits, else as float64.
func numberValue(lit []byte, isInt bool) (int64, float64, bool) {
	if isInt {
		if i, err := strconv.ParseInt(string(lit), 10, 64); err == nil {
			return i, 0, true
		}
	}
	f, err := strconv.ParseFloat(string(lit), 64)
	if err != nil { // out of range: ParseFloat returns ±Inf with the error
		return 0, f, false
	}
	if f == math.Trunc(f) && f >= -(1<<63) && f < 1<<63 {
		return int64(f), 0, true
	}
	return 0, f, false
}

// attrArray decodes an array whose elements all have one JSON type.
func attrArray(d *wire.Decoder) (attribute.Value, bool, error) {
	d.Take() // '['
	var (
		strs  []string
		bools []bool
		nums  [][]byte
		ints  []bool
		kind  byte
		mixed bool
	)
	if d.Next() == ']' {
		d.Take()
		return attribute.StringSliceValue(nil), true, nil
	}
	for d.Err() == nil {
		c := d.Next()
		var k byte
		switch {
		case c == '"':
			k = 's'
			strs = append(strs, validString(d.StringBytes()))
		case c == 't' || c == 'f':
			k = 'b'
			bools = append(bools, d.Bool())
		case c == '-' || (c >= '0' && c <= '9'):
			k = 'n'
			lit, isInt := d.Number()
			nums = append(nums, lit)
			ints = append(ints, isInt)
		default:
			k = 'x'
			d.Skip()
		}
		if kind == 0 {
			kind = k
		} else if kind != k {
			mixed = true
		}
		if d.Next() == ',' {
			d.Take()
			continue
		}
		d.Expect(']')
		break
	}
	if d.Err() != nil {
		return attribute.Value{}, false, nil
	}
	if mixed || kind == 'x' {
		return attribute.Value{}, false, perr("attribute arrays must hold only strings, only booleans or only numbers")
	}
	switch kind {
	case 's':
		return attribute.StringSliceValue(strs), true, nil
	case 'b':
		return attribute.BoolSliceValue(bools), true, nil
	}
	is := make([]int64, len(nums))
	allInt := true
	for j, lit := range nums {
		i, _, isI := numberValue(lit, ints[j])
		if !isI {
			allInt = false
			break
		}
		is[j] = i
	}
	if allInt {
		return attribute.Int64SliceValue(is), true, nil
	}
	fs := make([]float64, len(nums))
	for j, lit := range nums {
		fs[j], _ = strconv.ParseFloat(string(lit), 64)
	}
	return attribute.Float64SliceValue(fs), true, nil
}

// validString converts to a string cleaned by cleantext.String: invalid
// UTF-8 and control characters become U+FFFD.
func validString(b []byte) string { return cleantext.Bytes(b) }
