package agent

import (
	"fmt"
	"io"
	"sync"

	"github.com/jobtrace/jobtrace/internal/redact"
)

// MaxWarnings is how many warnings jobtrace prints in one run; beyond it
// they are counted and the count is printed at the end, so a flood of bad
// markers cannot flood the job's log.
const MaxWarnings = 50

// Logger writes jobtrace's own messages, one line each with a "jobtrace:"
// prefix, to stderr through the same gate as the job's stderr (or to a log
// file). Every message is masked by redact.String: an error that wraps the
// collector's URL or echoes a header prints no credential.
type Logger struct {
	mu         sync.Mutex
	out        func([]byte)
	warnings   int
	suppressed int
}

// NewLogger returns a Logger that writes to w.
func NewLogger(w io.Writer) *Logger {
	if g, ok := w.(*gate); ok {
		return &Logger{out: g.message}
	}
	return &Logger{out: func(b []byte) { w.Write(b) }}
}

// Printf writes one message.
func (l *Logger) Printf(format string, args ...any) {
	l.out([]byte("jobtrace: " + redact.String(fmt.Sprintf(format, args...)) + "\n"))
}

// Warn writes one warning unless MaxWarnings were written already.
func (l *Logger) Warn(msg string) {
	l.mu.Lock()
	l.warnings++
	if l.warnings > MaxWarnings {
		l.suppressed++
		l.mu.Unlock()
		return
	}
	l.mu.Unlock()
	l.out([]byte("jobtrace: warning: " + redact.String(msg) + "\n"))
}

// Suppressed is the number of warnings not written.
func (l *Logger) Suppressed() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.suppressed
}
