//go:build linux

package guard

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

// Start prepares the guard. The guard process itself is started by Arm,
// and its pipe with it: until then what it is told is kept in memory. The
// running binary must call Main when its only argument is Arg, before
// anything else (cmd/jobtrace does it in an init function).
func Start(o Options) *Guard {
	g := &Guard{opts: o}
	g.send(msgOwner, strconv.Itoa(os.Getpid()))
	return g
}

// spawn starts the guard process.
func (g *Guard) spawn() {
	g.spawning.Lock()
	defer g.spawning.Unlock()
	// Every process of the job starts after jobtrace: the guard never
	// touches an older one.
	if self, ok := readStat(procRoot, os.Getpid()); ok {
		g.send(msgSince, strconv.FormatUint(self.start, 10))
	}
	r, err := g.openPipe()
	if err != nil {
		g.failed(fmt.Errorf("guard: %w", err))
		return
	}
	if r == nil {
		return
	}
	defer r.Close()
	cmd := &exec.Cmd{
		Path:        "/proc/self/exe",
		Args:        []string{"jobtrace", Arg},
		Env:         []string{},
		ExtraFiles:  []*os.File{r},
		SysProcAttr: &syscall.SysProcAttr{Setsid: true},
	}
	if g.opts.Stderr != nil {
		cmd.Stderr = g.opts.Stderr
	}
	if err := cmd.Start(); err != nil {
		g.failed(fmt.Errorf("guard: %w", err))
		return
	}
	g.proc = cmd.Process
	g.pid.Store(int64(cmd.Process.Pid))
}
