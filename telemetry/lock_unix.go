//go:build unix

package telemetry

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"

	"github.com/jobtrace/jobtrace/internal/safefile"
)

// LockDir takes the lock of the artifacts directory dir: one jobtrace at a
// time writes and sends a spool. ErrDirBusy means another live jobtrace
// holds it. The lock goes with the process, so a crash leaves none behind.
func LockDir(dir string) (unlock func(), err error) { return Lock(filepath.Join(dir, LockFile)) }

// Lock takes the lock of the file at path, made if it is not there, as
// LockDir does: ErrDirBusy when another process holds it.
func Lock(path string) (unlock func(), err error) {
	f, err := safefile.Open(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrDirBusy
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}
