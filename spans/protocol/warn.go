package protocol

import (
	"fmt"
	"sync"
)

// Warner rate-limits warnings about bad input, so that a flood of malformed
// markers cannot flood the job's log. The first Verbatim warnings are passed
// on as they are; after that only counts are reported, when the number of
// suppressed warnings reaches 10, 100, 1000, … and once more on Flush.
// Warner is safe for concurrent use.
type Warner struct {
	prefix   string
	warn     func(string)
	verbatim int

	mu         sync.Mutex
	n          uint64
	suppressed uint64
	next       uint64 // report the count when suppressed reaches this
	reported   uint64 // suppressed at the last report
}

// DefaultVerbatim is how many warnings a Warner passes on in full.
const DefaultVerbatim = 5

// NewWarner returns a Warner that sends to warn (which may be nil: then
// warnings are only counted) with prefix in front of every message.
func NewWarner(prefix string, warn func(string), verbatim int) *Warner {
	return &Warner{prefix: prefix, warn: warn, verbatim: verbatim, next: 10}
}

// Warnf reports one problem.
func (w *Warner) Warnf(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.n++
	if w.warn == nil {
		return
	}
	if w.n <= uint64(w.verbatim) {
		w.warn(w.prefix + fmt.Sprintf(format, args...))
		if w.n == uint64(w.verbatim) {
			w.warn(w.prefix + "further warnings are counted, not shown")
		}
		return
	}
	w.suppressed++
	if w.suppressed == w.next {
		w.warn(fmt.Sprintf("%s%d warnings suppressed so far", w.prefix, w.suppressed))
		w.reported = w.suppressed
		w.next *= 10
	}
}

// Flush reports how many warnings were suppressed, if any, since the last
// report.
func (w *Warner) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.warn != nil && w.suppressed > w.reported {
		w.warn(fmt.Sprintf("%s%d warnings suppressed in total", w.prefix, w.suppressed))
		w.reported = w.suppressed
	}
}

// Count returns the number of warnings reported so far, shown or not.
func (w *Warner) Count() uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.n
}

// Excerpt quotes at most n bytes of line for a warning, so that a warning
// about a 1 MiB line stays one short line.
func Excerpt(line []byte, n int) string {
	if len(line) <= n {
		return fmt.Sprintf("%q", line)
	}
	return fmt.Sprintf("%q… (%d bytes)", line[:n], len(line))
}
