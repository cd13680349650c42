package markerdir

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/internal/timingtest"
	"github.com/jobtrace/jobtrace/spans/protocol"
)

func TestMain(m *testing.M) {
	timingtest.VerifyTestMain(m)
}

type recorder struct {
	mu    sync.Mutex
	msgs  []protocol.Msg
	warns []string
}

func (r *recorder) handle(m protocol.Msg) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, m)
}

func (r *recorder) warn(s string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.warns = append(r.warns, s)
}

// take returns the names seen since the last take.
func (r *recorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, m := range r.msgs {
		out = append(out, m.Name)
	}
	r.msgs = nil
	return out
}

func (r *recorder) warnings() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.warns, "\n")
}

func appendFile(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func ev(name string) string { return `{"type":"event","name":"` + name + `"}` + "\n" }

func newReader(t *testing.T, opts Options) (*Reader, *recorder, string) {
	t.Helper()
	dir := t.TempDir()
	rec := &recorder{}
	opts.Warn = rec.warn
	return New(dir, rec.handle, opts), rec, dir
}

func TestFollowFiles(t *testing.T) {
	r, rec, dir := newReader(t, Options{})
	a, b := filepath.Join(dir, "100.jsonl"), filepath.Join(dir, "tool.jsonl")
	appendFile(t, a, ev("a1")+ev("a2"))
	appendFile(t, b, ev("b1"))
	r.poll(false)
	if got := rec.take(); !reflect.DeepEqual(got, []string{"a1", "a2", "b1"}) {
		t.Fatalf("first poll: %v", got)
	}
	r.poll(false)
	if got := rec.take(); got != nil {
		t.Fatalf("unchanged files read again: %v", got)
	}
	// A partial line waits for its newline.
	appendFile(t, a, ev("a3")+`{"type":"event",`)
	r.poll(false)
	if got := rec.take(); !reflect.DeepEqual(got, []string{"a3"}) {
		t.Fatalf("partial: %v", got)
	}
	appendFile(t, a, `"name":"a4"}`+"\n"+`{"type":"event","name":"a5"}`)
	r.poll(false)
	if got := rec.take(); !reflect.DeepEqual(got, []string{"a4"}) {
		t.Fatalf("completed: %v", got)
	}
	// Final takes the last line without its newline, once.
	r.Final()
	r.Final()
	if got := rec.take(); !reflect.DeepEqual(got, []string{"a5"}) {
		t.Fatalf("final: %v", got)
	}
	for _, m := range rec.msgs {
		if m.Syntax != protocol.SyntaxMarkerDir {
			t.Errorf("Syntax %q", m.Syntax)
		}
	}
	if st := r.Stats(); st != (Stats{Files: 2, Messages: 6}) {
		t.Errorf("stats %+v", st)
	}
	if w := rec.warnings(); w != "" {
		t.Errorf("warnings: %s", w)
	}
}

func TestOrderWithinFile(t *testing.T) {
	r, rec, dir := newReader(t, Options{MaxMessageBytes: 100})
	var want []string
	var all strings.Builder
	for i := range 5000 { // many buffer refills
		name := fmt.Sprint(i)
		want = append(want, name)
		all.WriteString(ev(name))
	}
	appendFile(t, filepath.Join(dir, "1.jsonl"), all.String())
	r.poll(false)
	if got := rec.take(); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %d messages, want %d in order", len(got), len(want))
	}
}

