// Package jsonstring appends Go strings as JSON strings, without
// reflection, in the forms jobtrace writes.
package jsonstring

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// Append appends s as a JSON string: " and \ escaped, \n, \r and \t by
// name and the other control characters as \u00XX, each byte of invalid
// UTF-8 as \ufffd, and U+2028 and U+2029 escaped so that the text is also
// valid JavaScript.
func Append(b []byte, s string) []byte { return appendString(b, s, plain) }

// AppendAsEncodingJSON appends s as encoding/json's Encoder writes it by
// default: as Append does, with \b and \f also by name and <, > and & as
// \u003c, \u003e and \u0026.
func AppendAsEncodingJSON(b []byte, s string) []byte { return appendString(b, s, encodingJSON) }

// AppendAsJSONIterator appends s as json-iterator writes it, and so pdata's
// OTLP/JSON: as Append does, but every byte from 0x80 on as it is (invalid
// UTF-8, U+2028 and U+2029 included), which a caller that wants valid
// UTF-8 cleans first.
func AppendAsJSONIterator(b []byte, s string) []byte { return appendString(b, s, jsonIterator) }

// form is the escaping of one of the functions above.
type form int

const (
	plain form = iota
	encodingJSON
	jsonIterator
)

func appendString(b []byte, s string, f form) []byte {
	std := f == encodingJSON
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf || f == jsonIterator {
			if c >= 0x20 && c != '"' && c != '\\' && (!std || c != '<' && c != '>' && c != '&') {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case std && c == '\b':
				b = append(b, '\\', 'b')
			case std && c == '\f':
				b = append(b, '\\', 'f')
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
