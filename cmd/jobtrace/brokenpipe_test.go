//go:build unix

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// headOne runs argv with its stdout read by a reader that takes one line
// and goes away, as `argv | head -1` does, and its stderr in a buffer, or
// in a pipe whose reader has gone already (closedStderr). It returns the
// exit code as a shell reports it, and stderr.
func headOne(t *testing.T, env []string, closedStderr bool, argv ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	var se bytes.Buffer
	cmd.Stderr = &se
	if closedStderr {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		cmd.Stderr = w
		defer w.Close()
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	bufio.NewReader(out).ReadString('\n')
	out.Close()
	err = cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	ws := cmd.ProcessState.Sys().(syscall.WaitStatus)
	if ws.Signaled() {
		return 128 + int(ws.Signal()), se.String()
	}
	return ws.ExitStatus(), se.String()
}

// TestReaderGoingAwayLeavesTheJobItsFate runs jobs whose stdout reader goes
// away after one line, with and without jobtrace: the exit codes must be
// the same, and jobtrace must live to write its artifacts and clean up.
func TestReaderGoingAwayLeavesTheJobItsFate(t *testing.T) {
	epipe := `trap '' PIPE; i=0; while [ $i -lt 10000000 ]; do echo "line $i" 2>/dev/null || { echo EPIPE-seen >&2; exit 42; }; i=$((i+1)); done; exit 0`
	cases := []struct {
		name   string
		argv   []string
		code   int
		stderr string
	}{
		// The job's pipeline ends in `echo done`: it succeeds.
		{"pipeline", []string{"sh", "-c", "yes | head -c 10000000; echo done >&2"}, 0, "done"},
		// seq dies of SIGPIPE, as it would writing to head.
		{"seq", []string{"seq", "1", "1000000"}, 141, ""},
		// A job that ignores SIGPIPE sees EPIPE and decides for itself.
		{"epipe", []string{"sh", "-c", epipe}, 42, "EPIPE-seen"},
	}
	for _, c := range cases {
		t.Run(c.name+"/exec", func(t *testing.T) {
			// 'jobtrace exec' passes the output through the same way.
			plain, _ := headOne(t, nil, false, c.argv...)
			wd := t.TempDir()
			code, stderr := headOne(t, []string{"JOBTRACE_SOCKET=", "JOBTRACE_OUT=" + filepath.Join(wd, "out")}, false,
				append([]string{bin, "exec", "step", "--"}, c.argv...)...)
			if code != plain {
				t.Errorf("with jobtrace exec: exit code %d, want %d as without it; stderr %q", code, plain, stderr)
			}
		})
		t.Run(c.name, func(t *testing.T) {
			plain, _ := headOne(t, nil, false, c.argv...)
			if plain != c.code {
				t.Fatalf("without jobtrace the job exits with %d, want %d", plain, c.code)
			}
			wd := t.TempDir()
			rt := filepath.Join(wd, "runtime")
			os.Mkdir(rt, 0o700)
			out := filepath.Join(wd, "out")
			code, stderr := headOne(t, []string{"XDG_RUNTIME_DIR=" + rt}, false,
				append([]string{bin, "run", "--out", out, "--"}, c.argv...)...)
			if code != c.code {
				t.Errorf("with jobtrace: exit code %d, want %d as without it; stderr %q", code, c.code, stderr)
			}
			if !strings.Contains(stderr, c.stderr) || !strings.Contains(stderr, "broken pipe") {
				t.Errorf("stderr lacks %q or the broken pipe: %q", c.stderr, stderr)
			}
			spans, _ := spansOf(t, out)
			job := spans[filepath.Base(c.argv[0])]
			if job == nil || intAttr(job, "process.exit.code") != fmt.Sprint(c.code) {
				t.Errorf("job span %v, want one with process.exit.code %d", job, c.code)
			}
			for _, f := range []string{"report.html", "profile.json", "resource-usage.csv"} {
				if _, err := os.Stat(filepath.Join(out, f)); err != nil {
					t.Errorf("artifact missing: %v", err)
				}
			}
			if left, _ := os.ReadDir(rt); len(left) != 0 {
				t.Errorf("private directory left behind: %v", left)
			}
		})
	}
}

// TestClosedStderrDoesNotKillJobtrace gives jobtrace a stderr whose reader
// has gone: its own messages and summary fail to be written, and it must
// go on to write its artifacts and exit with the job's code.
func TestClosedStderrDoesNotKillJobtrace(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	job := `echo out; trap '' PIPE; echo err >&2; exit 5`
	code, _ := headOne(t, nil, true, bin, "run", "--out", out, "--", "sh", "-c", job)
	if code != 5 {
		t.Errorf("exit code %d, want the job's 5", code)
	}
	spans, _ := spansOf(t, out)
	if s := spans["sh"]; s == nil || intAttr(s, "process.exit.code") != "5" {
		t.Errorf("job span %v, want one with process.exit.code 5", s)
	}
}

// TestFullStdoutDropsOutputNotTheJob writes the job's output to /dev/full:
// the job goes on and its result stands; the loss is counted.
func TestFullStdoutDropsOutputNotTheJob(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	out := filepath.Join(t.TempDir(), "out")
	cmd := exec.Command(bin, "run", "--out", out, "--", "sh", "-c", "echo a; echo b >&2; exit 3")
	var se bytes.Buffer
	cmd.Stdout, cmd.Stderr = full, &se
	cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Errorf("exit code %d, want 3; stderr %q", code, se.String())
	}
	if !strings.Contains(se.String(), "no space left on device") || !strings.Contains(se.String(), "2 bytes of the job's output") {
		t.Errorf("stderr does not report the loss: %q", se.String())
	}
	spans, _ := spansOf(t, out)
	if s := spans["sh"]; s == nil || intAttr(s, "jobtrace.dropped.output_bytes") != "2" {
		t.Errorf("job span %v, want jobtrace.dropped.output_bytes 2", s)
	}
}

// intAttr is an integer attribute of s as text ("0" included), or "".
func intAttr(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			if v, ok := kv.Value.Value.(*commonpb.AnyValue_IntValue); ok {
				return fmt.Sprint(v.IntValue)
			}
		}
	}
	return ""
}
