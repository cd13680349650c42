//go:build linux

package procfs

import (
	"io/fs"

	"golang.org/x/sys/unix"

	"github.com/jobtrace/jobtrace/internal/rawfile"
)

// openFiles are the files an FS has read, kept open for the next read (see
// rawfile.File); a steady-state read allocates nothing.
type openFiles map[string]*rawfile.File

// readFile reads the whole file at path into r.buf and returns the bytes.
// whole says the file is written in one show (oneShow).
func (r *reader) readFile(path string, whole bool) ([]byte, error) {
	f := r.files[path]
	if f == nil {
		if r.files == nil {
			r.files = openFiles{}
		}
		f = rawfile.NewFile(path)
		r.files[path] = f
	}
	n, op, errno := f.ReadAll(&r.buf, whole)
	switch {
	case op == "open":
		return nil, openError(path, errno)
	case errno != 0:
		return nil, readError(path, errno)
	}
	return r.buf[:n], nil
}

// close closes the files kept open.
func (r *reader) close() {
	for _, f := range r.files {
		f.Close()
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
