//go:build linux

package guard

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// Start starts the guard process in the background: Wait waits for it.
// The running binary must call Main when its only argument is Arg, before
// anything else (cmd/jobtrace does it in an init function).
func Start(o Options) *Guard {
	g := &Guard{spawned: make(chan struct{})}
	r, w, err := os.Pipe()
	if err != nil {
		g.err = fmt.Errorf("guard: %w", err)
		close(g.spawned)
		return g
	}
	g.w = w
	go func() {
		defer close(g.spawned)
		defer r.Close()
		cmd := &exec.Cmd{
			Path:        "/proc/self/exe",
			Args:        []string{"jobtrace", Arg},
			Env:         []string{},
			Stderr:      o.Stderr,
			ExtraFiles:  []*os.File{r},
			SysProcAttr: &syscall.SysProcAttr{Setsid: true},
		}
		if o.Stderr == nil {
			cmd.Stderr = nil
		}
		if err := cmd.Start(); err != nil {
			g.err = fmt.Errorf("guard: %w", err)
			g.mu.Lock()
			g.w.Close()
			g.w = nil
			g.mu.Unlock()
			return
		}
		g.proc = cmd.Process
		g.pid.Store(int64(cmd.Process.Pid))
	}()
	return g
}
