//go:build unix

package supervise

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// flakyWriter fails its first write with ENOSPC, as a full disk would, and
// takes every later one.
type flakyWriter struct {
	mu     sync.Mutex
	writes int
	got    strings.Builder
	first  chan struct{}
}

func (w *flakyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes++
	if w.writes == 1 {
		close(w.first)
		return 0, &os.PathError{Op: "write", Path: "/dev/stdout", Err: syscall.ENOSPC}
	}
	return w.got.Write(p)
}

func TestFullDiskDropsOutputButNotTheJob(t *testing.T) {
	out, errf := files(t)
	dir := t.TempDir()
	goOn := filepath.Join(dir, "go-on")
	w := &flakyWriter{first: make(chan struct{})}
	var warned []string
	j, err := Start(Options{
		Args:   []string{"sh", "-c", `echo one; while [ ! -e "$1" ]; do sleep 0.01; done; echo two`, "sh", goOn},
		Stdout: out, Stderr: errf, WriteStdout: w,
		Warn: func(s string) { warned = append(warned, s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	<-w.first
	os.WriteFile(goOn, nil, 0o600)
	if code := j.Wait(); code != 0 {
		t.Errorf("exit code %d, want 0: the job must not see the destination's failure", code)
	}
	if got := w.got.String(); got != "two\n" {
		t.Errorf("written after the failure: %q, want %q", got, "two\n")
	}
	if j.OutputLost() != 4 {
		t.Errorf("OutputLost = %d, want 4", j.OutputLost())
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "no space left on device") {
		t.Errorf("warnings %q, want one about the full disk", warned)
	}
}

func TestNonBlockingStdoutLosesNothing(t *testing.T) {
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	r := os.NewFile(uintptr(fds[0]), "r")
	w := os.NewFile(uintptr(fds[1]), "w") // blocking now: Go does not poll it
	defer r.Close()
	_, errf := files(t)
	dir := t.TempDir()
	started, goOn := filepath.Join(dir, "started"), filepath.Join(dir, "go-on")
	const size = 3 << 20
	j, err := Start(Options{
		Args: []string{"sh", "-c", `touch "$1"; while [ ! -e "$2" ]; do sleep 0.01; done; head -c ` +
			"3145728" + ` /dev/zero`, "sh", started, goOn},
		Stdout: w, Stderr: errf,
	})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { _, err := os.Stat(started); return err == nil })
	// Another process sharing the file makes it non-blocking, as Node.js
	// does to its standard files.
	if err := syscall.SetNonblock(fds[1], true); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(goOn, nil, 0o600)
	n := make(chan int64, 1)
	go func() {
		var total int64
		buf := make([]byte, 4096)
		for {
			k, err := r.Read(buf)
			total += int64(k)
			if err != nil {
				n <- total
				return
			}
		}
	}()
	code := j.Wait()
	w.Close()
	if got := <-n; got != size || code != 0 {
		t.Errorf("%d bytes passed through, exit code %d; want %d, 0", got, code, size)
	}
}

func TestHungUpTerminalIsHungUpForTheJob(t *testing.T) {
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer pts.Close()
	_, errf := files(t)
	dir := t.TempDir()
	started, goOn := filepath.Join(dir, "started"), filepath.Join(dir, "go-on")
	// The job writes until a write fails; with a terminal that stays up it
	// would end with 0 after its 200,000 lines.
	script := `trap '' HUP; touch "$1"; while [ ! -e "$2" ]; do sleep 0.01; done
i=0; while [ $i -lt 200000 ]; do echo line 2>/dev/null || { echo write-failed >&2; exit 7; }; i=$((i+1)); done; exit 0`
	j, err := Start(Options{Args: []string{"sh", "-c", script, "sh", started, goOn}, Stdout: pts, Stderr: errf})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { _, err := os.Stat(started); return err == nil })
	ptm.Close() // jobtrace's terminal hangs up
	os.WriteFile(goOn, nil, 0o600)
	code := j.Wait()
	got, _ := os.ReadFile(errf.Name())
	if code != 7 || !strings.Contains(string(got), "write-failed") {
		t.Errorf("exit code %d, stderr %q; want 7 after a failed write", code, got)
	}
}

func TestReaderGone(t *testing.T) {
	wrap := func(e error) error { return &os.PathError{Op: "write", Path: "/dev/stdout", Err: e} }
	cases := []struct {
		err      error
		terminal bool
		want     bool
	}{
		{wrap(syscall.EPIPE), false, true},
		{wrap(syscall.ECONNRESET), false, true},
		{wrap(syscall.EIO), true, true},
		{wrap(syscall.EIO), false, false},
		{wrap(syscall.ENOSPC), false, false},
		{wrap(syscall.ENOSPC), true, false},
		{io.ErrShortWrite, false, false},
	}
	for _, c := range cases {
		if got := readerGone(c.err, c.terminal); got != c.want {
			t.Errorf("readerGone(%v, terminal %v) = %v", c.err, c.terminal, got)
		}
	}
}

// heldTap is a Tap that holds its first chunk until released, as a scanner
// stuck behind a slow tracker would.
type heldTap struct {
	release chan struct{}
	once    sync.Once
	mu      sync.Mutex
	seen    int64
	lines   int64
	skipped int64
	skLines int64
}

func (h *heldTap) WriteRead(p []byte, _ time.Time) {
	h.once.Do(func() { <-h.release })
	h.mu.Lock()
	defer h.mu.Unlock()
	h.seen += int64(len(p))
	h.lines += int64(bytes.Count(p, []byte{'\n'}))
}

func (h *heldTap) Skip(n, lines int64, _ bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.skipped += n
	h.skLines += lines
}

func (h *heldTap) Write(p []byte) (int, error) { h.WriteRead(p, time.Now()); return len(p), nil }

func (h *heldTap) Stop() {}

// TestScannerNeverHoldsTheOutput holds the scanner while the job prints
// 20 MiB: the job must finish printing all the same, and what the scanner
// could not see is counted, to the byte and the line.
func TestScannerNeverHoldsTheOutput(t *testing.T) {
	out, errf := files(t)
	printed := filepath.Join(t.TempDir(), "printed")
	tap := &heldTap{release: make(chan struct{})}
	const lines = 20 << 20 / 8 // "1234567\n"
	j, err := Start(Options{
		Args:   []string{"sh", "-c", `yes 1234567 | head -n ` + strconv.Itoa(lines) + `; touch "$1"`, "sh", printed},
		Stdout: out, Stderr: errf, OutStdout: tap,
	})
	if err != nil {
		t.Fatal(err)
	}
	// With the scanner held, the job must still get all its output out.
	waitFor(t, func() bool { _, err := os.Stat(printed); return err == nil })
	close(tap.release)
	if code := j.Wait(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if fi, _ := out.Stat(); fi.Size() != lines*8 {
		t.Errorf("%d bytes passed through, want %d", fi.Size(), lines*8)
	}
	if tap.seen+tap.skipped != lines*8 || tap.lines+tap.skLines != lines || tap.skipped == 0 {
		t.Errorf("scanned %d bytes (%d lines), skipped %d (%d lines); want %d bytes and %d lines in all, some skipped",
			tap.seen, tap.lines, tap.skipped, tap.skLines, lines*8, lines)
	}
	// Held, it saw what waited for it (TapQueueBytes); once let go,
	// at most what was still in the pipe then.
	if tap.skipped < lines*8/2 {
		t.Errorf("the scanner saw %d bytes: it was waited for", tap.seen)
	}
}

// TestClosedSocketStdoutGivesTheJobABrokenPipe writes the job's output to
// a socket whose peer has gone, as a log shipper that dies would leave it.
func TestClosedSocketStdoutGivesTheJobABrokenPipe(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	syscall.Close(fds[1]) // the reader goes away
	w := os.NewFile(uintptr(fds[0]), "socket")
	defer w.Close()
	_, errf := files(t)
	var warned []string
	script := `trap '' PIPE; i=0; while [ $i -lt 10000000 ]; do echo line 2>/dev/null || { echo EPIPE-seen >&2; exit 42; }; i=$((i+1)); done; exit 0`
	code := runJob(t, Options{Args: []string{"sh", "-c", script}, Stdout: w, Stderr: errf,
		Warn: func(s string) { warned = append(warned, s) }})
	got, _ := os.ReadFile(errf.Name())
	if code != 42 || !strings.Contains(string(got), "EPIPE-seen") {
		t.Errorf("exit code %d, stderr %q; want 42 after EPIPE", code, got)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "broken pipe") {
		t.Errorf("warnings %q", warned)
	}
}

// stuckTap scans nothing until it is stopped, as a scanner behind a
// tracker that is held up would.
type stuckTap struct {
	heldTap
	stopOnce sync.Once
	stopped  chan struct{}
}

func (s *stuckTap) WriteRead(p []byte, read time.Time) {
	<-s.stopped
	s.Skip(int64(len(p)), int64(bytes.Count(p, []byte{'\n'})), p[len(p)-1] == '\n')
}

func (s *stuckTap) Stop() { s.stopOnce.Do(func() { close(s.stopped) }) }

// TestEndOfJobWaitsForTheScannerAtMostTapDrainTimeout: a scanner that does
// not catch up holds the end of the job TapDrainTimeout at most, and what it
// had left is counted.
func TestEndOfJobWaitsForTheScannerAtMostTapDrainTimeout(t *testing.T) {
	out, errf := files(t)
	tap := &stuckTap{stopped: make(chan struct{})}
	const size = 3 << 20
	j, err := Start(Options{Args: []string{"head", "-c", strconv.Itoa(size), "/dev/zero"}, Stdout: out, Stderr: errf, OutStdout: tap})
	if err != nil {
		t.Fatal(err)
	}
	returned := make(chan int, 1)
	go func() { returned <- j.Wait() }()
	select {
	case code := <-returned:
		if code != 0 {
			t.Errorf("exit code %d", code)
		}
	case <-time.After(TapDrainTimeout + 20*time.Second):
		t.Fatal("the end of the job waited for a scanner that does not catch up")
	}
	tap.mu.Lock()
	defer tap.mu.Unlock()
	if tap.skipped != size {
		t.Errorf("%d bytes counted as not scanned, want %d", tap.skipped, size)
	}
}

// TestBurstOfSmallWritesIsScanned holds the scanner while the job makes
// 2,000 small writes (16 KB in all): each is its own read, and every one of
// them must wait for the scanner and be scanned, not skipped, since what
// the scanner may be behind is counted in bytes, not in reads.
func TestBurstOfSmallWritesIsScanned(t *testing.T) {
	out, errf := files(t)
	printed := filepath.Join(t.TempDir(), "printed")
	tap := &heldTap{release: make(chan struct{})}
	const lines = 2000
	j, err := Start(Options{
		Args:   []string{"sh", "-c", `i=0; while [ $i -lt ` + strconv.Itoa(lines) + ` ]; do echo 1234567; i=$((i+1)); done; touch "$1"`, "sh", printed},
		Stdout: out, Stderr: errf, OutStdout: tap,
	})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { _, err := os.Stat(printed); return err == nil })
	close(tap.release)
	if code := j.Wait(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if tap.seen != lines*8 || tap.lines != lines || tap.skipped != 0 {
		t.Errorf("scanned %d bytes (%d lines), skipped %d (%d lines); want all %d lines scanned",
			tap.seen, tap.lines, tap.skipped, tap.skLines, lines)
	}
}

// TestTapQueueGrowsWithTheOutput checks that a stream's queue holds what
// waits in it, not its bound: a job that prints a line costs kilobytes, and
// a full queue is at most TapQueueBytes.
func TestTapQueueGrowsWithTheOutput(t *testing.T) {
	q := newTapQueue()
	st := &stream{skip: &countingTap{}}
	line := []byte("BEGIN_PHASE build\n")
	q.put(line, time.Now(), st)
	if c := cap(q.b); c > 64<<10 {
		t.Errorf("one line queued: the queue holds %d bytes", c)
	}
	chunk := bytes.Repeat([]byte("x"), 100<<10)
	for range 2 * TapQueueBytes / len(chunk) {
		q.put(chunk, time.Now(), st)
		if c := cap(q.b); c > TapQueueBytes {
			t.Fatalf("the queue grew to %d bytes, above TapQueueBytes (%d)", c, TapQueueBytes)
		}
	}
	if got, want := len(q.b)+int(q.after.n), len(line)+2*TapQueueBytes/len(chunk)*len(chunk); got != want {
		t.Errorf("queued and skipped: %d bytes, want %d", got, want)
	}
	if q.after.n == 0 {
		t.Errorf("a full queue skipped nothing")
	}
}

type countingTap struct{ n int64 }

func (c *countingTap) WriteRead(p []byte, _ time.Time) { c.n += int64(len(p)) }
func (c *countingTap) Skip(n, _ int64, _ bool)         { c.n += n }
func (c *countingTap) Stop()                           {}
