//go:build linux

package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/jobtrace/jobtrace/internal/timingtest"
)

// terminal is a user's terminal: jobtrace is started on its side, pts, as
// a shell starts a command in the foreground; what it shows is read from
// ptm, where the test types.
type terminal struct {
	ptm, pts *os.File
	mu       sync.Mutex
	shown    bytes.Buffer
	read     chan struct{} // closed when ptm has nothing more to read
}

func newTerminal(t *testing.T) *terminal {
	t.Helper()
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	tm := &terminal{ptm: ptm, pts: pts, read: make(chan struct{})}
	go func() {
		defer close(tm.read)
		buf := make([]byte, 4096)
		for {
			n, err := ptm.Read(buf)
			tm.mu.Lock()
			tm.shown.Write(buf[:n])
			tm.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		pts.Close()
		ptm.Close()
		<-tm.read
	})
	return tm
}

func (tm *terminal) text() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.shown.String()
}

// waitFor waits until the terminal shows s, at most timingtest.Patience.
func (tm *terminal) waitFor(t *testing.T, s string) {
	t.Helper()
	deadline := time.Now().Add(timingtest.Patience)
	for !strings.Contains(tm.text(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q; it shows %q", s, tm.text())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func (tm *terminal) mode(t *testing.T) unix.Termios {
	t.Helper()
	m, err := unix.IoctlGetTermios(int(tm.pts.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatal(err)
	}
	return *m
}

// command is jobtrace with args, on the terminal: its stdin, stdout and
// stderr, and its controlling terminal, in whose foreground it runs.
func (tm *terminal) command(t *testing.T, args ...string) *exec.Cmd {
	wd := t.TempDir()
	cmd := exec.Command(bin, args...)
	cmd.Dir = wd
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + wd, "TMPDIR=" + os.TempDir(),
		"JOBTRACE_STATE_DIR=" + filepath.Join(wd, "state"), "TERM=dumb"}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tm.pts, tm.pts, tm.pts
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	return cmd
}

// finish waits for cmd, killing it after timingtest.Patience, and returns
// its exit code.
func finish(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	stuck := time.AfterFunc(timingtest.Patience, func() { cmd.Process.Kill() })
	defer stuck.Stop()
	err := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0
}

// What a user types on jobtrace's terminal reaches the job, whether it asks
// its terminal (/dev/tty: ssh, sudo, git's credential prompts) or reads its
// stdin, and jobtrace's output goes to the terminal or not; the terminal's
// mode is the same after as before.
func TestTypedKeysReachTheJob(t *testing.T) {
	cases := []struct {
		name, script string
		logOut       bool // jobtrace's stdout to a file, not the terminal
		fileIn       bool // jobtrace's stdin from a file, not the terminal
	}{
		{"dev tty of a step", `jobtrace exec step -- sh -c 'printf "ask: "; read a </dev/tty; echo "got:$a"'`, false, false},
		{"dev tty with stdin from a file", `printf 'ask: '; read a </dev/tty; echo "got:$a"; cat`, false, true},
		{"dev tty", `printf 'ask: '; read a </dev/tty; echo "got:$a"`, false, false},
		{"stdin", `printf 'ask: '; read a; echo "got:$a"`, false, false},
		{"dev tty with stdout to a file", `printf 'ask: ' >&2; read a </dev/tty; echo "got:$a"`, true, false},
		{"stdin with stdout to a file", `printf 'ask: ' >&2; read a; echo "got:$a"`, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tm := newTerminal(t)
			before := tm.mode(t)
			cmd := tm.command(t, "run", "--out", filepath.Join(t.TempDir(), "o"), "--", "sh", "-c", c.script)
			log := filepath.Join(t.TempDir(), "log")
			if c.logOut {
				f, err := os.Create(log)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				cmd.Stdout = f
			}
			if c.fileIn {
				in := filepath.Join(t.TempDir(), "in")
				if err := os.WriteFile(in, []byte("from-the-file\n"), 0o600); err != nil {
					t.Fatal(err)
				}
				f, err := os.Open(in)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				cmd.Stdin = f
				cmd.SysProcAttr.Ctty = 1 // stdout is the terminal
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			tm.waitFor(t, "ask: ")
			if _, err := tm.ptm.Write([]byte("s3cret\r")); err != nil {
				t.Fatal(err)
			}
			code := finish(t, cmd)
			var got string
			if c.logOut {
				b, _ := os.ReadFile(log)
				got = string(b)
			} else {
				// What jobtrace wrote before it exited may not have
				// been read from the terminal yet.
				tm.waitFor(t, "got:s3cret")
				if c.fileIn {
					tm.waitFor(t, "from-the-file")
				}
				got = tm.text()
			}
			if c.fileIn && !strings.Contains(got, "from-the-file") {
				t.Errorf("the job's output %q: its stdin was not the file", got)
			}
			if code != 0 || !strings.Contains(got, "got:s3cret") {
				t.Errorf("exit %d; the job's output %q, the terminal %q: the job did not get what was typed", code, got, tm.text())
			}
			if after := tm.mode(t); after != before {
				t.Errorf("the terminal's mode after jobtrace %+v, before %+v", after, before)
			}
		})
	}
}

// ^C typed on the terminal interrupts the job as it would without jobtrace.
func TestControlCTypedReachesTheJob(t *testing.T) {
	tm := newTerminal(t)
	cmd := tm.command(t, "run", "--out", filepath.Join(t.TempDir(), "o"), "--", "sh", "-c",
		`trap 'echo got-int; exit 42' INT; echo ready; while :; do sleep 0.05; done`)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tm.waitFor(t, "ready")
	if _, err := tm.ptm.Write([]byte{3}); err != nil {
		t.Fatal(err)
	}
	if code := finish(t, cmd); code != 42 {
		t.Errorf("exit %d, want the job's 42; the terminal shows %q", code, tm.text())
	}
}

// jobtrace started in the background of its terminal (`jobtrace run … &`
// in a shell with job control) neither reads it nor changes its mode, which
// would stop jobtrace (SIGTTIN, SIGTTOU); the job runs to its end.
func TestInTheBackgroundTheTerminalIsLeftAlone(t *testing.T) {
	tm := newTerminal(t)
	before := tm.mode(t)
	cmd := tm.command(t)
	cmd.Path, cmd.Args = "/bin/sh", []string{"sh", "-m", "-c", `"$0" run --out "$1" -- sh -c 'echo job-ran' & wait $!; echo "exit:$?"`,
		bin, filepath.Join(t.TempDir(), "o")}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if code := finish(t, cmd); code != 0 {
		t.Fatalf("exit %d; the terminal shows %q", code, tm.text())
	}
	tm.waitFor(t, "exit:0")
	tm.waitFor(t, "job-ran")
	if after := tm.mode(t); after != before {
		t.Errorf("the terminal's mode after jobtrace %+v, before %+v", after, before)
	}
}

// Keys typed that the job never reads (a paste larger than its terminal
// holds, which in raw mode keeps it all) do not hold up the end of the run
// once the job has exited.
func TestKeysTheJobNeverReadsDoNotHoldItsEnd(t *testing.T) {
	tm := newTerminal(t)
	before := tm.mode(t)
	cmd := tm.command(t, "run", "--out", filepath.Join(t.TempDir(), "o"), "--", "sh", "-c",
		`stty raw -echo; echo ready; sleep 0.5; stty sane; echo done-sleeping`)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tm.waitFor(t, "ready")
	// Written from a goroutine of its own: once the terminal's buffer is
	// full, the rest waits for a reader that may never come.
	go tm.ptm.Write(bytes.Repeat([]byte("x"), 256<<10))
	if code := finish(t, cmd); code != 0 {
		t.Fatalf("exit %d", code)
	}
	tm.waitFor(t, "done-sleeping")
	if after := tm.mode(t); after != before {
		t.Errorf("the terminal's mode after jobtrace %+v, before %+v", after, before)
	}
}
