//go:build !linux

package procfs

import (
	"io"
	"os"
)

// openFiles is empty here: files are opened at every read.
type openFiles struct{}

func (r *reader) close() {}

// readFile reads the whole file at path into r.buf and returns the bytes.
// Outside Linux there is no /proc to sample, so this only serves fixtures
// and plain os.Open is good enough.
func (r *reader) readFile(path string, _ bool) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	n := 0
	for {
		if n == len(r.buf) {
			r.grow(n)
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
