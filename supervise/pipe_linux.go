package supervise

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// pipeSize is the capacity jobtrace asks for the job's output pipes: the
// unprivileged maximum by default (/proc/sys/fs/pipe-max-size). With the
// default 64 KiB a fast writer and jobtrace would wake each other for every
// 64 KiB; with 1 MiB they trade far fewer, larger chunks.
const pipeSize = 1 << 20

// newPipe returns a pipe for the job's output whose read end jobtrace reads
// with blocking reads, as a plain `cat` would: through Go's poller every
// empty pipe costs a park, an epoll wait and a wake-up, which made the
// passthrough of a fast writer half as fast as a plain pipe.
func newPipe() (r, w *os.File, err error) {
	var fds [2]int
	if err := syscall.Pipe2(fds[:], syscall.O_CLOEXEC); err != nil {
		return nil, nil, os.NewSyscallError("pipe2", err)
	}
	unix.FcntlInt(uintptr(fds[1]), unix.F_SETPIPE_SZ, pipeSize) // failure only costs speed
	return os.NewFile(uintptr(fds[0]), "|0"), os.NewFile(uintptr(fds[1]), "|1"), nil
}

// pendingBytes is how many bytes wait in the pipe or terminal f reads from.
// It asks without changing the descriptor's blocking mode.
func pendingBytes(f *os.File) int64 {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	var n int
	rc.Control(func(fd uintptr) {
		n, err = unix.IoctlGetInt(int(fd), unix.TIOCINQ) // FIONREAD
	})
	if err != nil {
		return 0
	}
	return int64(n)
}

// waitReadable waits until f has bytes to read (or its writers are gone),
// so that the read that follows does not block: SyncOutput then knows that
// a read in progress is one that is taking bytes out of the pipe. It
// reports whether it waited.
func waitReadable(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			_, err := unix.Poll(fds, -1)
			if err != unix.EINTR {
				ok = err == nil
				return
			}
		}
	})
	return ok
}
