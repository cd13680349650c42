//go:build linux

package cgroup

import (
	"io/fs"

	"github.com/jobtrace/jobtrace/internal/rawfile"
)

// openFiles are the Reader's files, kept open between reads (see
// rawfile.File).
type openFiles [numFiles]*rawfile.File

// readFile reads file i into r.buf without allocating, growing it when the
// file is longer.
func (r *Reader) readFile(i int) ([]byte, error) {
	f := r.files[i]
	if f == nil {
		f = rawfile.NewFile(r.paths[i])
		r.files[i] = f
	}
	// The kernel writes every file read here in one show (kernfs's
	// seq_show), and hands it over whole when the buffer can hold it: a
	// read shorter than the buffer is its end.
	n, op, errno := f.ReadAll(&r.buf, true)
	if errno == 0 && r.readHook != nil {
		if e := r.readHook(r.paths[i]); e != 0 {
			n, op, errno = 0, "read", e
		}
	}
	if rawfile.Absent(errno) {
		// Absent files are normal (no controller, old kernel, the root
		// cgroup, PSI disabled) and are not reported: no error value is
		// made.
		return nil, fs.ErrNotExist
	}
	if errno != 0 {
		return nil, &fs.PathError{Op: op, Path: r.paths[i], Err: errno}
	}
	return r.buf[:n], nil
}

// Close closes the files the Reader keeps open between reads. The Reader
// can still be read after Close: it opens them again.
func (r *Reader) Close() error {
	for _, f := range r.files {
		if f != nil {
			f.Close()
		}
	}
	return nil
}
