//go:build linux

package procfs

import (
	"io/fs"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readFile reads the whole file at path into r.buf and returns the bytes.
// It uses raw syscalls on a reused NUL-terminated path because os.Open
// allocates an *os.File (and more) per call, and a sample reads several files.
func (r *reader) readFile(path string) ([]byte, error) {
	r.path = append(append(r.path[:0], path...), 0)
	var fd int
	dirfd := unix.AT_FDCWD
	for {
		p, _, errno := unix.Syscall6(unix.SYS_OPENAT, uintptr(dirfd),
			uintptr(unsafe.Pointer(&r.path[0])), uintptr(unix.O_RDONLY|unix.O_CLOEXEC), 0, 0, 0)
		if errno == unix.EINTR {
			continue
		}
		if errno != 0 {
			return nil, openError(path, errno)
		}
		fd = int(p)
		break
	}
	defer unix.Close(fd)
	n := 0
	for {
		if n == len(r.buf) {
			r.grow(n)
		}
		m, err := unix.Read(fd, r.buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, readError(path, err)
		}
		if m == 0 {
			return r.buf[:n], nil
		}
		n += m
	}
}

func openError(path string, errno unix.Errno) error {
	return &fs.PathError{Op: "open", Path: path, Err: notExist(errno)}
}

func readError(path string, err error) error {
	return &fs.PathError{Op: "read", Path: path, Err: notExist(err)}
}

// notExist makes "the kernel has no such figure" errors satisfy
// errors.Is(err, fs.ErrNotExist). ENOENT already does. EOPNOTSUPP is what
// opening or reading a pressure file returns when PSI is disabled at boot
// (psi=0) or for a cgroup (cgroup.pressure set to 0): the file is listed but
// the figure is absent, which is what callers record for a missing file too.
func notExist(err error) error {
	if err == unix.EOPNOTSUPP {
		return absentError{err}
	}
	return err
}

type absentError struct{ err error }

func (e absentError) Error() string        { return e.err.Error() }
func (e absentError) Unwrap() error        { return e.err }
func (e absentError) Is(target error) bool { return target == fs.ErrNotExist }
