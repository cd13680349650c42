package jobtrace

import (
	"context"
	"errors"
	"os/exec"

	"github.com/jobtrace/jobtrace/session"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/supervise"
)

// Result is how a phase or the task ended: the values of the OpenTelemetry
// attribute cicd.pipeline.task.run.result. A phase or task whose result is
// Failure, Errored or TimedOut has an error status.
type Result string

// Results.
const (
	Success   Result = protocol.ResultSuccess
	Failure   Result = protocol.ResultFailure
	Errored   Result = protocol.ResultError
	TimedOut  Result = protocol.ResultTimeout
	Cancelled Result = protocol.ResultCancellation
	Skipped   Result = protocol.ResultSkip
)

// ResultOf is the result of work that returned err: Success for nil,
// TimedOut for a context's deadline, Cancelled for a context's
// cancellation; for a command's *exec.ExitError what `jobtrace run`
// judges by its exit code (Cancelled when a signal killed it), and for a
// command that could not be started because its program was not found or
// could not be run (what Cmd.Start returns then) Errored, as `jobtrace run`
// and `jobtrace exec` judge it (supervise.StartCode); Failure otherwise.
func ResultOf(err error) Result {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return Success
	case errors.Is(err, context.DeadlineExceeded):
		return TimedOut
	case errors.Is(err, context.Canceled):
		return Cancelled
	case errors.As(err, &ee):
		return Result(session.ResultOf(supervise.ExitCode(ee.ProcessState, nil), nil))
	}
	if _, program := supervise.StartCode(err); program {
		return Errored
	}
	return Failure
}

// valid reports whether r is a Result, or "".
func (r Result) valid() bool { return protocol.ValidResult(string(r)) }
