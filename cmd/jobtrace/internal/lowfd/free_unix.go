//go:build unix

package lowfd

import (
	"os"
	"syscall"
)

// Free returns how many more file descriptors the process can open, up to
// upTo: it opens that many and closes them again, with bare system calls
// that take nothing of the Go runtime's (no poller, no timer). When it
// cannot tell (no /dev/null to open, and no standard file to copy), it
// returns upTo: jobtrace goes on as usual.
func Free(upTo int) int {
	var fds []int
	defer func() {
		for _, fd := range fds {
			syscall.Close(fd)
		}
	}()
	for len(fds) < upTo {
		fd, err := another(fds)
		if err == syscall.EMFILE || err == syscall.ENFILE {
			break
		}
		if err != nil {
			return upTo
		}
		fds = append(fds, fd)
	}
	return len(fds)
}

// another opens one more descriptor: a copy of one already held, else of
// a standard file that is open, else /dev/null. The copies are closed
// before jobtrace starts anything (and have no close-on-exec flag).
func another(held []int) (int, error) {
	if len(held) > 0 {
		return syscall.Dup(held[0])
	}
	for fd := range 3 {
		if c, err := syscall.Dup(fd); err != syscall.EBADF {
			return c, err
		}
	}
	return syscall.Open(os.DevNull, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
}

// Limit returns the process's limit of file descriptors (`ulimit -n`), 0
// when it cannot be read.
func Limit() uint64 {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0
	}
	return uint64(rl.Cur)
}
