package protocol_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
	"github.com/jobtrace/jobtrace/spans/protocol"
)

// FuzzParse checks that Parse never panics, that whatever it accepts keeps
// the protocol's rules (fuzzcheck.Msg), and that it survives AppendJSON and
// Parse again. Seeds: below and in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{"v":1,"type":"begin","name":"compile","parent":"build","ts":"2025-03-01T12:00:00.123456Z","attrs":{"target":"linux/amd64","jobs":8}}`,
		`{"type":"counter","name":"c","value":0.5}`,
		`{"type":"attr","attrs":{"a":[1,2.5],"b":["x"],"c":[true]}}`,
		`{"type":"end","name":"\u00e9\ud83d\ude00","result":"skip","ts":1700000000.123456789}`,
		`{"type":"event","name":"e","x":{"y":[null,{"z":"\""}]}}`,
		`{"type":"add","name":"Run tests","parent":"00f067aa0ba902b7","start":"2025-03-01T12:00:00+01:00","end":1740830401,"result":"failure","ack":true}`,
		"{\"type\":\"event\",\"name\":\"e\",\"attrs\":{\"k\":\"\xff\xfe\",\"l\":[\"\\ud800\"]},\"ack\":true}",
		`{"type":"counter","name":"c","value":-1e308}`,
		`{"v":2}`, `[`, `{"a":`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		defer fuzzcheck.NoHang(line)()
		m, err := protocol.Parse(line)
		if err != nil {
			return
		}
		if err := fuzzcheck.Msg(m); err != nil {
			t.Fatalf("Parse(%q) accepted a message that breaks the rules: %v\n%#v", line, err, m)
		}
		b := m.AppendJSON(nil)
		m2, err := protocol.Parse(b)
		if err != nil {
			t.Fatalf("re-parsing %s (from %q): %v", b, line, err)
		}
		if !m2.Time.Equal(m.Time) || !m2.Start.Equal(m.Start) || !m2.End.Equal(m.End) {
			t.Fatalf("times changed: %v %v %v -> %v %v %v", m.Time, m.Start, m.End, m2.Time, m2.Start, m2.End)
		}
		m.Time, m2.Time = time.Time{}, time.Time{}
		m.Start, m2.Start, m.End, m2.End = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip of %q via %s:\n%#v\n%#v", line, b, m, m2)
		}
	})
}
