//go:build linux

package procfs

import "github.com/jobtrace/jobtrace/internal/rawfile"

// openFiles are the files an FS has read, kept open for the next read (see
// rawfile.File); a steady-state read allocates nothing.
type openFiles map[string]*rawfile.File

// readFile reads the whole file at path into r.buf and returns the bytes.
// whole says the file is written in one show (oneShow). A file the kernel
// has no figure in (rawfile.Absent: no such file, or PSI disabled) gives an
// error that satisfies errors.Is(err, fs.ErrNotExist).
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
	if errno != 0 {
		return nil, rawfile.PathError(op, path, errno)
	}
	return r.buf[:n], nil
}

// close closes the files kept open.
func (r *reader) close() {
	for _, f := range r.files {
		f.Close()
	}
}
