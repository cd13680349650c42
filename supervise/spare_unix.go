//go:build unix

package supervise

import (
	"os"
	"syscall"
)

// HoldSpare holds SpareFDs descriptors (/dev/null, closed on exec), as
// many as it can get.
func HoldSpare() *Spare {
	s := &Spare{}
	for range SpareFDs {
		fd, err := syscall.Open(os.DevNull, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			break
		}
		s.fds = append(s.fds, fd)
	}
	return s
}

// Free gives the descriptors back; it may be called more than once, and on
// a nil Spare.
func (s *Spare) Free() {
	if s == nil {
		return
	}
	for _, fd := range s.fds {
		syscall.Close(fd)
	}
	s.fds = nil
}
