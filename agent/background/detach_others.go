//go:build !unix

package background

import (
	"os"
	"syscall"
)

// detached: the process is started as it is; a system without setsid(2)
// has no session to leave.
func detached() *syscall.SysProcAttr { return nil }

// redirectStderr leaves standard error as it is.
func redirectStderr(*os.File) {}
