package background

import (
	"os"
	"sync"

	"github.com/jobtrace/jobtrace/internal/safefile"
)

// logFile is the agent's log: the file its Logger writes to (and its
// stderr, for what the Go runtime itself writes), which relink writes
// again at its path when it was removed.
type logFile struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

func (l *logFile) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Write(p)
}

// relink writes the log again at its path when it was removed while it was
// open (safefile.Relink), and points stderr at the new file. A log that
// cannot be read back (one the user named, opened for appending only) is
// begun anew there. It reports whether the log had been removed.
func (l *logFile) relink() (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !safefile.Unlinked(l.f) {
		return false, nil
	}
	fi, err := l.f.Stat()
	if err != nil {
		return true, err
	}
	nf, err := safefile.Relink(l.f, l.path, os.O_RDWR|os.O_APPEND, 0o644, fi.Size())
	if err != nil {
		if nf, err = safefile.OpenLog(l.path, 0o644); err != nil {
			return true, err
		}
	}
	l.f.Close()
	l.f = nf
	redirectStderr(nf)
	return true, nil
}
