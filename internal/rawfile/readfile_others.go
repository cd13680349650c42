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
	return fill(buf, limit, func(b []byte) (int, error) {
		m, err := f.Read(b)
		if err == io.EOF {
			err = nil
		}
		return m, err
	})
}
