//go:build !linux

package rawfile

import (
	"io"
	"os"
)

// ReadFile reads the whole file at path into *buf, which it doubles when
// full, and returns how many bytes it read. Outside Linux there is no /proc
// or cgroupfs to sample: this reads fixtures, and the os package is good
// enough.
func ReadFile(path string, buf *[]byte) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	b := *buf
	n := 0
	for {
		if n == len(b) {
			b = grow(buf, n)
		}
		m, err := f.Read(b[n:])
		n += m
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return 0, err
		}
	}
}
