package protocol

import (
	"fmt"
	"math"
	"strconv"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/internal/cleantext"
)

// maxDepth bounds the nesting of unknown fields that Parse skips, so that a
// line of ten thousand '[' cannot exhaust the stack.
const maxDepth = 32

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
	d := decoder{b: line}
	semErr := d.object(&m)
	if d.err != nil {
		m.Ack = m.Ack || AskedForAck(line)
		return m, d.err
	}
	if semErr != nil {
		return m, semErr
	}
	return m, validate(&m)
}

func perr(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrParse}, args...)...)
}

// validate checks the rules that depend on more than one field.
func validate(m *Msg) error {
	if !validType(m.Type) {
		if m.Type == "" {
			return perr("missing type")
		}
		return perr("unknown type %q", excerpt(string(m.Type)))
	}
	if m.Name == "" && m.Type != TypeAttr {
		return perr("%s without name", m.Type)
	}
	if err := checkName("name", m.Name); err != nil {
		return err
	}
	if err := checkName("parent", m.Parent); err != nil {
		return err
	}
	if !ValidResult(m.Result) {
		return perr("unknown result %q", excerpt(m.Result))
	}
	if m.Type == TypeAttr && len(m.Attrs) == 0 {
		return perr("attr without attrs")
	}
	if m.Type == TypeCounter && (math.IsNaN(m.Value) || math.IsInf(m.Value, 0)) {
		return perr("counter value is not finite")
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

// decoder is a cursor over one line. Syntax errors are sticky in err;
// methods return zero values once err is set.
type decoder struct {
	b   []byte
	i   int
	err error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = perr(format, args...)
	}
}

func (d *decoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// next returns the next non-space byte without consuming it, or 0 at the end.
func (d *decoder) next() byte {
	d.ws()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

func (d *decoder) expect(c byte) bool {
	if d.next() == c {
		d.i++
		return true
	}
	if d.i >= len(d.b) {
		d.fail("unexpected end of line, want %q", c)
	} else {
		d.fail("unexpected %q at offset %d, want %q", d.b[d.i], d.i, c)
	}
	return false
}

// object decodes the top-level message into m. It returns the first semantic
// error and keeps decoding after one, so that later fields (ack) are known.
func (d *decoder) object(m *Msg) error {
	var sem error
	setSem := func(err error) {
		if sem == nil {
			sem = err
		}
	}
	if d.next() != '{' {
		d.fail("not a JSON object")
		return nil
	}
	d.i++
	valueSet := false
	if d.next() == '}' {
		d.i++
	} else {
		for d.err == nil {
			if d.next() != '"' {
				d.fail("want a field name at offset %d", d.i)
				break
			}
			key := d.strBytes()
			if !d.expect(':') {
				break
			}
			if d.next() == 'n' { // null: same as absent
				d.literal("null")
			} else {
				switch string(key) {
				case "v":
					lit, isInt := d.number()
					if d.err != nil {
						break
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
					m.Type = internType(d.strBytes())
				case "name":
					m.Name = cleantext.String(d.str())
				case "parent":
					m.Parent = cleantext.String(d.str())
				case "result":
					m.Result = internResult(d.strBytes())
				case "ts":
					t, err := d.time()
					if err != nil {
						setSem(err)
					}
					m.Time = t
				case "attrs":
					attrs, err := d.attrs()
					if err != nil {
						setSem(err)
					}
					m.Attrs = attrs
				case "value":
					lit, _ := d.number()
					if d.err != nil {
						break
					}
					f, err := strconv.ParseFloat(string(lit), 64)
					if err != nil {
						setSem(perr("bad value %s", lit))
					}
					m.Value = f
					valueSet = true
				case "ack":
					m.Ack = d.boolean()
				default:
					d.skip(0)
				}
			}
			if d.err != nil {
				break
			}
			if d.next() == ',' {
				d.i++
				continue
			}
			d.expect('}')
			break
		}
	}
	if d.err == nil {
		d.ws()
		if d.i != len(d.b) {
			d.fail("trailing data after the object")
		}
	}
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

func (d *decoder) literal(word string) {
	if len(d.b)-d.i >= len(word) && string(d.b[d.i:d.i+len(word)]) == word {
		d.i += len(word)
		return
	}
	d.fail("bad literal at offset %d", d.i)
}

func (d *decoder) boolean() bool {
	switch d.next() {
	case 't':
		d.literal("true")
		return true
	case 'f':
		d.literal("false")
		return false
	}
	d.fail("want true or false at offset %d", d.i)
	return false
}

func (d *decoder) str() string {
	b := d.strBytes()
	if len(b) == 0 {
		return ""
	}
	return string(b)
}

// strBytes decodes a JSON string. Without escapes the result aliases the
// line; with escapes it is a new slice.
func (d *decoder) strBytes() []byte {
	if d.err != nil {
		return nil
	}
	if d.next() != '"' {
		d.fail("want a string at offset %d", d.i)
		return nil
	}
	d.i++
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			return s
		case c == '\\':
			return d.unescape(start)
		case c < 0x20:
			d.fail("control character in string at offset %d", d.i)
			return nil
		}
		d.i++
	}
	d.fail("unterminated string")
	return nil
}

// unescape continues a string that has an escape at d.i.
func (d *decoder) unescape(start int) []byte {
	out := make([]byte, 0, d.i-start+16)
	out = append(out, d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return out
		case c < 0x20:
			d.fail("control character in string at offset %d", d.i)
			return nil
		case c != '\\':
			out = append(out, c)
			d.i++
			continue
		}
		if d.i+1 >= len(d.b) {
			break
		}
		e := d.b[d.i+1]
		d.i += 2
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := d.hex4()
			if !ok {
				return nil
			}
			if utf16IsHigh(r) && d.i+1 < len(d.b) && d.b[d.i] == '\\' && d.b[d.i+1] == 'u' {
				save := d.i
				d.i += 2
				r2, ok := d.hex4()
				if !ok {
					return nil
				}
				if utf16IsLow(r2) {
					r = (r-0xd800)<<10 + (r2 - 0xdc00) + 0x10000
				} else {
					d.i = save // not a pair: keep the second escape for the next round
					r = utf8.RuneError
				}
			} else if utf16IsHigh(r) || utf16IsLow(r) {
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
		default:
			d.fail("bad escape \\%c at offset %d", e, d.i-1)
			return nil
		}
	}
	d.fail("unterminated string")
	return nil
}

func utf16IsHigh(r rune) bool { return r >= 0xd800 && r < 0xdc00 }
func utf16IsLow(r rune) bool  { return r >= 0xdc00 && r < 0xe000 }

func (d *decoder) hex4() (rune, bool) {
	if d.i+4 > len(d.b) {
		d.fail("short \\u escape")
		return 0, false
	}
	var r rune
	for _, c := range d.b[d.i : d.i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			d.fail("bad \\u escape at offset %d", d.i)
			return 0, false
		}
	}
	d.i += 4
	return r, true
}

// number scans a JSON number and returns its literal; isInt is true when it
// has neither fraction nor exponent.
func (d *decoder) number() (lit []byte, isInt bool) {
	if d.err != nil {
		return nil, false
	}
	d.ws()
	start := d.i
	if d.i < len(d.b) && d.b[d.i] == '-' {
		d.i++
	}
	digits := func() int {
		n := 0
		for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
			d.i++
			n++
		}
		return n
	}
	if d.i < len(d.b) && d.b[d.i] == '0' {
		d.i++
	} else if digits() == 0 {
		d.fail("want a number at offset %d", start)
		return nil, false
	}
	isInt = true
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		isInt = false
		if digits() == 0 {
			d.fail("bad number at offset %d", start)
			return nil, false
		}
	}
	if d.i < len(d.b) && (d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		d.i++
		isInt = false
		if d.i < len(d.b) && (d.b[d.i] == '+' || d.b[d.i] == '-') {
			d.i++
		}
		if digits() == 0 {
			d.fail("bad number at offset %d", start)
			return nil, false
		}
	}
	return d.b[start:d.i], isInt
}

