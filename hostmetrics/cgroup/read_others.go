//go:build !linux

package cgroup

import (
	"io"
	"os"
)

// openFiles is empty here: files are opened at every read.
type openFiles struct{}

// Close does nothing here.
func (r *Reader) Close() error { return nil }

// readFile reads file i into r.buf, growing it when the file is longer.
// Outside Linux there is no cgroup; this reads fixture trees in tests.
func (r *Reader) readFile(i int) ([]byte, error) {
	f, err := os.Open(r.paths[i])
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n := 0
	for {
		if n == len(r.buf) {
			r.buf = append(r.buf, make([]byte, len(r.buf))...)
		}
		m, err := f.Read(r.buf[n:])
		n += m
		if err == io.EOF {
			return r.buf[:n], nil
		}
		if err != nil {
			return nil, err
		}
	}
}
