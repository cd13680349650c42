//go:build unix

package supervise

import (
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/jobtrace/jobtrace/hostmetrics"
)

// ForwardedSignals returns the signals jobtrace passes on to the job's
// process group: SIGTERM, SIGQUIT, and SIGINT and SIGHUP unless jobtrace
// was started with them ignored (by nohup, or by a shell for a command it
// runs in the background with &). Those stay ignored, in jobtrace and in
// the job, which inherits them so, as it would without jobtrace: were they
// notified, jobtrace would pass them on, and the Go runtime would start
// the job with their default action, which ends it. The runtime keeps only
// these two as it found them (os/signal); SIGTERM, SIGQUIT and SIGPIPE
// ignored at the start get its handler all the same, and the job their
// default action, as most programs give their children.
func ForwardedSignals() []os.Signal { return forwarded }

// forwarded is ForwardedSignals, taken before anything is notified: once a
// signal is, signal.Ignored no longer says that it was ignored. Never
// empty, for signal.Notify of none would take every signal.
var forwarded = append([]os.Signal{syscall.SIGTERM, syscall.SIGQUIT},
	notIgnored(syscall.SIGINT, syscall.SIGHUP)...)

// notIgnored returns the signals of sigs that are not ignored.
func notIgnored(sigs ...os.Signal) []os.Signal {
	var out []os.Signal
	for _, s := range sigs {
		if !signal.Ignored(s) {
			out = append(out, s)
		}
	}
	return out
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

// raise ends jobtrace by sig's default action, or with exit code 128 + its
// number where jobtrace was started with it ignored.
func raise(sig os.Signal) {
	n, ok := sig.(syscall.Signal)
	if !ok {
		os.Exit(1)
	}
	signal.Reset(sig)
	_ = syscall.Kill(syscall.Getpid(), n)
	time.Sleep(100 * time.Millisecond)
	os.Exit(ExitSignalBase + int(n))
}

type platformJob struct {
	ptm *os.File
	// ctty is the job's descriptor that is its pseudo-terminal, made its
	// controlling terminal: 1 (stdout), or 0 (stdin) for a terminal only
	// typed on.
	ctty  int
	keys  *keyboard // jobtrace's terminal, passed on to ptm; nil if not
	winch chan os.Signal
	// watched is closed when the goroutine that follows the size of
	// jobtrace's terminal has ended.
	watched chan struct{}
}

func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// openPTY makes a pseudo-terminal of the size of jobtrace's own terminal,
// starts forwarding its output, and what is typed on jobtrace's terminal
// to it (passKeyboard), and returns the job's side.
func (j *Job) openPTY() (*os.File, error) {
	ptm, pts, err := openPollablePTY()
	if err != nil {
		return nil, err
	}
	j.plat.ptm, j.plat.ctty = ptm, 1
	j.followSize(j.opts.Stdout)
	j.closers = append(j.closers, pts)
	j.readers = append(j.readers, ptm)
	st := j.newStream(ptm, j.opts.OutStdout)
	name := "stdout"
	if isTerminal(j.opts.Stderr) {
		name = "stdout and stderr"
	}
	j.copies.Add(1)
	go j.copy(name, ptm, j.outW(), st, true)
	if k := j.passKeyboard(ptm); k != nil && isControllingTerminal(j.opts.Stdin) {
		j.stdin = pts
	}
	return pts, nil
}

// openInputPTY gives the job a pseudo-terminal as its stdin and controlling
// terminal when jobtrace's stdin is its controlling terminal and its stdout
// is not a terminal (`jobtrace run -- JOB > log`): what is typed is passed
// on to it, and what it shows (echo, prompts on /dev/tty) is written to
// jobtrace's terminal. Where that cannot be done, the job reads jobtrace's
// stdin itself, with no controlling terminal.
func (j *Job) openInputPTY() {
	if j.plat.ptm != nil || j.opts.Direct {
		return
	}
	if !isControllingTerminal(j.opts.Stdin) {
		return
	}
	ptm, pts, err := openPollablePTY()
	if err != nil {
		return
	}
	k := j.passKeyboard(ptm)
	if k == nil {
		ptm.Close()
		pts.Close()
		return
	}
	j.plat.ptm, j.plat.ctty = ptm, 0
	j.followSize(k.tty)
	j.stdin = pts
	j.closers = append(j.closers, pts)
	j.readers = append(j.readers, ptm)
	j.copies.Add(1)
	go j.copy("terminal", ptm, k.tty, nil, true)
}

// passKeyboard passes what is typed on jobtrace's controlling terminal to
// ptm while the job runs (keyboard), and returns that terminal; nil where
// it cannot be.
func (j *Job) passKeyboard(ptm *os.File) *keyboard {
	k := openKeyboard()
	if k == nil {
		return nil
	}
	if !k.forward(ptm) {
		k.stop(ptm)
		k.close()
		return nil
	}
	j.plat.keys = k
	return k
}

// followSize gives the pseudo-terminal the size of term, now and whenever
// it changes.
func (j *Job) followSize(term *os.File) {
	ptm := j.plat.ptm
	copySize(term, ptm)
	j.plat.winch = make(chan os.Signal, 1)
	j.plat.watched = make(chan struct{})
	signal.Notify(j.plat.winch, syscall.SIGWINCH)
	go func(c chan os.Signal) {
		defer close(j.plat.watched)
		for range c {
			copySize(term, ptm)
		}
	}(j.plat.winch)
}

// openPollablePTY opens a pseudo-terminal whose side jobtrace holds is
// read and written through the runtime's poller, where a deadline or
// Close ends a read or write in progress: pty.Open leaves it in blocking
// mode, in which a write the job never reads would wait for ever.
func openPollablePTY() (ptm, pts *os.File, err error) {
	m, pts, err := pty.Open()
	if err != nil {
		return nil, nil, err
	}
	fd, err := unix.FcntlInt(m.Fd(), unix.F_DUPFD_CLOEXEC, 0)
	if err == nil {
		err = unix.SetNonblock(fd, true)
		if err != nil {
			unix.Close(fd)
		}
	}
	m.Close()
	if err != nil {
		pts.Close()
		return nil, nil, err
	}
	return os.NewFile(uintptr(fd), m.Name()), pts, nil
}

// copySize gives the terminal to the size of the terminal from, without
// putting either file in blocking mode (as File.Fd would).
func copySize(from, to *os.File) {
	var ws *unix.Winsize
	control(from, func(fd int) { ws, _ = unix.IoctlGetWinsize(fd, unix.TIOCGWINSZ) })
	if ws != nil {
		control(to, func(fd int) { _ = unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, ws) })
	}
}

