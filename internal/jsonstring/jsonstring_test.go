package jsonstring

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzStrings: AppendAsEncodingJSON writes the bytes encoding/json writes
// for any string; Append writes a JSON string that reads back as the
// string with its invalid UTF-8 replaced, with no <, >, & escaped, no
// control character and no U+2028 or U+2029 left as it was;
// AppendAsJSONIterator writes what Append writes but for the bytes from 0x80
// on, which it leaves as they are (FuzzLineAsPdata of the spool checks it
// against pdata's own writer).
func FuzzStrings(f *testing.F) {
	f.Add("")
	f.Add("<a href=\"x\">&amp;</a>\\")
	f.Add("\u2028\u2029\x7f\x00\x01\b\f\n\r\t\x1f")
	f.Add("\xff\xfe\xc3(\xe2\x82 é😀\ufeff \xed\xa0\x80")
	f.Fuzz(func(t *testing.T, s string) {
		want, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if got := AppendAsEncodingJSON(nil, s); !bytes.Equal(got, want) {
			t.Fatalf("AppendAsEncodingJSON(%q) = %s, encoding/json's %s", s, got, want)
		}
		got := Append(nil, s)
		var back string
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("Append(%q) = %s: %v", s, got, err)
		}
		// strings.Map writes each byte of invalid UTF-8 as U+FFFD.
		if want := strings.Map(func(r rune) rune { return r }, s); back != want {
			t.Fatalf("Append(%q) reads back as %q", s, back)
		}
		if bytes.ContainsAny(got, "\u2028\u2029\n\r\t\b\f\x00") || bytes.Contains(got, []byte(`\u003c`)) {
			t.Fatalf("Append(%q) = %q", s, got)
		}
		raw := AppendAsJSONIterator(nil, s)
		if utf8.ValidString(s) && !strings.ContainsAny(s, "\u2028\u2029") && !bytes.Equal(raw, got) {
			t.Fatalf("AppendAsJSONIterator(%q) = %s, Append's %s", s, raw, got)
		}
		if !bytes.Equal(high([]byte(s)), high(raw)) {
			t.Fatalf("AppendAsJSONIterator(%q) = %q: the bytes from 0x80 on are not left as they were", s, raw)
		}
	})
}

// high is the bytes of b from 0x80 on, in order.
func high(b []byte) []byte {
	var out []byte
	for _, c := range b {
		if c >= 0x80 {
			out = append(out, c)
		}
	}
	return out
}
