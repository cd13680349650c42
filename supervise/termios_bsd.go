//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package supervise

import "golang.org/x/sys/unix"

// The requests that read and set a terminal's mode.
const (
	getTermios = unix.TIOCGETA
	setTermios = unix.TIOCSETA
)