// control calls f with f's descriptor, as File.SyscallConn's Control does.
func control(file *os.File, f func(fd int)) {
	if rc, err := file.SyscallConn(); err == nil {
		_ = rc.Control(func(fd uintptr) { f(int(fd)) })
	}
}

// jobEnded sets jobtrace's terminal back as it found it, once the job has
// ended: what is typed from then on is the shell's.
func (p *platformJob) jobEnded() {
	if p.keys != nil {
		p.keys.stop(p.ptm)
	}
}

// close stops following the size of jobtrace's terminal, and waits for the
// goroutine that did; sets the terminal back and closes it.
func (p *platformJob) close() {
	if p.winch != nil {
		signal.Stop(p.winch)
		close(p.winch)
		<-p.watched
		p.winch = nil
	}
	if p.keys != nil {
		p.keys.stop(p.ptm)
		p.keys.close()
		p.keys = nil
	}
}

// sysProcAttr puts the job in a session and process group of its own, so
// signals reach all of it, and makes the pseudo-terminal (if any) its
// controlling terminal.
func (j *Job) sysProcAttr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setsid: true}
	if j.plat.ptm != nil {
		a.Setctty = true
		a.Ctty = j.plat.ctty
	}
	setParentDeathSignal(a)
	return a
}

// start starts the job from the calling goroutine's thread, as
// exec.Cmd.Start would with the same program, arguments, environment,
// directory, files and attributes, but through syscall.StartProcess:
// os.StartProcess first checks, once per process on Linux, whether pidfds
// work, by forking a child that exits at once and waiting for it; the job
// would wait for that process creation, and needs no pidfd: it is waited
// for by its pid (wait) and signalled through its process group.
func (j *Job) start() error {
	env, err := environ(j.opts.Env, j.opts.Dir)
	if err != nil {
		return err
	}
	// Fd puts a file in blocking mode, as os.StartProcess does; a nil
	// Stdin is a closed stdin, as it is for exec.Cmd given a nil *os.File.
	attr := &syscall.ProcAttr{Dir: j.opts.Dir, Env: env,
		Files: []uintptr{j.stdinFile().Fd(), j.stdout.Fd(), j.stderr.Fd()}}
	j.pid, err = j.startProcess(attr)
	return err
}

// environ is the job's environment as exec.Cmd.Start makes it from env
// and dir (Cmd.Environ: the last of a variable set twice; jobtrace's own
// environment, with PWD set to dir, when env is nil), refusing, as Start
// does, a variable that holds a NUL.
func environ(env []string, dir string) ([]string, error) {
	if slices.ContainsFunc(env, func(kv string) bool { return strings.IndexByte(kv, 0) >= 0 }) {
		return nil, errors.New("exec: environment variable contains NUL")
	}
	return (&exec.Cmd{Env: env, Dir: dir}).Environ(), nil
}

// forkExec starts the job with attr and sys. Its error is the one
// exec.Cmd.Start gives.
func (j *Job) forkExec(attr *syscall.ProcAttr, sys *syscall.SysProcAttr) (int, error) {
	attr.Sys = sys
	pid, _, err := syscall.StartProcess(j.path, j.opts.Args, attr)
	if err != nil {
		return 0, &os.PathError{Op: "fork/exec", Path: j.path, Err: err}
	}
	return pid, nil
}

// wait reaps the job, and returns its exit code as a shell reports it
// and the resources wait4 reported for it: what exec.Cmd.Wait would have
// put in its ProcessState.
func (j *Job) wait() (int, hostmetrics.ExitUsage) {
	var ws syscall.WaitStatus
	var ru syscall.Rusage
	for {
		_, err := syscall.Wait4(j.pid, &ws, 0, &ru)
		if err == nil {
			return exitCode(ws), hostmetrics.ExitUsageOfRusage(&ru)
		}
		if err != syscall.EINTR {
			return ExitCode(nil, err), hostmetrics.ExitUsage{}
		}
	}
}

// Signal sends sig to the job's process group.
func (j *Job) Signal(sig os.Signal) error {
	s, ok := sig.(syscall.Signal)
	if !ok {
		return errors.New("supervise: unsupported signal type")
	}
	return syscall.Kill(-j.pid, s)
}

// Kill sends SIGKILL to the job's process group.
func (j *Job) Kill() error { return syscall.Kill(-j.pid, syscall.SIGKILL) }