func TestIgnoredEntries(t *testing.T) {
	r, rec, dir := newReader(t, Options{MaxFiles: 2})
	appendFile(t, filepath.Join(dir, "notes.txt"), ev("txt"))
	appendFile(t, filepath.Join(dir, "1.jsonl.tmp"), ev("tmp"))
	if err := os.Mkdir(filepath.Join(dir, "d.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "secret.jsonl")
	appendFile(t, outside, ev("secret"))
	symlinks := os.Symlink(outside, filepath.Join(dir, "link.jsonl")) == nil
	appendFile(t, filepath.Join(dir, "1.jsonl"), ev("one"))
	appendFile(t, filepath.Join(dir, "2.jsonl"), ev("two"))
	appendFile(t, filepath.Join(dir, "3.jsonl"), ev("three"))
	for range 3 {
		r.poll(false)
	}
	if got := rec.take(); !reflect.DeepEqual(got, []string{"one", "two"}) {
		t.Fatalf("got %v", got)
	}
	want := uint64(4) // txt, tmp, directory, 3.jsonl over the limit
	if symlinks {
		want++
	}
	if st := r.Stats(); st.IgnoredFiles != want || st.Files != 2 {
		t.Errorf("stats %+v, want %d ignored", st, want)
	}
	w := rec.warnings()
	for _, s := range []string{`"notes.txt": not a .jsonl file`, `"d.jsonl": a directory`, `"3.jsonl": over the limit`} {
		if strings.Count(w, s) != 1 {
			t.Errorf("want one warning with %q in:\n%s", s, w)
		}
	}
	if symlinks && !strings.Contains(w, `"link.jsonl": a symbolic link`) {
		t.Errorf("no warning for the link in:\n%s", w)
	}
	// A file that goes away makes room for a new one; an ignored file
	// stays ignored while it exists.
	os.Remove(filepath.Join(dir, "1.jsonl"))
	appendFile(t, filepath.Join(dir, "3.jsonl"), ev("three again"))
	appendFile(t, filepath.Join(dir, "4.jsonl"), ev("four"))
	r.poll(false)
	if got := rec.take(); !reflect.DeepEqual(got, []string{"four"}) {
		t.Fatalf("after removal: %v", got)
	}
}

func TestBadLines(t *testing.T) {
	r, rec, dir := newReader(t, Options{MaxMessageBytes: 64})
	long := `{"type":"event","name":"` + strings.Repeat("x", 100) + `"}`
	appendFile(t, filepath.Join(dir, "1.jsonl"),
		"not json\n\n"+ev("ok1")+`{"type":"event"}`+"\n"+long+"\n"+ev("ok2")+long[:70])
	r.poll(false)
	appendFile(t, filepath.Join(dir, "1.jsonl"), long[70:]+"\n"+ev("ok3")+long)
	r.poll(false)
	r.Final()
	if got := rec.take(); !reflect.DeepEqual(got, []string{"ok1", "ok2", "ok3"}) {
		t.Fatalf("got %v", got)
	}
	if st := r.Stats(); st.Rejected != 2 || st.TooLong != 3 || st.Messages != 3 {
		t.Errorf("stats %+v", st)
	}
	w := rec.warnings()
	for _, s := range []string{"1.jsonl line 1: marker: not a JSON object", "1.jsonl line 4: marker: event without name", "1.jsonl line 5: longer than 64 bytes"} {
		if !strings.Contains(w, s) {
			t.Errorf("no %q in warnings:\n%s", s, w)
		}
	}
}

// The warning about an over-long line gives its whole size, even when it
// is read in several pieces, and when it never ends.
func TestTooLongWarningGivesTheRealSize(t *testing.T) {
	r, rec, dir := newReader(t, Options{MaxMessageBytes: 1000})
	long := `{"type":"event","name":"` + strings.Repeat("x", 200000) + `"}`
	appendFile(t, filepath.Join(dir, "1.jsonl"), long[:1500])
	r.poll(false)
	appendFile(t, filepath.Join(dir, "1.jsonl"), long[1500:]+"\n"+ev("ok"))
	r.poll(false)
	appendFile(t, filepath.Join(dir, "2.jsonl"), long[:150000])
	r.Final()
	if got := rec.take(); !reflect.DeepEqual(got, []string{"ok"}) {
		t.Errorf("got %v", got)
	}
	if st := r.Stats(); st.TooLong != 2 {
		t.Errorf("stats %+v", st)
	}
	w := rec.warnings()
	for _, s := range []string{
		fmt.Sprintf("1.jsonl line 1: longer than 1000 bytes, dropped: %q… (%d bytes)", long[:80], len(long)),
		fmt.Sprintf("2.jsonl line 1: longer than 1000 bytes, dropped: %q… (150000 bytes)", long[:80]),
	} {
		if !strings.Contains(w, s) {
			t.Errorf("no %q in warnings:\n%s", s, w)
		}
	}
}

func TestWarningsRateLimited(t *testing.T) {
	r, rec, dir := newReader(t, Options{})
	appendFile(t, filepath.Join(dir, "1.jsonl"), strings.Repeat("garbage\n", 1000))
	r.poll(false)
	r.Final()
	if n := len(strings.Split(rec.warnings(), "\n")); n > 10 {
		t.Errorf("%d warning lines for 1000 bad lines", n)
	}
	if !strings.Contains(rec.warnings(), "995 warnings suppressed in total") {
		t.Errorf("warnings:\n%s", rec.warnings())
	}
}

func TestTruncatedAndReplaced(t *testing.T) {
	r, rec, dir := newReader(t, Options{})
	path := filepath.Join(dir, "1.jsonl")
	appendFile(t, path, ev("old1")+ev("old2"))
	r.poll(false)
	rec.take()
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	appendFile(t, path, ev("new"))
	r.poll(false)
	if got := rec.take(); !reflect.DeepEqual(got, []string{"new"}) {
		t.Fatalf("after truncation: %v", got)
	}
	if !strings.Contains(rec.warnings(), "1.jsonl shrank") {
		t.Errorf("warnings: %s", rec.warnings())
	}
	// Rotation: a new, longer file renamed over the old one.
	tmp := filepath.Join(dir, "next.tmp")
	appendFile(t, tmp, ev("r1")+ev("r2")+ev("r3"))
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	r.poll(false)
	if got := rec.take(); !reflect.DeepEqual(got, []string{"r1", "r2", "r3"}) {
		t.Fatalf("after replacement: %v", got)
	}
	if !strings.Contains(rec.warnings(), "1.jsonl was replaced") {
		t.Errorf("warnings: %s", rec.warnings())
	}
}

func TestMissingDir(t *testing.T) {
	rec := &recorder{}
	dir := filepath.Join(t.TempDir(), "later")
	r := New(dir, rec.handle, Options{Warn: rec.warn})
	r.poll(false)
	r.poll(false)
	if n := strings.Count(rec.warnings(), "later"); n != 1 {
		t.Errorf("%d warnings about the missing dir: %s", n, rec.warnings())
	}
	os.Mkdir(dir, 0o700)
	appendFile(t, filepath.Join(dir, "1.jsonl"), ev("x"))
	r.poll(false)
	if got := rec.take(); !reflect.DeepEqual(got, []string{"x"}) {
		t.Fatalf("got %v", got)
	}
}

func TestHandlesBounded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts /proc/self/fd")
	}
	r, _, dir := newReader(t, Options{})
	for i := range 200 {
		appendFile(t, filepath.Join(dir, fmt.Sprintf("%d.jsonl", i)), ev("e"))
	}
	fds := func() int { e, _ := os.ReadDir("/proc/self/fd"); return len(e) }
	before := fds()
	r.poll(false)
	if after := fds(); after > before {
		t.Errorf("%d descriptors open after a poll, %d before", after, before)
	}
	if st := r.Stats(); st.Messages != 200 {
		t.Errorf("stats %+v", st)
	}
}

