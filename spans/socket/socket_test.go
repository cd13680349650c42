package socket

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/internal/timingtest"
	"github.com/jobtrace/jobtrace/spans/protocol"
)

func TestMain(m *testing.M) {
	timingtest.VerifyTestMain(m)
}

// sockPath returns a short socket path: sun_path holds about 104 bytes on
// some systems, and t.TempDir() names can be long.
func sockPath(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "jt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return filepath.Join(dir, "s")
}

type recorder struct {
	mu    sync.Mutex
	msgs  []protocol.Msg
	warns []string
}

func (r *recorder) handle(m protocol.Msg) protocol.Reply {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, m)
	return protocol.Reply{OK: true, Traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
}

func (r *recorder) warn(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.warns = append(r.warns, s)
}

func (r *recorder) names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, m := range r.msgs {
		out = append(out, m.Name)
	}
	return out
}

// start runs a server and closes it at the end of the test.
func start(t *testing.T, h Handler, opts Options) (*Server, string) {
	t.Helper()
	path := sockPath(t)
	s, err := Listen(path, h, opts)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return s, path
}

func dial(t *testing.T, path string) *Client {
	t.Helper()
	c, err := Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// rawConn is a connection that writes bytes as they are and reads replies.
type rawConn struct {
	net.Conn
	r *bufio.Reader
}

func rawDial(t *testing.T, path string) *rawConn {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{c, bufio.NewReader(c)}
}

func (c *rawConn) reply(t *testing.T) protocol.Reply {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("reading reply: %v", err)
	}
	var r protocol.Reply
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatalf("reply %q: %v", line, err)
	}
	return r
}

func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition not met in 5s")
}

