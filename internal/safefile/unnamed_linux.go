package safefile

import (
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// openUnnamed opens a new file without a name in dir (O_TMPFILE), for
// replace to write and then name: a jobtrace killed while it writes leaves
// nothing, where a file under a temporary name stayed in the out dir, with
// nothing to remove it. ok is false where that cannot be done: a file
// system or kernel without O_TMPFILE, or no /proc, through which nameTemp
// links the file (linkat with AT_EMPTY_PATH takes a privilege).
func openUnnamed(dir string) (fd int, ok bool) {
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return -1, false
	}
	if unix.Faccessat(unix.AT_FDCWD, procFD(fd), unix.F_OK, 0) != nil {
		syscall.Close(fd)
		return -1, false
	}
	return fd, true
}

// nameTemp gives the file of openUnnamed a new name made from prefix, and
// returns it.
func nameTemp(fd int, prefix string) (string, error) {
	return newTempName(prefix, func(name string) error {
		return unix.Linkat(unix.AT_FDCWD, procFD(fd), unix.AT_FDCWD, name, unix.AT_SYMLINK_FOLLOW)
	})
}

// procFD is the path of fd in /proc, which links to its file.
func procFD(fd int) string { return "/proc/self/fd/" + strconv.Itoa(fd) }