func TestRun(t *testing.T) {
	r, rec, dir := newReader(t, Options{Interval: 5 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r.Run(ctx); close(done) }()
	appendFile(t, filepath.Join(dir, "1.jsonl"), ev("live"))
	deadline := time.Now().Add(5 * time.Second)
	for r.Stats().Messages == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	appendFile(t, filepath.Join(dir, "1.jsonl"), `{"type":"event","name":"last"}`)
	r.Final()
	if got := rec.take(); !reflect.DeepEqual(got, []string{"live", "last"}) {
		t.Fatalf("got %v", got)
	}
}

// finishes runs f and fails the test when it has not returned within a
// minute.
func finishes(t *testing.T, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatalf("%s still reading after a minute", what)
	}
}

// A file that is one hole of a terabyte (truncate -s 1T), which costs its
// writer nothing and reads as zeros without a newline, is read no further
// than the bound on what is not markers; the files of markers go on. It
// was read to its end: half an hour, the end of the job waiting on Final.
func TestEndlessJunkIsNotReadToItsEnd(t *testing.T) {
	r, rec, dir := newReader(t, Options{})
	f, err := os.Create(filepath.Join(dir, "hole.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	err = f.Truncate(1 << 40)
	f.Close()
	if err != nil {
		t.Skipf("no sparse file of a terabyte here: %v", err)
	}
	appendFile(t, filepath.Join(dir, "ok.jsonl"), ev("before"))
	finishes(t, "a poll", func() { r.poll(false) })
	appendFile(t, filepath.Join(dir, "ok.jsonl"), ev("after"))
	finishes(t, "Final", r.Final)
	if got := rec.take(); !reflect.DeepEqual(got, []string{"before", "after"}) {
		t.Errorf("got %v", got)
	}
	if st := r.Stats(); st.IgnoredFiles != 1 || st.TooLong != 1 {
		t.Errorf("stats %+v", st)
	}
	w := rec.warnings()
	for _, s := range []string{
		`hole.jsonl line 1: longer than 65536 bytes, dropped: "\x00`,
		fmt.Sprintf(`ignoring "hole.jsonl": the marker dir has yielded over %d bytes that are not markers (limit)`, DefaultMaxDroppedBytes),
	} {
		if !strings.Contains(w, s) {
			t.Errorf("no %q in warnings:\n%s", s, w)
		}
	}
}

// Past the bound, only a file that yields more of what is not markers is
// given up: malformed lines count as a line too long does, and a file of
// markers is still read.
func TestDroppedBoundGivesUpOnlyTheFilesOfJunk(t *testing.T) {
	r, rec, dir := newReader(t, Options{MaxDroppedBytes: 1000})
	appendFile(t, filepath.Join(dir, "junk.jsonl"), strings.Repeat("not a marker\n", 50))
	appendFile(t, filepath.Join(dir, "ok.jsonl"), ev("one"))
	r.poll(false)
	appendFile(t, filepath.Join(dir, "junk.jsonl"), strings.Repeat("not a marker\n", 50)+ev("lost"))
	appendFile(t, filepath.Join(dir, "ok.jsonl"), ev("two"))
	r.poll(false)
	r.Final()
	if got := rec.take(); !reflect.DeepEqual(got, []string{"one", "two"}) {
		t.Errorf("got %v", got)
	}
	if st := r.Stats(); st.IgnoredFiles != 1 || st.Rejected > 100 {
		t.Errorf("stats %+v", st)
	}
}

// A writer as fast as the reader (here the handler itself, which appends
// a line for each it is given) cannot keep one read going: it ends at the
// size the file had when it began, and what came after waits for the next.
// It went on for ever, and the end of the job with it.
func TestWriterAsFastAsTheReaderCannotKeepItReading(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "1.jsonl")
	const lines = 3000 // more than the reader reads at once
	n := 0
	r := New(dir, func(protocol.Msg) {
		n++
		if f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0); err == nil {
			f.WriteString(ev("again"))
			f.Close()
		}
	}, Options{MaxMessageBytes: 100})
	appendFile(t, path, strings.Repeat(ev("first"), lines))
	finishes(t, "Final", r.Final)
	if n != lines {
		t.Errorf("%d messages read, want the %d there when the read began", n, lines)
	}
	finishes(t, "Final", r.Final)
	if n != 2*lines {
		t.Errorf("%d messages read, want the %d written during the first read too", n, 2*lines)
	}
}

