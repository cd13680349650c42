package supervise

import (
	"errors"
	"os"
	"os/exec"
	"syscall"

	"golang.org/x/term"

	"github.com/jobtrace/jobtrace/hostmetrics"
)

// ForwardedSignals returns the signals jobtrace passes on to the job.
func ForwardedSignals() []os.Signal { return []os.Signal{os.Interrupt} }

// exitControlC is STATUS_CONTROL_C_EXIT, what a Windows program interrupted
// by Ctrl+C exits with.
const exitControlC = 0xC000013A

// raise ends jobtrace as an interrupted Windows program ends.
func raise(os.Signal) { os.Exit(exitControlC) }

// SurviveBrokenOutput has nothing to do on windows, which has no SIGPIPE:
// a write to a closed pipe returns an error.
func SurviveBrokenOutput() {}

type platformJob struct {
	cmd *exec.Cmd
}

func (platformJob) close() {}

func (platformJob) jobEnded() {}

// openInputPTY does nothing on windows, which has no pseudo-terminals.
func (j *Job) openInputPTY() {}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

func (j *Job) openPTY() (*os.File, error) {
	return nil, errors.New("pseudo-terminals are not supported on windows")
}

func (j *Job) start() error {
	cmd := &exec.Cmd{Path: j.path, Args: j.opts.Args, Env: j.opts.Env, Dir: j.opts.Dir,
		Stdin: j.stdinFile(), Stdout: j.stdout, Stderr: j.stderr,
		SysProcAttr: &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}}
	if err := cmd.Start(); err != nil {
		return err
	}
	j.plat.cmd, j.pid = cmd, cmd.Process.Pid
	return nil
}

// wait waits for the job, and returns its exit code and the resources
// the system reported for it.
func (j *Job) wait() (int, hostmetrics.ExitUsage) {
	err := j.plat.cmd.Wait()
	ps := j.plat.cmd.ProcessState
	return ExitCode(ps, err), hostmetrics.ExitUsageOf(ps)
}

// Signal stops the job: windows cannot deliver other signals to a process.
func (j *Job) Signal(os.Signal) error { return j.plat.cmd.Process.Kill() }

// Kill stops the job.
func (j *Job) Kill() error { return j.plat.cmd.Process.Kill() }
