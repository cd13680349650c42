package wire

import (
	"strconv"
	"unicode/utf8"
)

// MaxDepth bounds the nesting of the values Skip passes over, so that a line
// of ten thousand '[' cannot exhaust the stack.
const MaxDepth = 32

// SyntaxError is a line that is not the JSON it should be.
type SyntaxError struct {
	Msg    string
	Offset int // -1 when the error is not at one place
}

func (e *SyntaxError) Error() string {
	if e.Offset < 0 {
		return e.Msg
	}
	return e.Msg + " at offset " + strconv.Itoa(e.Offset)
}

// Decoder reads the JSON values of one line, in order. Syntax errors are
// sticky: after the first, methods return zero values and Err returns it.
type Decoder struct {
	b   []byte
	i   int
	err error
}

// NewDecoder returns a Decoder at the start of line.
func NewDecoder(line []byte) Decoder { return Decoder{b: line} }

// Err returns the first syntax error met, nil when none.
func (d *Decoder) Err() error { return d.err }

// Fail records a syntax error at the current offset, unless one is
// recorded already.
func (d *Decoder) Fail(msg string) { d.failAt(msg, d.i) }

func (d *Decoder) failAt(msg string, off int) {
	if d.err == nil {
		d.err = &SyntaxError{Msg: msg, Offset: off}
	}
}

func (d *Decoder) ws() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// Next returns the next byte that is not a blank, without taking it, or 0
// at the end of the line.
func (d *Decoder) Next() byte {
	d.ws()
	if d.i < len(d.b) {
		return d.b[d.i]
	}
	return 0
}

// Take passes over the byte Next returned.
func (d *Decoder) Take() { d.i++ }

// Expect takes c, the next byte that is not a blank, or fails.
func (d *Decoder) Expect(c byte) bool {
	if d.Next() == c {
		d.i++
		return true
	}
	if d.i >= len(d.b) {
		d.failAt("unexpected end of line, want "+strconv.QuoteRune(rune(c)), -1)
	} else {
		d.Fail("unexpected " + strconv.QuoteRune(rune(d.b[d.i])) + ", want " + strconv.QuoteRune(rune(c)))
	}
	return false
}

// End checks that nothing but blanks is left.
func (d *Decoder) End() {
	if d.err == nil {
		d.ws()
		if d.i != len(d.b) {
			d.Fail("trailing data after the object")
		}
	}
}

// Literal takes word (true, false, null) or fails.
func (d *Decoder) Literal(word string) {
	if len(d.b)-d.i >= len(word) && string(d.b[d.i:d.i+len(word)]) == word {
		d.i += len(word)
		return
	}
	d.Fail("bad literal")
}

// Bool takes true or false.
func (d *Decoder) Bool() bool {
	switch d.Next() {
	case 't':
		d.Literal("true")
		return true
	case 'f':
		d.Literal("false")
		return false
	}
	d.Fail("want true or false")
	return false
}

// String takes a JSON string.
func (d *Decoder) String() string {
	b := d.StringBytes()
	if len(b) == 0 {
		return ""
	}
	return string(b)
}

// StringBytes takes a JSON string. Without escapes the result aliases the
// line; with escapes it is a new slice. A \u escape of a lone surrogate
// becomes U+FFFD.
func (d *Decoder) StringBytes() []byte {
	if d.err != nil {
		return nil
	}
	if d.Next() != '"' {
		d.Fail("want a string")
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
			d.Fail("control character in string")
			return nil
		}
		d.i++
	}
	d.failAt("unterminated string", -1)
	return nil
}

// unescape continues a string that has an escape at d.i.
func (d *Decoder) unescape(start int) []byte {
	out := make([]byte, 0, d.i-start+16)
	out = append(out, d.b[start:d.i]...)
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return out
		case c < 0x20:
			d.Fail("control character in string")
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
			d.failAt("bad escape \\"+string(rune(e)), d.i-1)
			return nil
		}
	}
	d.failAt("unterminated string", -1)
	return nil
}

func utf16IsHigh(r rune) bool { return r >= 0xd800 && r < 0xdc00 }
func utf16IsLow(r rune) bool  { return r >= 0xdc00 && r < 0xe000 }

func (d *Decoder) hex4() (rune, bool) {
	if d.i+4 > len(d.b) {
		d.failAt(`short \u escape`, -1)
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
			d.Fail(`bad \u escape`)
			return 0, false
		}
	}
	d.i += 4
	return r, true
}

// Number takes a JSON number and returns its literal; isInt is true when it
// has neither fraction nor exponent.
func (d *Decoder) Number() (lit []byte, isInt bool) {
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
		d.failAt("want a number", start)
		return nil, false
	}
	isInt = true
	if d.i < len(d.b) && d.b[d.i] == '.' {
		d.i++
		isInt = false
		if digits() == 0 {
			d.failAt("bad number", start)
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
			d.failAt("bad number", start)
			return nil, false
		}
	}
	return d.b[start:d.i], isInt
}

// Object takes a JSON object, calling field with each key; field takes
// the value (or calls Skip). It stops at the first syntax error.
func (d *Decoder) Object(field func(key []byte)) {
	if d.Next() != '{' {
		d.Fail("not a JSON object")
		return
	}
	d.i++
	if d.Next() == '}' {
		d.i++
		return
	}
	for d.err == nil {
		if d.Next() != '"' {
			d.Fail("want a field name")
			return
		}
		key := d.StringBytes()
		if !d.Expect(':') {
			return
		}
		field(key)
		if d.err != nil {
			return
		}
		if d.Next() == ',' {
			d.i++
			continue
		}
		d.Expect('}')
		return
	}
}

// Skip passes over one value of any kind.
func (d *Decoder) Skip() { d.skip(0) }

func (d *Decoder) skip(depth int) {
	if depth > MaxDepth {
		d.Fail("nested too deeply")
		return
	}
	switch c := d.Next(); {
	case c == '"':
		d.StringBytes()
	case c == 't':
		d.Literal("true")
	case c == 'f':
		d.Literal("false")
	case c == 'n':
		d.Literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		d.Number()
	case c == '[':
		d.i++
		if d.Next() == ']' {
			d.i++
			return
		}
		for d.err == nil {
			d.skip(depth + 1)
			if d.Next() == ',' {
				d.i++
				continue
			}
			d.Expect(']')
			return
		}
	case c == '{':
		d.Object(func([]byte) { d.skip(depth + 1) })
	default:
		d.Fail("want a value")
	}
}