// A backlog of markers larger than Final can read in FinalTimeout (a
// process writing them faster than they are read) does not hold up the end
// of the job: Final stops at the bound, what it did not read is counted in
// bytes and said, and what it read is every line up to there. It read to
// the end: 55 s after a one-second job whose daemon ran `yes MARKER >>`.
func TestFinalReadsForAtMostFinalTimeout(t *testing.T) {
	dir := t.TempDir()
	const lines = 4000 // 4 s at a millisecond each
	line := ev("e")
	appendFile(t, filepath.Join(dir, "1.jsonl"), strings.Repeat(line, lines))
	var warns []string
	n := 0
	r := New(dir, func(protocol.Msg) { n++; time.Sleep(time.Millisecond) },
		Options{MaxMessageBytes: 100, FinalTimeout: 50 * time.Millisecond, Warn: func(s string) { warns = append(warns, s) }})
	finishes(t, "Final", r.Final)
	// No bound on the wall time here (a busy machine stretches it): the
	// lines take a millisecond each, so a Final that stopped at its bound
	// read fewer than all of them.
	st := r.Stats()
	if n == lines || uint64(n) != st.Messages {
		t.Errorf("%d messages read of %d (stats %d)", n, lines, st.Messages)
	}
	if want := uint64((lines - n) * len(line)); st.UnreadBytes != want {
		t.Errorf("%d bytes unread counted, want %d (%d lines)", st.UnreadBytes, want, lines-n)
	}
	if w := strings.Join(warns, "\n"); !strings.Contains(w, fmt.Sprintf("%d bytes of markers were not read", st.UnreadBytes)) {
		t.Errorf("warnings %q", w)
	}
}

// Run stops a read in progress when its context is done, at a line's end,
// so that the session's end does not wait for it; Final reads on from
// there, every line once, in order.
func TestRunStopsItsReadWhenCancelled(t *testing.T) {
	dir := t.TempDir()
	const lines = 20000 // several reads' worth
	var b strings.Builder
	for i := range lines {
		b.WriteString(ev(fmt.Sprint(i)))
	}
	appendFile(t, filepath.Join(dir, "1.jsonl"), b.String())
	ctx, cancel := context.WithCancel(context.Background())
	var names []string
	r := New(dir, func(m protocol.Msg) { names = append(names, m.Name); cancel() }, Options{MaxMessageBytes: 100})
	finishes(t, "Run", func() { r.Run(ctx) })
	if len(names) == 0 || len(names) >= lines {
		t.Fatalf("Run read %d of %d lines before it stopped", len(names), lines)
	}
	finishes(t, "Final", r.Final)
	if len(names) != lines {
		t.Fatalf("%d lines read in all, want %d", len(names), lines)
	}
	for i, n := range names {
		if n != fmt.Sprint(i) {
			t.Fatalf("line %d read as %q", i, n)
		}
	}
	if st := r.Stats(); st.UnreadBytes != 0 {
		t.Errorf("%d bytes unread", st.UnreadBytes)
	}
}
