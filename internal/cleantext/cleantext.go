// Package cleantext makes text that a user, a job or the host supplies safe
// to carry into spans, artifacts and jobtrace's own messages: valid UTF-8
// (a span with one invalid byte cannot be encoded, and takes its whole
// batch with it) and free of the characters that change how a terminal or
// a log viewer shows a line.
//
// String is the one function; every door of outside text into jobtrace
// (socket and marker-dir messages, output markers and pattern matches, the
// OTEL_* resource, the CI environment, the task name and arguments, files
// read from the host) applies it where the text comes in.
//
// A text too long is cut here too, with "…", by one of two rules: Cut by
// bytes, for a bound on what is held or written (the model's names, a
// verdict's reason read back), and CutRunes by characters, for a bound on
// what a column shows (the summary's cells, report.html's labels).
package cleantext

import (
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
)

// Replacement is what every invalid byte and every unsafe character
// becomes: U+FFFD, the Unicode replacement character.
const Replacement = '\uFFFD'

// String returns s with each byte that is not part of valid UTF-8, and
// each unsafe character, replaced by U+FFFD. Unsafe are the C0 controls
// but tab (NUL, ESC, CR, LF, BEL, ...), DEL, the C1 controls U+0080 to
// U+009F, the line and paragraph separators U+2028 and U+2029, and the
// bidirectional overrides and isolates U+202A to U+202E and U+2066 to
// U+2069, which reorder what a terminal shows. Everything else is kept.
//
// Text that is printable ASCII, the usual case, is returned as it is,
// without allocating. The result is at most three times as long as s.
func String(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x80 || (c < 0x20 && c != '\t') || c == 0x7f {
			break
		}
		i++
	}
	if i == len(s) {
		return s
	}
	// Non-ASCII text is often clean too: look before building.
	if clean(s[i:]) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || unsafe(r) {
			b.WriteRune(Replacement)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// Bytes is String for a byte slice.
func Bytes(b []byte) string { return String(string(b)) }

func clean(s string) bool {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || unsafe(r) {
			return false
		}
		i += n
	}
	return true
}

func unsafe(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\t'
	case r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	case r >= 0x202a && r <= 0x202e:
		return true
	case r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

// Truncate cuts s to at most max bytes without splitting a rune.
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i]
}

// Ellipsis ends a text that was cut (Cut, CutRunes).
const Ellipsis = "…"

// Cut cuts s to at most n bytes, Ellipsis included, at a character
// boundary: the bound of a text held or written (a span's name, a
// verdict's reason). s is returned as it is when it fits; an n too small
// for Ellipsis cuts s without it.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	if n < len(Ellipsis) {
		return Truncate(s, max(n, 0))
	}
	return Truncate(s, n-len(Ellipsis)) + Ellipsis
}

// CutRunes cuts s to at most n characters (runes), Ellipsis included: the
// bound of a text shown in columns (a table's cell, a chart's label). s is
// returned as it is when it fits; Ellipsis alone when n is 1 or less.
func CutRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 1 {
		return Ellipsis
	}
	k := 0
	for i := range s {
		if k == n-1 {
			return s[:i] + Ellipsis
		}
		k++
	}
	return s
}

// KeyValue returns kv with its key and its string values cleaned by String.
func KeyValue(kv attribute.KeyValue) attribute.KeyValue {
	kv.Key = attribute.Key(String(string(kv.Key)))
	switch kv.Value.Type() {
	case attribute.STRING:
		s := kv.Value.AsString()
		if c := String(s); c != s {
			kv.Value = attribute.StringValue(c)
		}
	case attribute.STRINGSLICE:
		ss := kv.Value.AsStringSlice()
		changed := false
		for i, s := range ss {
			if c := String(s); c != s {
				ss[i], changed = c, true
			}
		}
		if changed {
			kv.Value = attribute.StringSliceValue(ss)
		}
	}
	return kv
}

// Attrs cleans each attribute of kvs with KeyValue, in place, and returns
// kvs.
func Attrs(kvs []attribute.KeyValue) []attribute.KeyValue {
	for i := range kvs {
		kvs[i] = KeyValue(kvs[i])
	}
	return kvs
}
