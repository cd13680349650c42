package scan

import (
	"reflect"
	"regexp"
	"testing"

	"github.com/jobtrace/jobtrace/spans/protocol"
)

// FuzzScanner checks that the Scanner never panics, that every name it
// emits is a valid protocol name, and that how the bytes are split into
// writes does not change what it finds.
func FuzzScanner(f *testing.F) {
	f.Add([]byte("BEGIN_PHASE a k=v\r\n::group::g\n\x1b[0Ksection_start:1:s[collapsed=true]\r\x1b[0Kh\nwarning: x\nEND_PHASE a"), uint8(3))
	f.Add([]byte("\x1b[\x1b]\x07::endgroup::\nsection_end:99999999999999999999:x\n"), uint8(1))
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		opts := all()
		opts.MaxLineBytes = 64
		opts.Patterns = []Pattern{{Regexp: regexp.MustCompile(`(?i)warn`), Event: "w", Counter: "c"}}
		collect := func(chunk int) []protocol.Msg {
			var got []protocol.Msg
			s := New(opts, func(m protocol.Msg) {
				if m.Name != "" && !protocol.ValidName(m.Name) {
					t.Fatalf("invalid name %q", m.Name)
				}
				got = append(got, m)
			})
			for p := data; len(p) > 0; {
				n := min(chunk, len(p))
				s.Write(p[:n])
				p = p[n:]
			}
			s.Close()
			return got
		}
		whole := collect(len(data) + 1)
		if split := collect(int(step%16) + 1); !reflect.DeepEqual(whole, split) {
			t.Fatalf("splitting changed the result:\n%#v\n%#v", whole, split)
		}
	})
}
