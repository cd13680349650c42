//go:build unix

package supervise

import (
	"bytes"
	"crypto/rand"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"go.uber.org/goleak"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/internal/timingtest"
)

// files returns two temporary files to stand for jobtrace's stdout and
// stderr.
func files(t *testing.T) (*os.File, *os.File) {
	t.Helper()
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	errf, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { out.Close(); errf.Close() })
	return out, errf
}

func runJob(t *testing.T, o Options) int {
	t.Helper()
	j, err := Start(o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	return j.Wait()
}

func TestPassthroughIsByteExact(t *testing.T) {
	payload := make([]byte, 3<<20+17) // binary, no trailing newline
	rand.Read(payload)
	src := filepath.Join(t.TempDir(), "payload")
	if err := os.WriteFile(src, payload, 0o600); err != nil {
		t.Fatal(err)
	}
	out, errf := files(t)
	var tapOut, tapErr bytes.Buffer
	code := runJob(t, Options{
		Args:   []string{"sh", "-c", `cat "$1"; cat "$1" >&2`, "sh", src},
		Stdout: out, Stderr: errf, OutStdout: &tapOut, OutStderr: &tapErr,
	})
	if code != 0 {
		t.Fatalf("exit code %d", code)
	}
	for name, f := range map[string]*os.File{"stdout": out, "stderr": errf} {
		got, _ := os.ReadFile(f.Name())
		if !bytes.Equal(got, payload) {
			t.Errorf("%s: %d bytes differ from the %d written", name, len(got), len(payload))
		}
	}
	if !bytes.Equal(tapOut.Bytes(), payload) || !bytes.Equal(tapErr.Bytes(), payload) {
		t.Errorf("the scanners did not see the same bytes")
	}
}

func TestSameFileKeepsInterleaving(t *testing.T) {
	out, _ := files(t)
	code := runJob(t, Options{
		Args:   []string{"sh", "-c", "echo a; echo b >&2; echo c; echo d >&2"},
		Stdout: out, Stderr: out,
	})
	got, _ := os.ReadFile(out.Name())
	if code != 0 || string(got) != "a\nb\nc\nd\n" {
		t.Errorf("code %d, output %q", code, got)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "not-executable")
	os.WriteFile(notExec, []byte("#!/bin/sh\necho hi\n"), 0o644)
	cases := []struct {
		args      []string
		code      int
		startCode int
		msg       string
	}{
		{args: []string{"sh", "-c", "exit 7"}, code: 7},
		{args: []string{"sh", "-c", "exit 0"}, code: 0},
		{args: []string{"sh", "-c", "kill -TERM $$"}, code: 128 + 15},
		{args: []string{"sh", "-c", "kill -KILL $$"}, code: 128 + 9},
		{args: []string{"no-such-command-jobtrace"}, startCode: 127, msg: "command not found"},
		{args: []string{filepath.Join(dir, "missing")}, startCode: 127, msg: "no such file"},
		{args: []string{notExec}, startCode: 126, msg: "permission denied"},
		{args: []string{dir}, startCode: 126},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			out, errf := files(t)
			j, err := Start(Options{Args: c.args, Stdout: out, Stderr: errf})
			if c.startCode != 0 {
				var se *StartError
				if !errors.As(err, &se) || se.Code != c.startCode || !strings.Contains(se.Error(), c.msg) {
					t.Fatalf("err = %v, want StartError %d containing %q", err, c.startCode, c.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := j.Wait(); got != c.code {
				t.Errorf("exit code %d, want %d", got, c.code)
			}
		})
	}
}

func TestSignalIsForwardedToTheGroup(t *testing.T) {
	out, errf := files(t)
	// The shell traps TERM; its child sleep is in the same group, so both
	// get the signal and the job ends at once with the trap's code.
	j, err := Start(Options{Args: []string{"sh", "-c", `trap 'exit 42' TERM; echo ready; sleep 30 & wait`}, Stdout: out, Stderr: errf})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { b, _ := os.ReadFile(out.Name()); return strings.Contains(string(b), "ready") })
	sigs := make(chan os.Signal, 1)
	sigs <- syscall.SIGTERM
	start := time.Now()
	code := j.Supervise(sigs, 10*time.Second, NewLogger(io.Discard))
	if code != 42 {
		t.Errorf("exit code %d, want 42", code)
	}
	timingtest.Within(t, "from the signal to the job's end", time.Since(start), 5*time.Second)
}

func TestGracePeriodEndsInSIGKILL(t *testing.T) {
	out, errf := files(t)
	j, err := Start(Options{Args: []string{"sh", "-c", `trap '' TERM; echo ready; while :; do sleep 0.05; done`}, Stdout: out, Stderr: errf})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { b, _ := os.ReadFile(out.Name()); return strings.Contains(string(b), "ready") })
	sigs := make(chan os.Signal, 1)
	sigs <- syscall.SIGTERM
	var log bytes.Buffer
	code := j.Supervise(sigs, 200*time.Millisecond, NewLogger(&log))
	if code != 128+9 {
		t.Errorf("exit code %d, want 137", code)
	}
	if !strings.Contains(log.String(), "grace period") {
		t.Errorf("no message about the grace period: %q", log.String())
	}
}

