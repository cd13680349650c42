//go:build !linux

package procfs

import "github.com/jobtrace/jobtrace/internal/rawfile"

// openFiles is empty here: files are opened at every read.
type openFiles struct{}

func (r *reader) close() {}

// readFile reads the whole file at path into r.buf and returns the bytes.
func (r *reader) readFile(path string, _ bool) ([]byte, error) {
	n, err := rawfile.ReadFile(path, &r.buf)
	if err != nil {
		return nil, err
	}
	return r.buf[:n], nil
}
