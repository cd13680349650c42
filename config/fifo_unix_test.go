//go:build unix

package config

import (
	"path/filepath"

	"golang.org/x/sys/unix"
)

// makeFIFO makes a FIFO in dir, which blocks a reader that opens it
// without O_NONBLOCK until a writer comes.
func makeFIFO(dir string) (string, bool) {
	p := filepath.Join(dir, "fifo")
	return p, unix.Mkfifo(p, 0o600) == nil
}
