package socket

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
	"github.com/jobtrace/jobtrace/spans/protocol"
)

// FuzzServe sends any bytes on one connection, in writes split at cut, and
// half-closes it: the server never panics or hangs; it hands on exactly the
// messages of the lines that fit in MaxMessageBytes and parse, in order,
// each keeping the protocol's rules (fuzzcheck.Msg); and what it writes back
// is reply lines, at most one per line sent. Seeds: below and in
// testdata/fuzz/FuzzServe.
func FuzzServe(f *testing.F) {
	f.Add([]byte(`{"type":"begin","name":"a","ack":true}`+"\n"+`{"type":"end","name":"a"}`+"\n"), uint16(10), uint8(0))
	f.Add([]byte("garbage\n\n{\"ack\":true,\"type\":\n{\"type\":\"event\",\"name\":\""+string(bytes.Repeat([]byte("x"), 300))+"\",\"ack\":true}\n{\"type\":\"event\",\"name\":\"last\",\"ack\":true}"), uint16(100), uint8(40))
	f.Fuzz(func(t *testing.T, data []byte, cut uint16, max uint8) {
		defer fuzzcheck.NoHang(data, cut, max)()
		maxMsg := 32 + int(max)
		var mu sync.Mutex
		var got []protocol.Msg
		path := sockPath(t)
		s, err := Listen(path, func(m protocol.Msg) protocol.Reply {
			if err := fuzzcheck.Msg(m); err != nil {
				t.Errorf("handed on a message that breaks the rules: %v\n%#v", err, m)
			}
			mu.Lock()
			got = append(got, m)
			mu.Unlock()
			return protocol.Reply{OK: true}
		}, Options{MaxMessageBytes: maxMsg, Warn: func(string) {}})
		if err != nil {
			t.Fatal(err)
		}
		served := make(chan error, 1)
		go func() { served <- s.Serve() }()
		defer func() {
			s.Close()
			<-served
		}()
		c, err := net.Dial("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(fuzzcheck.HangAfter))
		a := int(cut) % (len(data) + 1)
		for _, part := range [][]byte{data[:a], data[a:]} {
			if _, err := c.Write(part); err != nil {
				t.Fatalf("write: %v", err)
			}
		}
		c.(*net.UnixConn).CloseWrite()
		replies := 0
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				var rep protocol.Reply
				if jerr := json.Unmarshal(line, &rep); jerr != nil || err != nil {
					t.Fatalf("reply %q: %v %v", line, jerr, err)
				}
				replies++
			}
			if err != nil {
				break
			}
		}

		var want []protocol.Msg
		lines := 0
		for i, line := range bytes.Split(data, []byte("\n")) {
			if i == bytes.Count(data, []byte("\n")) && len(line) == 0 {
				break
			}
			lines++
			if len(line) > maxMsg || len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if m, err := protocol.Parse(line); err == nil {
				m.Syntax = protocol.SyntaxSocket
				want = append(want, m)
			}
		}
		if replies > lines {
			t.Fatalf("%d replies to %d lines", replies, lines)
		}
		s.Close()
		mu.Lock()
		defer mu.Unlock()
		for i := range got {
			got[i].Time = time.Time{}
		}
		for i := range want {
			want[i].Time = time.Time{}
		}
		if len(got) != len(want) || len(got) > 0 && !reflect.DeepEqual(got, want) {
			t.Fatalf("written in two parts at %d (max %d): handed on\n%#v\nwant\n%#v", a, maxMsg, got, want)
		}
	})
}