// time decodes "ts": an RFC 3339 string or a number of unix seconds.
func (d *decoder) time() (time.Time, error) {
	if d.next() == '"' {
		s := d.strBytes()
		if d.err != nil {
			return time.Time{}, nil
		}
		t, err := time.Parse(time.RFC3339Nano, string(s))
		if err != nil {
			return time.Time{}, perr("ts %q is not RFC 3339", excerpt(string(s)))
		}
		return t, nil
	}
	lit, isInt := d.number()
	if d.err != nil {
		return time.Time{}, nil
	}
	t, ok := unixSeconds(lit, isInt)
	if !ok {
		return time.Time{}, perr("ts %s out of range", lit)
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
func (d *decoder) attrs() ([]attribute.KeyValue, error) {
	if d.next() != '{' {
		d.fail("attrs is not an object")
		return nil, nil
	}
	d.i++
	if d.next() == '}' {
		d.i++
		return nil, nil
	}
	var sem error
	var out []attribute.KeyValue
	for d.err == nil {
		if d.next() != '"' {
			d.fail("want an attribute key at offset %d", d.i)
			break
		}
		key := cleantext.String(d.str())
		if !d.expect(':') {
			break
		}
		v, ok, err := d.attrValue()
		if d.err != nil {
			break
		}
		if err != nil && sem == nil {
			sem = err
		}
		if ok && sem == nil {
			switch {
			case !ValidName(key):
				sem = perr("bad attribute key %q", excerpt(key))
			case len(out) == MaxAttrs:
				sem = perr("more than %d attributes", MaxAttrs)
			default:
				if out == nil {
					out = make([]attribute.KeyValue, 0, 4)
				}
				out = append(out, attribute.KeyValue{Key: attribute.Key(key), Value: v})
			}
		}
		if d.next() == ',' {
			d.i++
			continue
		}
		d.expect('}')
		break
	}
	return out, sem
}

// attrValue decodes one attribute value; ok is false for null.
func (d *decoder) attrValue() (v attribute.Value, ok bool, err error) {
	switch c := d.next(); {
	case c == '"':
		return attribute.StringValue(validString(d.strBytes())), true, nil
	case c == 't' || c == 'f':
		return attribute.BoolValue(d.boolean()), true, nil
	case c == 'n':
		d.literal("null")
		return v, false, nil
	case c == '-' || (c >= '0' && c <= '9'):
		lit, isInt := d.number()
		if d.err != nil {
			return v, false, nil
		}
		i, f, isI := numberValue(lit, isInt)
		if isI {
			return attribute.Int64Value(i), true, nil
		}
		return attribute.Float64Value(f), true, nil
	case c == '[':
		return d.attrArray()
	case c == '{':
		d.skip(0)
		return v, false, perr("attribute values cannot be objects")
	}
	d.fail("want a value at offset %d", d.i)
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
func (d *decoder) attrArray() (attribute.Value, bool, error) {
	d.i++ // '['
	var (
		strs  []string
		bools []bool
		nums  [][]byte
		ints  []bool
		kind  byte
		mixed bool
	)
	if d.next() == ']' {
		d.i++
		return attribute.StringSliceValue(nil), true, nil
	}
	for d.err == nil {
		c := d.next()
		var k byte
		switch {
		case c == '"':
			k = 's'
			strs = append(strs, validString(d.strBytes()))
		case c == 't' || c == 'f':
			k = 'b'
			bools = append(bools, d.boolean())
		case c == '-' || (c >= '0' && c <= '9'):
			k = 'n'
			lit, isInt := d.number()
			nums = append(nums, lit)
			ints = append(ints, isInt)
		default:
			k = 'x'
			d.skip(1)
		}
		if kind == 0 {
			kind = k
		} else if kind != k {
			mixed = true
		}
		if d.next() == ',' {
			d.i++
			continue
		}
		d.expect(']')
		break
	}
	if d.err != nil {
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

// skip passes over one value of any kind.
func (d *decoder) skip(depth int) {
	if depth > maxDepth {
		d.fail("nested too deeply")
		return
	}
	switch c := d.next(); {
	case c == '"':
		d.strBytes()
	case c == 't':
		d.literal("true")
	case c == 'f':
		d.literal("false")
	case c == 'n':
		d.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		d.number()
	case c == '[' || c == '{':
		closer := byte(']')
		if c == '{' {
			closer = '}'
		}
		d.i++
		if d.next() == closer {
			d.i++
			return
		}
		for d.err == nil {
			if c == '{' {
				if d.next() != '"' {
					d.fail("want a field name at offset %d", d.i)
					return
				}
				d.strBytes()
				if !d.expect(':') {
					return
				}
			}
			d.skip(depth + 1)
			if d.next() == ',' {
				d.i++
				continue
			}
			d.expect(closer)
			return
		}
	default:
		d.fail("want a value at offset %d", d.i)
	}
}
