//go:build unix

package jobtrace_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/goleak"

	"github.com/jobtrace/jobtrace"
	"github.com/jobtrace/jobtrace/internal/spooltest"
	"github.com/jobtrace/jobtrace/session"
	"github.com/jobtrace/jobtrace/supervise"
)

// A command Run cannot start ends its phase as `jobtrace run` and
// `jobtrace exec` end theirs: the shell's exit code (127 not found, 126
// not executable) and the result error, which ResultOf gives its error
// too.
func TestRunOfACommandThatCannotStart(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	notExec := filepath.Join(dir, "not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	task, err := jobtrace.Start(context.Background(), jobtrace.WithOut(filepath.Join(dir, "out")),
		jobtrace.WithInterval(0), jobtrace.WithLog(&strings.Builder{}))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]string{
		"not found":      {"no-such-command-jobtrace"},
		"no such file":   {filepath.Join(dir, "missing")},
		"not executable": {notExec},
	}
	for name, args := range cases {
		err := task.Run(name, exec.Command(args[0], args[1:]...))
		if err == nil {
			t.Fatalf("%s: Run started %s", name, args[0])
		}
		if r := jobtrace.ResultOf(err); r != jobtrace.Errored {
			t.Errorf("%s: ResultOf(%v) = %s, want error", name, err, r)
		}
	}
	a, err := task.Stop(context.Background(), jobtrace.Success)
	if err != nil {
		t.Fatal(err)
	}
	got := spooltest.Read(t, a.Spans)
	for name, args := range cases {
		// What the command line gives for the same command.
		_, cliErr := supervise.Start(supervise.Options{Args: args, Stdout: os.Stdout, Stderr: os.Stderr})
		var se *supervise.StartError
		if !errors.As(cliErr, &se) {
			t.Fatalf("%s: supervise.Start: %v", name, cliErr)
		}
		attrs := got[name].Attrs
		if attrs["process.exit.code"] != int64(se.Code) {
			t.Errorf("%s: exit code %v, want the command line's %d", name, attrs["process.exit.code"], se.Code)
		}
		if r, want := attrs["cicd.pipeline.task.run.result"], session.ResultOf(se.Code, cliErr); r != want {
			t.Errorf("%s: result %v, want the command line's %s", name, r, want)
		}
		// `jobtrace exec`'s status: why the command line could not
		// start it.
		if s := got[name]; s.Status != ptrace.StatusCodeError || s.StatusMessage != cliErr.Error() {
			t.Errorf("%s: status %v %q, want the command line's %q", name, s.Status, s.StatusMessage, cliErr.Error())
		}
	}
}

// A command's phase ends with the status `jobtrace exec` gives its step
// (cmd/jobtrace's TestExecStatusIsTheSameInsideAndOutsideARun): what
// exited with which code, or why it could not be started, in a shell's
// words.
func TestRunStatusIsExecs(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := t.TempDir()
	task, err := jobtrace.Start(context.Background(), jobtrace.WithOut(filepath.Join(dir, "out")),
		jobtrace.WithInterval(0), jobtrace.WithLog(&strings.Builder{}))
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		args []string
		want string
	}{
		"exit 2":    {[]string{"sh", "-c", "exit 2"}, "sh exited with code 2"},
		"not found": {[]string{"no-such-command-jobtrace"}, "no-such-command-jobtrace: command not found"},
	}
	for name, c := range cases {
		if err := task.Run(name, exec.Command(c.args[0], c.args[1:]...)); err == nil {
			t.Fatalf("%s: Run returned no error", name)
		}
	}
	a, err := task.Stop(context.Background(), jobtrace.Success)
	if err != nil {
		t.Fatal(err)
	}
	got := spooltest.Read(t, a.Spans)
	for name, c := range cases {
		if s := got[name]; s.Status != ptrace.StatusCodeError || s.StatusMessage != c.want {
			t.Errorf("%s: status %v %q, want %q", name, s.Status, s.StatusMessage, c.want)
		}
	}
}
