package jsonstring

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzStrings: AppendAsEncodingJSON writes the bytes encoding/json writes
// for any string; Append writes a JSON string that reads back as the
// string with its invalid UTF-8 replaced, with no <, >, & escaped, no
// control character and no U+2028 or U+2029 left as it was.
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
	})
}
