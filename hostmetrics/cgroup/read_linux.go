//go:build linux

package cgroup

import (
	"io/fs"

	"golang.org/x/sys/unix"

	"github.com/jobtrace/jobtrace/hostmetrics/internal/rawfile"
)

// readFile reads file i into r.buf without allocating (see package
// rawfile), growing it when the file is longer.
func (r *Reader) readFile(i int) ([]byte, error) {
	fd, errno := rawfile.Open(r.cpath[i], 0)
	if errno == unix.ENOENT {
		// Absent files are normal (no controller, old kernel, the root
		// cgroup) and are not reported: no error value is made.
		return nil, fs.ErrNotExist
	}
	if errno != 0 {
		return nil, &fs.PathError{Op: "open", Path: r.paths[i], Err: errno}
	}
	n, errno := rawfile.Read(fd, &r.buf, false)
	unix.Close(fd)
	if errno != 0 {
		return nil, &fs.PathError{Op: "read", Path: r.paths[i], Err: errno}
	}
	return r.buf[:n], nil
}
