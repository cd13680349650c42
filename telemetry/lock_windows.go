package telemetry

import (
	"errors"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"

	"github.com/jobtrace/jobtrace/internal/safefile"
)

// LockDir takes the lock of the artifacts directory dir: one jobtrace at a
// time writes or sends its spool. The lock is LockFileEx's, held between
// processes until unlock or the process's end; ErrDirBusy when another
// jobtrace holds it.
func LockDir(dir string) (unlock func(), err error) { return Lock(filepath.Join(dir, LockFile)) }

// Lock takes the lock of the file at path, made if it is not there, as
// LockDir does: ErrDirBusy when another process holds it.
func Lock(path string) (unlock func(), err error) {
	f, err := safefile.Open(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, new(windows.Overlapped))
	if err != nil {
		f.Close()
		if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
			return nil, ErrDirBusy
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}
