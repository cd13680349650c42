package supervise

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"strings"
)

// StartError is a job that could not be started; Code is the exit status a
// shell would give (126 or 127).
type StartError struct {
	Code int
	Err  error
}

func (e *StartError) Error() string { return e.Err.Error() }
func (e *StartError) Unwrap() error { return e.Err }

// StartCode is the one rule for the exit code of a command that could not
// be started because of err, whoever started it (Start, Run, Replace, or
// os/exec's Cmd.Start in the Go API's Task.Run): the shell's, 127 when the
// program was not found (not in PATH, no such file, or a script whose
// interpreter is missing), 126 when it was found but could not be run
// (permission denied, not an executable, found in the current directory
// by a relative PATH entry, or its exec failed otherwise). program reports
// whether err says so of the program; for another error (jobtrace's own
// output could not be set up, a context done before the start) the code
// is 1 and program false.
func StartCode(err error) (code int, program bool) {
	if se := StartErrorOf(err); se != nil {
		return se.Code, true
	}
	return 1, false
}

// StartErrorOf is the StartError err is or wraps, or the one of what
// os/exec's Cmd.Start returns for a program it could not run, which says
// why in a shell's words; nil for any other error.
func StartErrorOf(err error) *StartError {
	var (
		se *StartError
		ee *exec.Error
		pe *fs.PathError
	)
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return se
	case errors.As(err, &ee):
		return lookPathFailed(ee.Name, ee.Err)
	case errors.As(err, &pe) && pe.Op == "fork/exec":
		return execFailed(pe.Path, pe)
	}
	return nil
}

// lookPathFailed is the StartError of a program name that exec.LookPath
// did not find (err), in the shell's words.
func lookPathFailed(name string, err error) *StartError {
	switch {
	case errors.Is(err, exec.ErrNotFound):
		if strings.ContainsRune(name, os.PathSeparator) {
			return &StartError{ExitNotFound, fmt.Errorf("%s: no such file or directory", name)}
		}
		return &StartError{ExitNotFound, fmt.Errorf("%s: command not found", name)}
	case errors.Is(err, fs.ErrNotExist):
		return &StartError{ExitNotFound, fmt.Errorf("%s: no such file or directory", name)}
	case errors.Is(err, fs.ErrPermission):
		return &StartError{ExitNotExecutable, fmt.Errorf("%s: permission denied", name)}
	}
	return &StartError{ExitNotExecutable, fmt.Errorf("%s: %v", name, err)}
}

// execFailed is the StartError of a program found as name whose exec
// failed with err: not found (a script's interpreter missing) or not
// executable, as a shell says.
func execFailed(name string, err error) *StartError {
	code := ExitNotExecutable
	if errors.Is(err, fs.ErrNotExist) {
		code = ExitNotFound
	}
	return &StartError{code, fmt.Errorf("%s: %w", name, unwrapExec(err))}
}

func unwrapExec(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
