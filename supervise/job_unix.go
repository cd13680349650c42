//go:build unix

package supervise

import (
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/creack/pty"
	"golang.org/x/term"
)

// ForwardedSignals returns the signals jobtrace passes on to the job's
// process group.
func ForwardedSignals() []os.Signal {
	return []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT}
}

// SurviveBrokenOutput keeps jobtrace alive when the reader of its stdout or
// stderr goes away. By default the Go runtime kills a program whose write
// to fd 1 or 2 fails with EPIPE by raising SIGPIPE, as a C program would
// die: jobtrace would die with the job's output in flight, its artifacts
// unwritten and its private directory left behind. Once SIGPIPE is
// notified, those writes return EPIPE instead, which jobtrace handles (the
// job is given the broken pipe). Notify rather than Ignore: an ignored
// signal would be ignored in the job too, whose own writes must get SIGPIPE
// as they would have without jobtrace. The notification is never stopped:
// jobtrace's last messages, written after the job, need it as well.
func SurviveBrokenOutput() {
	sigpipeOnce.Do(func() { signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) })
}

var sigpipeOnce sync.Once

type platformJob struct {
	ptm   *os.File
	winch chan os.Signal
	// watched is closed when the goroutine that follows the size of
	// jobtrace's terminal has ended.
	watched chan struct{}
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// openPTY makes a pseudo-terminal of the size of jobtrace's own terminal,
// starts forwarding its output, and returns the job's side.
func (j *Job) openPTY() (*os.File, error) {
	ptm, pts, err := pty.Open()
	if err != nil {
		return nil, err
	}
	_ = pty.InheritSize(j.opts.Stdout, ptm)
	j.plat.ptm = ptm
	j.plat.winch = make(chan os.Signal, 1)
	j.plat.watched = make(chan struct{})
	signal.Notify(j.plat.winch, syscall.SIGWINCH)
	go func(c chan os.Signal, out *os.File) {
		defer close(j.plat.watched)
		for range c {
			_ = pty.InheritSize(out, ptm)
		}
	}(j.plat.winch, j.opts.Stdout)
	j.closers = append(j.closers, pts)
	j.readers = append(j.readers, ptm)
	st := j.newStream(ptm, j.opts.OutStdout)
	name := "stdout"
	if isTerminal(j.opts.Stderr) {
		name = "stdout and stderr"
	}
	j.copies.Add(1)
	go j.copy(name, ptm, j.outW(), st, true)
	return pts, nil
}

// close stops following the size of jobtrace's terminal, and waits for the
// goroutine that did.
func (p *platformJob) close() {
	if p.winch != nil {
		signal.Stop(p.winch)
		close(p.winch)
		<-p.watched
		p.winch = nil
	}
}

// sysProcAttr puts the job in a session and process group of its own, so
// signals reach all of it, and makes the pseudo-terminal (if any) its
// controlling terminal.
func (j *Job) sysProcAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setsid: true}
	if j.plat.ptm != nil {
		a.Setctty = true
		a.Ctty = 1 // the job's stdout is the terminal
	}
	setParentDeathSignal(a)
	return a
}

// Signal sends sig to the job's process group.
func (j *Job) Signal(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return j.cmd.Process.Signal(sig)
	}
	return syscall.Kill(-j.cmd.Process.Pid, s)
}

// Kill sends SIGKILL to the job's process group.
func (j *Job) Kill() error { return syscall.Kill(-j.cmd.Process.Pid, syscall.SIGKILL) }
