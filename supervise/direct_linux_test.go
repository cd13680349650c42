package supervise

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
)

// TestDirectGivesTheJobTheFilesThemselves: with Direct, the job's stdout
// and stderr are jobtrace's own files (the same open file, not a pipe to a
// copy), and the writers of the output are not used.
func TestDirectGivesTheJobTheFilesThemselves(t *testing.T) {
	out, errf := files(t)
	var tap tapRecorder
	code := runJob(t, Options{
		Args:   []string{"sh", "-c", `echo out; echo err >&2; [ /proc/self/fd/1 -ef "$0" ] && [ /proc/self/fd/2 -ef "$1" ]`, out.Name(), errf.Name()},
		Stdout: out, Stderr: errf, OutStdout: &tap, WriteStdout: &tap, Direct: true,
	})
	if code != 0 {
		t.Errorf("exit %d: the job's stdout and stderr are not jobtrace's files", code)
	}
	gotOut, _ := os.ReadFile(out.Name())
	gotErr, _ := os.ReadFile(errf.Name())
	if string(gotOut) != "out\n" || string(gotErr) != "err\n" {
		t.Errorf("stdout %q, stderr %q", gotOut, gotErr)
	}
	if tap.n != 0 {
		t.Errorf("the writers got %d bytes", tap.n)
	}
}

type tapRecorder struct{ n int }

func (r *tapRecorder) Write(p []byte) (int, error) { r.n += len(p); return len(p), nil }

func TestRetryDirect(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{fmt.Errorf("output: %w", syscall.EMFILE), true},
		{errors.New("output: stdout and stderr are required"), true},
		{&StartError{ExitNotExecutable, fmt.Errorf("sh: %w", syscall.EMFILE)}, true},
		{&StartError{ExitNotExecutable, fmt.Errorf("sh: %w", syscall.ENFILE)}, true},
		{&StartError{ExitNotExecutable, fmt.Errorf("sh: %w", syscall.EAGAIN)}, true},
		{&StartError{ExitNotExecutable, fmt.Errorf("sh: %w", syscall.ENOMEM)}, true},
		{&StartError{ExitNotFound, errors.New("make: command not found")}, false},
		{&StartError{ExitNotExecutable, fmt.Errorf("./x: %w", syscall.EACCES)}, false},
		{&StartError{ExitNotExecutable, fmt.Errorf("./x: %w", syscall.ENOEXEC)}, false},
	} {
		if got := RetryDirect(tc.err); got != tc.want {
			t.Errorf("RetryDirect(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestStartErrorKeepsItsCause: the cause of a failed exec is wrapped, so
// that RetryDirect can tell a lack of descriptors from a program that
// cannot run.
func TestStartErrorKeepsItsCause(t *testing.T) {
	dir := t.TempDir()
	p := dir + "/notexec"
	if err := os.WriteFile(p, []byte("\x00\x01binary"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, errf := files(t)
	_, err := Start(Options{Args: []string{p}, Stdout: out, Stderr: errf})
	if !errors.Is(err, syscall.ENOEXEC) {
		t.Fatalf("Start of a file that is not a program: %v, want ENOEXEC in its chain", err)
	}
}

// TestSpareIsHeldAndFreed: HoldSpare takes SpareFDs descriptors, closed on
// exec, and Free gives them back.
func TestSpareIsHeldAndFreed(t *testing.T) {
	before := openFDs(t)
	s := HoldSpare()
	if got := openFDs(t) - before; got != SpareFDs {
		t.Errorf("HoldSpare holds %d descriptors, want %d", got, SpareFDs)
	}
	for _, fd := range s.fds {
		flags, err := fcntlGetfd(fd)
		if err != nil || flags&syscall.FD_CLOEXEC == 0 {
			t.Errorf("descriptor %d is not closed on exec (%v)", fd, err)
		}
	}
	s.Free()
	s.Free()
	if got := openFDs(t); got != before {
		t.Errorf("%d descriptors open after Free, %d before HoldSpare", got, before)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip("no /proc/self/fd:", err)
	}
	return len(ents) - 1 // the directory ReadDir had open
}

func fcntlGetfd(fd int) (int, error) {
	r, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFD, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}
