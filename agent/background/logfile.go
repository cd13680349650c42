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
// begun anew there.
func (l *logFile) relink() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, relinked, err := safefile.Relink(l.f, l.path, os.O_RDWR|os.O_APPEND, 0o644, -1)
	if err != nil {
		if f, err = safefile.OpenLog(l.path, 0o644); err != nil {
			return err
		}
		l.f.Close()
		relinked = true
	}
	l.f = f
	if relinked {
		redirectStderr(f)
	}
	return nil
}
