package supervise

import (
	"errors"
	"syscall"
)

// SpareFDs is how many descriptors HoldSpare holds: enough for a start
// with Options.Direct, which needs two (the pipe through which a failed
// exec is reported) besides the job's own three.
const SpareFDs = 4

// Spare is descriptors held from the start of a run, so that the job can
// still be started once jobtrace's own files have used up the process's
// descriptors (a low `ulimit -n`) or the system's: Free gives them back
// just before that start.
type Spare struct {
	fds []int
}

// RetryDirect reports whether a job that Start could not start may start
// with Options.Direct: its output could not be set up, or the start failed
// for want of descriptors, memory or processes (EMFILE, ENFILE, ENOMEM,
// EAGAIN), which is jobtrace's trouble, not the program's. A program that
// is not found or cannot be run is the program's.
func RetryDirect(err error) bool {
	if err == nil {
		return false
	}
	var se *StartError
	if !errors.As(err, &se) {
		return true
	}
	for _, e := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOMEM, syscall.EAGAIN} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
