//go:build !linux

package cgroup

import (
	"io"
	"os"
)

// lookMount finds no cgroup2 mount here: cgroups exist only on Linux, and
// FindSelf reads the fixture trees of the tests through mountinfo.
func lookMount(string) (cgroup2 bool, root string, known bool) { return false, "", false }

// readUpTo reads path from its start until its end or until buf is full,
// and returns how many bytes it read.
func readUpTo(path string, buf []byte) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	n, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return n, err
}
