//go:build !linux

package rawfile

import (
	"io"
	"os"
)

// ReadFile reads the whole file at path into *buf, which it doubles when
// full, and returns how many bytes it read. Outside Linux there is no /proc
// or cgroupfs to sample: this reads fixtures and a few files of /etc, and
// the os package is good enough.
func ReadFile(path string, buf *[]byte) (int, error) { return ReadFileUpTo(path, buf, 0) }

// ReadFileUpTo is ReadFile reading at most limit bytes (none when limit
// is 0): the caller tells a file that filled them from a whole one.
func ReadFileUpTo(path string, buf *[]byte, limit int) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	b := *buf
	n := 0
	for limit == 0 || n < limit {
		if n == len(b) {
			b = grow(buf, n)
		}
		end := len(b)
		if limit > 0 {
			end = min(end, limit)
		}
		m, err := f.Read(b[n:end])
		n += m
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	return n, nil
}
