//go:build !linux

package cgroup

import "github.com/jobtrace/jobtrace/internal/rawfile"

// openFiles is empty here: files are opened at every read.
type openFiles struct{}

// Close does nothing here.
func (r *Reader) Close() error { return nil }

// readFile reads file i into r.buf, growing it when the file is longer.
// Outside Linux there is no cgroup; this reads fixture trees in tests.
func (r *Reader) readFile(i int) ([]byte, error) {
	n, err := rawfile.ReadFile(r.paths[i], &r.buf)
	if err != nil {
		return nil, err
	}
	return r.buf[:n], nil
}
