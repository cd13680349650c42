//go:build unix

package background

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// detached makes the agent the leader of a session of its own, so that
// the end of the step's shell, its terminal or its process group's signals
// do not reach it.
func detached() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

// redirectStderr makes f the process's standard error, so that what the
// Go runtime writes there (a panic) lands in the agent's log.
func redirectStderr(f *os.File) { _ = unix.Dup2(int(f.Fd()), 2) }
