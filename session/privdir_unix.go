//go:build unix

package session

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// lockPrivateDir takes the lock that says the directory's run is alive: a
// flock(2) on the directory, which the kernel drops when the run's process
// ends, however it ends.
func lockPrivateDir(dir string) (io.Closer, error) {
	// A bare descriptor: an os.File would be offered to the runtime's
	// poller, a few system calls more for nothing.
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	if err := syscall.Flock(fd, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	return dirLock(fd), nil
}

// dirLock is the descriptor that holds a private directory's lock.
type dirLock int

// Close closes the descriptor, which drops the lock.
func (d dirLock) Close() error { return syscall.Close(int(d)) }

// sweepPrivateDirs removes from parent the private directories of runs
// that are gone: named jobtrace-<pid>-<digits>, a directory (not a
// symbolic link) owned by this user, its pid not running, not modified for
// StalePrivateDirAge, and its lock free. It returns how many it removed.
func sweepPrivateDirs(parent string, now time.Time) int {
	n := 0
	forDeadRuns(parent, parsePrivateDirName, func(path string, _ int) {
		if removeStalePrivateDir(path, now) {
			n++
		}
	})
	return n
}

// forDeadRuns calls fn with each directory in parent named after a run of
// jobtrace (parse gives the run's pid from the name) whose process is gone:
// the private directories and the cgroups a killed run left behind.
func forDeadRuns(parent string, parse func(name string) (pid int, ok bool), fn func(path string, pid int)) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		pid, ok := parse(e.Name())
		if !ok || !e.IsDir() || pid == os.Getpid() || syscall.Kill(pid, 0) != syscall.ESRCH {
			continue
		}
		fn(filepath.Join(parent, e.Name()), pid)
	}
}

func removeStalePrivateDir(path string, now time.Time) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.IsDir() || now.Sub(fi.ModTime()) < StalePrivateDirAge {
		return false
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != os.Geteuid() {
		return false
	}
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false
	}
	return os.RemoveAll(path) == nil
}
