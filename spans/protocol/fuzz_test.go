package protocol

import (
	"reflect"
	"testing"
	"time"
)

// FuzzParse checks that Parse never panics and that whatever it accepts
// survives AppendJSON and Parse again.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		string(benchLine),
		`{"type":"counter","name":"c","value":0.5}`,
		`{"type":"attr","attrs":{"a":[1,2.5],"b":["x"],"c":[true]}}`,
		`{"type":"end","name":"\u00e9\ud83d\ude00","result":"skip","ts":1700000000.123456789}`,
		`{"type":"event","name":"e","x":{"y":[null,{"z":"\""}]}}`,
		`{"v":2}`, `[`, `{"a":`, "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, err := Parse(line)
		if err != nil {
			return
		}
		b := m.AppendJSON(nil)
		m2, err := Parse(b)
		if err != nil {
			t.Fatalf("re-parsing %s (from %q): %v", b, line, err)
		}
		if !m2.Time.Equal(m.Time) {
			t.Fatalf("time changed: %v -> %v", m.Time, m2.Time)
		}
		m.Time, m2.Time = time.Time{}, time.Time{}
		if m.Type == TypeCounter && m.Value == 0 {
			m.Value = 1 // a zero increment is written as the default
		}
		if !reflect.DeepEqual(m, m2) {
			t.Fatalf("round trip of %q via %s:\n%#v\n%#v", line, b, m, m2)
		}
	})
}
