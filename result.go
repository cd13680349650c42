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
// cancellation, and for a command's *exec.ExitError what `jobtrace run`
// judges by its exit code (Cancelled when a signal killed it); Failure
// otherwise.
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
	return Failure
}

// valid reports whether r is a Result, or "".
func (r Result) valid() bool { return protocol.ValidResult(string(r)) }

// or is r, Success when empty.
func (r Result) or() Result {
	if r == "" {
		return Success
	}
	return r
}
