//go:build linux

package cgroup

import (
	"io/fs"
	"unsafe"

	"golang.org/x/sys/unix"
)

// readFile reads file i into r.buf, growing it when the file is longer.
// It calls openat(2) with the path kept NUL-terminated in the Reader, since
// os.Open and unix.Open copy the path (and os.Open allocates a File) on every
// call; a steady-state sample must allocate nothing.
func (r *Reader) readFile(i int) ([]byte, error) {
	p := r.cpath[i]
	dirfd := unix.AT_FDCWD
	var fd uintptr
	for {
		var errno unix.Errno
		fd, _, errno = unix.Syscall6(unix.SYS_OPENAT, uintptr(dirfd),
			uintptr(unsafe.Pointer(&p[0])), uintptr(unix.O_RDONLY|unix.O_CLOEXEC), 0, 0, 0)
		if errno == unix.EINTR {
			continue
		}
		if errno == unix.ENOENT {
			// Absent files are normal (no controller, old kernel, the
			// root cgroup) and are not reported: no error value is made.
			return nil, fs.ErrNotExist
		}
		if errno != 0 {
			return nil, &fs.PathError{Op: "open", Path: r.paths[i], Err: errno}
		}
		break
	}
	defer unix.Close(int(fd))
	n := 0
	for {
		if n == len(r.buf) {
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
		m, err := unix.Read(int(fd), r.buf[n:])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: r.paths[i], Err: err}
		}
		if m == 0 {
			return r.buf[:n], nil
		}
		n += m
	}
}
