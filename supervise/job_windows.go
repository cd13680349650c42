package supervise

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/term"
)

// ForwardedSignals returns the signals jobtrace passes on to the job.
func ForwardedSignals() []os.Signal { return []os.Signal{os.Interrupt} }

// SurviveBrokenOutput has nothing to do on windows, which has no SIGPIPE:
// a write to a closed pipe returns an error.
func SurviveBrokenOutput() {}

type platformJob struct{}

func (platformJob) close() {}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

func (j *Job) openPTY() (*os.File, error) {
	return nil, errors.New("pseudo-terminals are not supported on windows")
}

func (j *Job) start() error {
	j.cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
	return j.cmd.Start()
}

// Signal stops the job: windows cannot deliver other signals to a process.
func (j *Job) Signal(os.Signal) error { return j.cmd.Process.Kill() }

// Kill stops the job.
func (j *Job) Kill() error { return j.cmd.Process.Kill() }
