package scan

import (
	"bytes"
	"reflect"
	"regexp"
	"testing"
	"unicode/utf8"

	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
	"github.com/jobtrace/jobtrace/spans/protocol"
)

// FuzzScanner checks that the Scanner never panics, that every message it
// emits keeps the protocol's rules (fuzzcheck.Msg) with a valid UTF-8
// title, that it emits at most three messages per line (a marker, a
// pattern's event and its counter), that the line it quotes is bounded, and
// that how the bytes are split into writes does not change what it finds.
// Seeds: below and in testdata/fuzz/FuzzScanner.
func FuzzScanner(f *testing.F) {
	f.Add([]byte("BEGIN_PHASE a k=v\r\n::group::g\n\x1b[0Ksection_start:1:s[collapsed=true]\r\x1b[0Kh\nwarning: x\nEND_PHASE a"), uint8(3))
	f.Add([]byte("\x1b[\x1b]\x07::endgroup::\nsection_end:99999999999999999999:x\n"), uint8(1))
	f.Add([]byte("BEGIN_PHASE \xff\xfe k=\xc3 \xe2\x82=v\n::group::\xed\xa0\x80 title\nWARN \xff\n"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		defer fuzzcheck.NoHang(data, step)()
		opts := all()
		opts.MaxLineBytes = 64
		opts.Patterns = []Pattern{{Regexp: regexp.MustCompile(`(?i)warn`), Event: "w", Counter: "c"}}
		lines := bytes.Count(data, []byte("\n")) + 1
		collect := func(chunk int) []protocol.Msg {
			var got []protocol.Msg
			s := New(opts, func(m protocol.Msg) {
				if err := fuzzcheck.Msg(m); err != nil {
					t.Fatalf("emitted a message that breaks the rules: %v\n%#v", err, m)
				}
				if !utf8.ValidString(m.Title) {
					t.Fatalf("title %q is not valid UTF-8", m.Title)
				}
				for _, kv := range m.Attrs {
					if kv.Key == LineAttr && len(kv.Value.AsString()) > MaxLineAttrBytes {
						t.Fatalf("%s of %d bytes, more than %d", LineAttr, len(kv.Value.AsString()), MaxLineAttrBytes)
					}
				}
				got = append(got, m)
			})
			for p := data; len(p) > 0; {
				n := min(chunk, len(p))
				s.Write(p[:n])
				p = p[n:]
			}
			s.Close()
			if len(got) > 3*lines {
				t.Fatalf("%d messages from %d lines", len(got), lines)
			}
			return got
		}
		whole := collect(len(data) + 1)
		if split := collect(int(step%16) + 1); !reflect.DeepEqual(whole, split) {
			t.Fatalf("splitting changed the result:\n%#v\n%#v", whole, split)
		}
	})
}
