package supervise

import (
	"errors"
	"io"
	"syscall"
	"time"
)

// writeOut writes all of p to w, the destination of the job's output. A
// destination that was made non-blocking behind jobtrace's back (a process
// that shares the file, such as Node.js, can do that) refuses a write with
// EAGAIN while it is full: writeOut waits and tries again, as a blocking
// write would have waited, instead of losing the output.
func writeOut(w io.Writer, p []byte) (int, error) {
	written := 0
	pause := time.Millisecond
	for {
		n, err := w.Write(p[written:])
		written += n
		if err == nil || written >= len(p) {
			return written, nil
		}
		if !errors.Is(err, syscall.EAGAIN) {
			return written, err
		}
		time.Sleep(pause)
		pause = min(2*pause, maxWritePause)
	}
}

// maxWritePause bounds how long writeOut sleeps between two tries on a
// non-blocking destination that is full.
const maxWritePause = 50 * time.Millisecond

// readerGone reports whether err, from a write to jobtrace's stdout or
// stderr, means that nobody reads that destination any more: a pipe or
// socket whose reader closed it, or a terminal that hung up (EIO, when
// jobtrace's output is a terminal). A full disk and other errors are not:
// the next write may succeed.
func readerGone(err error, terminal bool) bool {
	switch {
	case errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNRESET):
		return true
	case terminal && (errors.Is(err, syscall.EIO) || errors.Is(err, syscall.ENXIO)):
		return true
	}
	return false
}

// errText is the system's word for err ("broken pipe"), without the path
// of jobtrace's own file.
func errText(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		return errno.Error()
	}
	return err.Error()
}
