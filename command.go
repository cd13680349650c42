package jobtrace

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"

	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/jobtrace/jobtrace/spans"
	"github.com/jobtrace/jobtrace/supervise"
)

// Run runs cmd, not yet started, to its end as a phase named name, and
// returns what cmd.Run would. The phase ends as `jobtrace exec` ends a
// step (session.CommandEnd): with the command's result (ResultOf its
// error), process.exit.code and, when it failed, the status saying what
// exited with which code or why it could not be started; a command that
// could not be started has the result error and the shell's code (127 not
// found, 126 not executable) and its words. It carries its usage: the
// command and its descendants are followed from its start until it is
// waited for (see the package documentation). cmd runs in the environment
// it would (cmd.Environ) with the task's variables (Env), TRACEPARENT
// naming its phase; its output goes where cmd says, and is scanned for
// phase markers on the way, through a pipe even when cmd's output is a
// file. Its cancellation is cmd's own (exec.CommandContext). cmd runs
// whatever happens to the phase: a phase the Task cannot record is
// reported to the error handler.
func (t *Task) Run(name string, cmd *exec.Cmd) error {
	pctx, began := t.begin(context.Background(), name, semconv.ProcessExecutableName(filepath.Base(cmd.Path)))
	live := !t.isStopped()
	if live {
		env := t.s.JobEnv(cmd.Environ())
		if began {
			env = spans.MergeEnv(env, spans.InjectEnv(pctx), "TRACEPARENT", "TRACESTATE")
		}
		cmd.Env = env
		t.tapOutput(cmd)
	}
	err := cmd.Start()
	if err == nil {
		if live {
			t.report(t.s.CommandStarted(cmd.Process.Pid))
		}
		err = cmd.Wait()
		t.s.CommandExited(cmd.ProcessState)
	}
	if began {
		code := supervise.ExitCode(cmd.ProcessState, err)
		var startErr error
		if cmd.ProcessState == nil {
			startErr = err
		}
		t.report(t.s.EndCommand(name, commandName(cmd), code, startErr))
	}
	return err
}

// commandName names cmd as `jobtrace exec` names its command, by its
// argv[0]: its Path when it has no arguments, as os/exec runs it.
func commandName(cmd *exec.Cmd) string {
	if len(cmd.Args) > 0 {
		return cmd.Args[0]
	}
	return cmd.Path
}

// tapOutput makes cmd's stdout and stderr also go to the task's marker
// scanners.
func (t *Task) tapOutput(cmd *exec.Cmd) {
	if cmd.Stdout != nil && sameWriter(cmd.Stdout, cmd.Stderr) {
		// One writer for both, as os/exec does for a writer given as
		// both: it is written from one goroutine at a time.
		w := &tapped{t: t, dst: cmd.Stdout, tap: t.stdout}
		cmd.Stdout, cmd.Stderr = w, w
		return
	}
	cmd.Stdout = &tapped{t: t, dst: cmd.Stdout, tap: t.stdout}
	cmd.Stderr = &tapped{t: t, dst: cmd.Stderr, tap: t.stderr}
}

// sameWriter reports whether a and b are the same writer, as os/exec
// tells: == when their type can be compared.
func sameWriter(a, b io.Writer) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}

// tapped is a command's output: written to dst (nowhere when nil), then
// scanned for markers unless the Task is stopped. The scanners of a Task
// are written to by one command's goroutine at a time.
type tapped struct {
	t   *Task
	dst io.Writer
	tap io.Writer
}

func (w *tapped) Write(p []byte) (int, error) {
	n := len(p)
	if w.dst != nil {
		var err error
		if n, err = w.dst.Write(p); err != nil {
			return n, err
		}
		if n != len(p) {
			return n, io.ErrShortWrite
		}
	}
	w.t.mu.Lock()
	defer w.t.mu.Unlock()
	if !w.t.stopped {
		w.tap.Write(p)
	}
	return n, nil
}