func TestRequestAndSend(t *testing.T) {
	var rec recorder
	s, path := start(t, rec.handle, Options{})
	if runtime.GOOS != "windows" {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("socket mode %v, want 0600", fi.Mode().Perm())
		}
	}
	c := dial(t, path)
	r, err := c.Request(protocol.Msg{Type: protocol.TypeBegin, Name: "compile"})
	if err != nil || !r.OK || r.Traceparent == "" {
		t.Fatalf("Request = %+v, %v", r, err)
	}
	for i := range 100 {
		if err := c.Send(protocol.Msg{Type: protocol.TypeEvent, Name: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	r, err = c.Request(protocol.Msg{Type: protocol.TypeEnd, Name: "compile"})
	if err != nil || !r.OK {
		t.Fatalf("Request = %+v, %v", r, err)
	}
	names := rec.names()
	if len(names) != 102 || names[0] != "compile" || names[1] != "0" || names[100] != "99" {
		t.Fatalf("handler saw %d messages: %v", len(names), names)
	}
	for _, m := range rec.msgs {
		if m.Syntax != protocol.SyntaxSocket {
			t.Fatalf("Syntax = %q", m.Syntax)
		}
	}
	if st := s.Stats(); st.Conns != 1 || st.Messages != 102 {
		t.Errorf("stats %+v", st)
	}
}

func TestMalformed(t *testing.T) {
	var rec recorder
	s, path := start(t, rec.handle, Options{Warn: rec.warn})
	c := rawDial(t, path)
	fmt.Fprint(c, "garbage\n")
	fmt.Fprint(c, "\n   \n") // blank lines are not messages
	fmt.Fprint(c, `{"type":"nope","name":"x","ack":true}`+"\n")
	if r := c.reply(t); r.OK || !strings.Contains(r.Error, `unknown type "nope"`) {
		t.Fatalf("reply %+v", r)
	}
	fmt.Fprint(c, `{"type":"begin","name":"x"`+"\n") // ack unknown: no reply
	for range 20 {
		fmt.Fprint(c, "\x00\xff{{{\n")
	}
	fmt.Fprint(c, `{"type":"begin","name":"ok","ack":true}`+"\n")
	if r := c.reply(t); !r.OK {
		t.Fatalf("reply %+v", r)
	}
	st := s.Stats()
	if st.Rejected != 23 || st.Messages != 1 {
		t.Errorf("stats %+v", st)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.warns) > 10 {
		t.Errorf("%d warnings, want them rate limited: %q", len(rec.warns), rec.warns)
	}
	if !strings.Contains(rec.warns[0], `"garbage"`) {
		t.Errorf("first warning %q does not quote the line", rec.warns[0])
	}
}

func TestTooLong(t *testing.T) {
	var rec recorder
	s, path := start(t, rec.handle, Options{MaxMessageBytes: 100, Warn: rec.warn})
	c := rawDial(t, path)
	long := `{"type":"begin","name":"` + strings.Repeat("x", 300) + `","ack":true}`
	fmt.Fprint(c, long+"\n") // in one write
	for _, chunk := range []string{long[:50], long[50:150], long[150:] + "\n"} {
		fmt.Fprint(c, chunk) // in pieces
		time.Sleep(5 * time.Millisecond)
	}
	fmt.Fprint(c, `{"type":"begin","name":"after","ack":true}`+"\n")
	for range 2 {
		if r := c.reply(t); r.OK || !strings.Contains(r.Error, "longer than 100 bytes") {
			t.Fatalf("reply %+v, want an error", r)
		}
	}
	if r := c.reply(t); !r.OK {
		t.Fatalf("reply %+v", r)
	}
	if st := s.Stats(); st.TooLong != 2 || st.Messages != 1 {
		t.Errorf("stats %+v", st)
	}
	if names := rec.names(); len(names) != 1 || names[0] != "after" {
		t.Errorf("handled %v", names)
	}
}

// The warning about an over-long message gives its whole size, not what
// was read when the bound was passed.
func TestTooLongWarningGivesTheRealSize(t *testing.T) {
	var rec recorder
	_, path := start(t, rec.handle, Options{Warn: rec.warn})
	c := rawDial(t, path)
	long := `{"type":"begin","name":"` + strings.Repeat("a", 100000) + `"}`
	fmt.Fprint(c, long+"\n")
	fmt.Fprint(c, `{"type":"begin","name":"after","ack":true}`+"\n")
	if r := c.reply(t); !r.OK {
		t.Fatalf("reply %+v", r)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	want := fmt.Sprintf("longer than %d bytes dropped", protocol.DefaultMaxMessageBytes)
	size := fmt.Sprintf("(%d bytes)", len(long))
	if len(rec.warns) != 1 || !strings.Contains(rec.warns[0], want) || !strings.Contains(rec.warns[0], size) {
		t.Errorf("warnings %q, want one with %q and %q", rec.warns, want, size)
	}
}

func TestLastLineWithoutNewline(t *testing.T) {
	var rec recorder
	_, path := start(t, rec.handle, Options{})
	c := rawDial(t, path)
	fmt.Fprint(c, `{"type":"event","name":"last"}`)
	c.Conn.(*net.UnixConn).CloseWrite()
	eventually(t, func() bool { return len(rec.names()) == 1 })
}

func TestMaxConns(t *testing.T) {
	var rec recorder
	s, path := start(t, rec.handle, Options{MaxConns: 2, Warn: rec.warn})
	for range 2 {
		c := dial(t, path)
		if _, err := c.Request(protocol.Msg{Type: protocol.TypeEvent, Name: "hi"}); err != nil {
			t.Fatal(err)
		}
	}
	extra := rawDial(t, path)
	extra.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := extra.r.ReadByte(); err == nil {
		t.Fatal("the extra connection got data, want it closed")
	} else if isTimeout(err) {
		t.Fatal("the extra connection was not closed")
	}
	eventually(t, func() bool { return s.Stats().RefusedConns == 1 })
}

func TestSlowHandlerDoesNotBlockOthers(t *testing.T) {
	release := make(chan struct{})
	var blocked atomic.Bool
	h := func(m protocol.Msg) protocol.Reply {
		if m.Name == "block" {
			blocked.Store(true)
			<-release
		}
		return protocol.Reply{OK: true}
	}
	_, path := start(t, h, Options{})
	a := dial(t, path)
	if err := a.Send(protocol.Msg{Type: protocol.TypeEvent, Name: "block"}); err != nil {
		t.Fatal(err)
	}
	eventually(t, blocked.Load)
	b := dial(t, path)
	if r, err := b.Request(protocol.Msg{Type: protocol.TypeEvent, Name: "free"}); err != nil || !r.OK {
		t.Fatalf("Request on a second connection = %+v, %v", r, err)
	}
	close(release)
}

func TestCloseDrains(t *testing.T) {
	var n atomic.Int64
	path := sockPath(t)
	s, err := Listen(path, func(protocol.Msg) protocol.Reply { n.Add(1); return protocol.Reply{} }, Options{})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- s.Serve() }()
	c, err := Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	idle, err := Dial(path) // connected, sends nothing, never closes
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	const total = 2000
	for range total {
		if err := c.Send(protocol.Msg{Type: protocol.TypeEvent, Name: "e"}); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Now()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	// DrainTimeout bounds the wait; the margin is for a loaded test machine.
	timingtest.Within(t, "Close", time.Since(t0), DrainTimeout+time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got := n.Load(); got != total {
		t.Errorf("handled %d of %d messages sent before Close", got, total)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("socket file left behind: %v", err)
	}
	if _, err := Dial(path); err == nil {
		t.Error("Dial after Close succeeded")
	}
	if err := s.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestListenErrors(t *testing.T) {
	if _, err := Listen(filepath.Join(t.TempDir(), "missing", "s"), func(protocol.Msg) protocol.Reply { return protocol.Reply{} }, Options{}); err == nil {
		t.Error("Listen in a missing directory succeeded")
	}
	if _, err := Dial(filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("Dial of a missing socket succeeded")
	}
}

func TestRequestWithoutReply(t *testing.T) {
	path := sockPath(t)
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		bufio.NewReader(c).ReadBytes('\n')
		c.Close() // hang up without a reply
	}()
	c := dial(t, path)
	if _, err := c.Request(protocol.Msg{Type: protocol.TypeEvent, Name: "e"}); err == nil || !strings.Contains(err.Error(), "no reply") {
		t.Fatalf("Request = %v, want a no-reply error", err)
	}
}

// BenchmarkThroughput sends messages through one connection into a no-op
// handler and reports messages per second.
func BenchmarkThroughput(b *testing.B) {
	var n atomic.Int64
	path := filepath.Join(b.TempDir(), "s")
	s, err := Listen(path, func(protocol.Msg) protocol.Reply { n.Add(1); return protocol.Reply{} }, Options{})
	if err != nil {
		b.Fatal(err)
	}
	go s.Serve()
	defer s.Close()
	c, err := Dial(path)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	m := protocol.Msg{Type: protocol.TypeEvent, Name: "cache-miss", Attrs: nil}
	t0 := time.Now()
	b.ResetTimer()
	for range b.N {
		if err := c.Send(m); err != nil {
			b.Fatal(err)
		}
	}
	for n.Load() < int64(b.N) {
		time.Sleep(50 * time.Microsecond)
	}
	b.ReportMetric(float64(b.N)/time.Since(t0).Seconds(), "msgs/s")
}

// BenchmarkRequest measures one acknowledged round trip, what `jobtrace
// phase begin` waits for.
func BenchmarkRequest(b *testing.B) {
	path := filepath.Join(b.TempDir(), "s")
	s, err := Listen(path, func(protocol.Msg) protocol.Reply { return protocol.Reply{OK: true} }, Options{})
	if err != nil {
		b.Fatal(err)
	}
	go s.Serve()
	defer s.Close()
	c, err := Dial(path)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	m := protocol.Msg{Type: protocol.TypeBegin, Name: "compile"}
	for b.Loop() {
		if _, err := c.Request(m); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkServerBatched measures the server alone: the client writes many
// lines per system call, as a busy tool with a buffered writer would.
func BenchmarkServerBatched(b *testing.B) {
	var n atomic.Int64
	path := filepath.Join(b.TempDir(), "s")
	s, err := Listen(path, func(protocol.Msg) protocol.Reply { n.Add(1); return protocol.Reply{} }, Options{})
	if err != nil {
		b.Fatal(err)
	}
	go s.Serve()
	defer s.Close()
	c, err := net.Dial("unix", path)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	const perWrite = 256
	var batch []byte
	for range perWrite {
		batch = protocol.Msg{Type: protocol.TypeEvent, Name: "cache-miss"}.AppendJSON(batch)
	}
	b.SetBytes(int64(len(batch) / perWrite))
	t0 := time.Now()
	b.ResetTimer()
	sent := 0
	for sent < b.N {
		if _, err := c.Write(batch); err != nil {
			b.Fatal(err)
		}
		sent += perWrite
	}
	for n.Load() < int64(sent) {
		time.Sleep(50 * time.Microsecond)
	}
	b.ReportMetric(float64(sent)/time.Since(t0).Seconds(), "msgs/s")
}

// TestCloseReadsConnectionsStillInTheBacklog: a client that connected and
// wrote just before the job ended, not yet accepted, is still read.
func TestCloseReadsConnectionsStillInTheBacklog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sock")
	var got atomic.Int64
	srv, err := Listen(path, func(protocol.Msg) protocol.Reply { got.Add(1); return protocol.Reply{OK: true} }, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c, err := Dial(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Send(protocol.Msg{Type: protocol.TypeEvent, Name: "last"}); err != nil {
		t.Fatal(err)
	}
	c.Close()
	// Serve was never called: the connection is only in the backlog.
	srv.Close()
	if got.Load() != 1 {
		t.Errorf("%d messages handled, want 1", got.Load())
	}
}

// Every line that asked for a reply gets one, malformed or too long alike;
// a line that did not ask gets none.
func TestMalformedAskingForAckGetsAnErrorReply(t *testing.T) {
	var rec recorder
	s, path := start(t, rec.handle, Options{MaxMessageBytes: 200, Warn: rec.warn})
	c := rawDial(t, path)
	asked := []string{
		`{"v":"1","type":"begin","name":"a","ack":true}`,      // bad version type: a syntax error before ack
		`{"type":"begin","name":"a","ack":true`,               // unterminated
		`{"ack" : true, "type":`,                              // ack first, then garbage
		"{\"type\":\"begin\",\"name\":\"\x01\",\"ack\":true}", // control character
		`{"type":"begin","name":"` + strings.Repeat("x", 400) + `","ack":true}`,
		`{"ack":true,"type":"begin","name":"` + strings.Repeat("x", 400) + `"}`,
	}
	notAsked := []string{
		`{"type":"begin","name":"a","attrs":{"k":"\"ack\":true"}`, // escaped inside a string
		`{"type":"begin","name":"a","ack":false,`,
		`{"type":"begin","name":"` + strings.Repeat("x", 400) + `"}`,
	}
	for _, l := range append(asked, notAsked...) {
		// in pieces, so that a long line crosses reads
		for len(l) > 0 {
			n := min(len(l), 37)
			fmt.Fprint(c, l[:n])
			l = l[n:]
			time.Sleep(time.Millisecond)
		}
		fmt.Fprint(c, "\n")
	}
	fmt.Fprint(c, `{"type":"event","name":"last","ack":true}`+"\n")
	for i, l := range asked {
		if r := c.reply(t); r.OK || r.Error == "" {
			t.Errorf("line %d %.60q: reply %+v, want an error", i, l, r)
		}
	}
	if r := c.reply(t); !r.OK {
		t.Errorf("reply to the last message %+v, want ok (a line that did not ask got a reply)", r)
	}
	if st := s.Stats(); st.Messages != 1 || st.Rejected+st.TooLong != uint64(len(asked)+len(notAsked)) {
		t.Errorf("stats %+v", st)
	}
}
