package markerdir

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
	"github.com/jobtrace/jobtrace/spans/protocol"
)

// FuzzReader appends data to a marker file in up to three writes, with a
// poll after each and the final read at the end, and checks that the
// Reader passes on exactly the messages of the lines that fit in
// MaxMessageBytes and parse, in order, whatever the writes' boundaries;
// that each keeps the protocol's rules (fuzzcheck.Msg), comes from the
// marker dir and asks for no reply; and that every line is counted once.
// Seeds: below and in testdata/fuzz/FuzzReader.
func FuzzReader(f *testing.F) {
	f.Add([]byte(ev("a")+ev("b")), uint16(5), uint16(30), uint8(0))
	f.Add([]byte(`{"type":"begin","name":"deploy","attrs":{"env":"staging"},"ack":true}`+"\n"+`{"type":"end","name":"deploy","result":"failure"}`), uint16(70), uint16(71), uint8(10))
	f.Add([]byte("garbage\n\n   \n"+ev("x")+`{"type":"event","name":"`+string(bytes.Repeat([]byte("y"), 300))+`"}`+"\n"+ev("z")), uint16(40), uint16(200), uint8(50))
	f.Add([]byte("\xff\xfe\x00{\"type\":\"counter\",\"name\":\"c\",\"value\":1e400}\n\r\n{\"type\":\"attr\",\"attrs\":{}}\n"), uint16(1), uint16(2), uint8(255))
	f.Fuzz(func(t *testing.T, data []byte, cut1, cut2 uint16, max uint8) {
		defer fuzzcheck.NoHang(data, cut1, cut2, max)()
		maxMsg := 16 + int(max)
		dir := t.TempDir()
		var got []protocol.Msg
		r := New(dir, func(m protocol.Msg) {
			if err := fuzzcheck.Msg(m); err != nil {
				t.Fatalf("passed on a message that breaks the rules: %v\n%#v", err, m)
			}
			if m.Syntax != protocol.SyntaxMarkerDir || m.Ack {
				t.Fatalf("syntax %q, ack %v", m.Syntax, m.Ack)
			}
			m.Syntax, m.Ack = "", false
			got = append(got, m)
		}, Options{MaxMessageBytes: maxMsg, Warn: func(string) {}})

		path := filepath.Join(dir, "1"+Suffix)
		a, b := int(cut1)%(len(data)+1), int(cut2)%(len(data)+1)
		if a > b {
			a, b = b, a
		}
		for _, part := range [][]byte{data[:a], data[a:b], data[b:]} {
			fh, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := fh.Write(part); err != nil {
				t.Fatal(err)
			}
			fh.Close()
			r.poll(false)
		}
		r.Final()

		// What a reader of the whole file would pass on.
		var want []protocol.Msg
		var lines, blank uint64
		for i, line := range bytes.Split(data, []byte("\n")) {
			if i == bytes.Count(data, []byte("\n")) && len(line) == 0 {
				break // nothing after the last newline
			}
			lines++
			if len(line) > maxMsg {
				continue
			}
			if len(bytes.TrimSpace(line)) == 0 {
				blank++
				continue
			}
			if m, err := protocol.Parse(line); err == nil {
				m.Syntax, m.Ack = "", false
				want = append(want, m)
			}
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("written in parts at %d and %d (max %d): passed on\n%#v\nwant\n%#v", a, b, maxMsg, got, want)
		}
		st := r.Stats()
		if st.Messages != uint64(len(want)) || st.Messages+st.Rejected+st.TooLong+blank != lines {
			t.Fatalf("stats %+v for %d lines (%d blank), %d messages", st, lines, blank, len(want))
		}
	})
}
