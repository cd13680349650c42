package rawfile

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// atFDCWD is a variable so that its negative value converts to uintptr.
var atFDCWD = unix.AT_FDCWD

// minBuf is the size a nil or empty buffer grows to first.
const minBuf = 4 << 10

// Open opens cpath, which ends in NUL, read-only with openat(2) plus flags.
// Errors are bare errnos, which allocate nothing.
func Open(cpath []byte, flags int) (int, unix.Errno) {
	for {
		fd, _, errno := unix.Syscall6(unix.SYS_OPENAT, uintptr(atFDCWD),
			uintptr(unsafe.Pointer(&cpath[0])), uintptr(flags|unix.O_RDONLY|unix.O_CLOEXEC), 0, 0, 0)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return -1, errno
		}
		return int(fd), 0
	}
}

// Read reads fd from its current offset to the end into *buf, which it
// doubles when full, and returns how many bytes it read. With whole set, a
// read shorter than the space left is taken as the end: true of files the
// kernel hands over in one piece (stat, statm, io), not of files of many
// records such as children, of which one read returns at most a page.
func Read(fd int, buf *[]byte, whole bool) (int, unix.Errno) {
	b := *buf
	n := 0
	for {
		if n == len(b) {
			nb := make([]byte, max(2*len(b), minBuf))
			copy(nb, b[:n])
			b = nb
			*buf = b
		}
		m, err := unix.Read(fd, b[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			if errno, ok := err.(unix.Errno); ok {
				return n, errno
			}
			return n, unix.EIO
		}
		n += m
		if m == 0 || whole && n < len(b) {
			return n, 0
		}
	}
}