func TestTerminalStdoutGivesTheJobATerminal(t *testing.T) {
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptm.Close()
	defer pts.Close()
	got := make(chan string, 1)
	go func() { b, _ := io.ReadAll(io.LimitReader(ptm, 64)); got <- string(b) }()
	_, errf := files(t)
	code := runJob(t, Options{Args: []string{"sh", "-c", `if [ -t 1 ]; then echo TTY-YES; else echo TTY-NO; fi`}, Stdout: pts, Stderr: errf})
	if code != 0 {
		t.Fatalf("exit code %d", code)
	}
	pts.Close()
	select {
	case s := <-got:
		if !strings.Contains(s, "TTY-YES") {
			t.Errorf("job saw %q, want a terminal", s)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no output on the terminal")
	}
}

func TestGateKeepsMessagesOutOfLines(t *testing.T) {
	var b bytes.Buffer
	g := NewGate(&b)
	g.Write([]byte("partial "))
	g.message([]byte("jobtrace: hello\n"))
	g.Write([]byte("line\nnext"))
	g.message([]byte("jobtrace: bye\n"))
	g.Finish()
	want := "partial line\njobtrace: hello\nnext\njobtrace: bye\n"
	if b.String() != want {
		t.Errorf("got %q, want %q", b.String(), want)
	}
}

// TestHelperJobtrace is not a test: TestOrphanDiesWithJobtrace runs the test
// binary as a stand-in for jobtrace, which starts a long job (or the one
// JOBTRACE_TEST_JOB names) and reports its pid.
func TestHelperJobtrace(t *testing.T) {
	if os.Getenv("JOBTRACE_TEST_HELPER") != "1" {
		t.Skip("helper process")
	}
	args := []string{"sleep", "60"}
	if job := os.Getenv("JOBTRACE_TEST_JOB"); job != "" {
		args = []string{job}
	}
	j, err := Start(Options{Args: args, Stdout: os.Stdout, Stderr: os.Stderr})
	if err != nil {
		os.Exit(3)
	}
	os.Stdout.WriteString("pid " + strconv.Itoa(j.Pid()) + "\n")
	j.Wait()
	os.Exit(0)
}

func TestOrphanDiesWithJobtrace(t *testing.T) {
	if _, err := os.Stat("/proc/self"); err != nil {
		t.Skip("needs /proc")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperJobtrace$")
	cmd.Env = append(os.Environ(), "JOBTRACE_TEST_HELPER=1")
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := io.ReadAtLeast(stdout, buf, 5)
	line := strings.TrimSpace(string(buf[:n]))
	pid, err := strconv.Atoi(strings.TrimPrefix(line, "pid "))
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("helper said %q", line)
	}
	cmd.Process.Kill() // SIGKILL: jobtrace gets no chance to clean up
	cmd.Wait()
	waitFor(t, func() bool {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		// Gone, or a zombie waiting for init to reap it.
		return err != nil || strings.Contains(string(b), ") Z ")
	})
}

// Starting the job creates one process, the job: no other process is
// forked on the way (os.StartProcess forks one the first time it is used,
// to check that pidfds work, and waits for it to exit). The test binary
// stands for jobtrace (TestHelperJobtrace), run under strace.
func TestStartForksOnlyTheJob(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("needs strace")
	}
	trace := filepath.Join(t.TempDir(), "trace")
	cmd := exec.Command(strace, "-f", "-qq", "-e", "trace=clone,clone3,fork,vfork", "-o", trace,
		os.Args[0], "-test.run=^TestHelperJobtrace$")
	cmd.Env = append(os.Environ(), "JOBTRACE_TEST_HELPER=1", "JOBTRACE_TEST_JOB=true")
	if out, err := cmd.CombinedOutput(); err != nil {
		if bytes.Contains(out, []byte("strace:")) {
			t.Skipf("strace cannot trace here: %s", out)
		}
		t.Fatalf("helper: %v\n%s", err, out)
	}
	b, err := os.ReadFile(trace)
	if err != nil {
		t.Fatal(err)
	}
	var forks []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, "resumed>") || strings.Contains(l, "CLONE_THREAD") {
			continue // a thread of the Go runtime, or the end of a call already counted
		}
		if strings.Contains(l, "clone(") || strings.Contains(l, "clone3(") || strings.Contains(l, "fork(") {
			forks = append(forks, l)
		}
	}
	if len(forks) != 1 {
		t.Errorf("%d processes created to start one job, want 1:\n%s", len(forks), strings.Join(forks, "\n"))
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timingtest.Patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %v", timingtest.Patience)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestOutputHeldByLeftoverProcessesDoesNotHoldTheJob(t *testing.T) {
	out, errf := files(t)
	var warned []string
	var tap bytes.Buffer
	start := time.Now()
	// The leftover prints long after PipeDrainTimeout, however loaded the
	// machine, and is killed at the end of the test.
	j, err := Start(Options{
		Args:   []string{"sh", "-c", "echo before; (sleep 300; echo late) & echo main-done"},
		Stdout: out, Stderr: errf, OutStdout: &tap,
		Warn: func(s string) { warned = append(warned, s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Kill(-j.Pid(), syscall.SIGKILL)
	code := j.Wait()
	if code != 0 {
		t.Errorf("code %d", code)
	}
	timingtest.Within(t, "the job's end", time.Since(start), PipeDrainTimeout+2*time.Second)
	if len(warned) != 1 || !strings.Contains(warned[0], "left behind") {
		t.Errorf("warnings %q", warned)
	}
	got, _ := os.ReadFile(out.Name())
	if string(got) != "before\nmain-done\n" || tap.String() != "before\nmain-done\n" {
		t.Errorf("output %q, tap %q", got, tap.String())
	}
}

// slowTap is a scanner that takes its time: delay a write, 30 ms when
// zero.
type slowTap struct {
	delay time.Duration
	mu    sync.Mutex
	buf   bytes.Buffer
}

// lagging is a slowTap's delay that outlasts waitFor's polling, so that a
// test seeing the job's marker file still finds the tap behind unless
// SyncOutput waited for it.
const lagging = 300 * time.Millisecond

func (s *slowTap) Write(p []byte) (int, error) {
	d := s.delay
	if d == 0 {
		d = 30 * time.Millisecond
	}
	time.Sleep(d)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *slowTap) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func TestSyncOutputWaitsForWhatTheJobPrintedBefore(t *testing.T) {
	out, errf := files(t)
	marker := filepath.Join(t.TempDir(), "printed")
	tap := &slowTap{delay: lagging}
	j, err := Start(Options{
		Args:   []string{"sh", "-c", `echo one; echo two; touch "$1"; sleep 1`, "sh", marker},
		Stdout: out, Stderr: errf, OutStdout: tap,
	})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { _, err := os.Stat(marker); return err == nil })
	j.SyncOutput(timingtest.Patience)
	if got := tap.String(); got != "one\ntwo\n" {
		t.Errorf("after SyncOutput the tap has seen %q", got)
	}
	j.Kill()
	j.Wait()
}

// A job that cannot be started once its pseudo-terminal is open leaves no
// goroutine behind: neither the copy of its output nor the SIGWINCH
// watcher, which Start stops and waits for before it returns.
func TestFailedStartLeavesNoGoroutine(t *testing.T) {
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptm.Close()
	defer pts.Close()
	bad := filepath.Join(t.TempDir(), "not-a-program")
	if err := os.WriteFile(bad, []byte("\x7fELF\x00\x00\x00\x00"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, errf := files(t)
	ignore := goleak.IgnoreCurrent()
	_, err = Start(Options{Args: []string{bad}, Stdout: pts, Stderr: errf})
	var se *StartError
	if !errors.As(err, &se) || se.Code != ExitNotExecutable {
		t.Fatalf("Start: %v, want a StartError of code %d", err, ExitNotExecutable)
	}
	goleak.VerifyNone(t, ignore)
}

// The job's environment is the one exec.Cmd gives a command: the last of a
// variable set twice, jobtrace's own (with PWD set to the job's directory)
// when none is given, and none at all with a variable holding a NUL.
func TestEnvironmentIsExecCmds(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		env  []string
	}{
		{"set twice", []string{"A=1", "B=2", "A=3", "NOVALUE"}},
		{"none given", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			out, errf := files(t)
			j, err := Start(Options{Args: []string{"env"}, Env: c.env, Dir: dir, Stdout: out, Stderr: errf})
			if err != nil {
				t.Fatal(err)
			}
			if code := j.Wait(); code != 0 {
				t.Fatalf("env exited with %d", code)
			}
			got, _ := os.ReadFile(out.Name())
			cmd := exec.Command("env")
			cmd.Env, cmd.Dir = c.env, dir
			want, err := cmd.Output()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want) {
				t.Errorf("the job's environment:\n%s\nexec.Cmd's:\n%s", got, want)
			}
		})
	}
	out, errf := files(t)
	_, err := Start(Options{Args: []string{"env"}, Env: []string{"A=1\x00B=2"}, Stdout: out, Stderr: errf})
	var se *StartError
	if !errors.As(err, &se) || se.Code != ExitNotExecutable || !strings.Contains(err.Error(), "NUL") {
		t.Errorf("Start with a NUL in the environment: %v, want a StartError of code %d about the NUL", err, ExitNotExecutable)
	}
}

// OnExit gets the resources the system reported for the job when it was
// reaped, which count its CPU time and its memory.
func TestOnExitGetsTheJobsUsage(t *testing.T) {
	out, errf := files(t)
	var got []hostmetrics.ExitUsage
	j, err := Start(Options{Args: []string{"sh", "-c", `i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done`},
		Stdout: out, Stderr: errf, OnExit: func(u hostmetrics.ExitUsage) { got = append(got, u) }})
	if err != nil {
		t.Fatal(err)
	}
	if code := j.Wait(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	if len(got) != 1 {
		t.Fatalf("OnExit called %d times, want once", len(got))
	}
	if u := got[0]; u.User+u.System <= 0 || u.MaxRSS == 0 {
		t.Errorf("usage %+v: want the job's CPU time and memory", u)
	}
}
