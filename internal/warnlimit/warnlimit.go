// Package warnlimit bounds the warnings a part of jobtrace prints, so that
// a flood of bad input or a problem met at every sample cannot flood the
// job's log, while the log still says how many there were.
//
// A Limiter passes on its first Verbatim warnings as they are, then says
// once that further warnings are counted, not shown; after that only counts
// are printed, when the number of warnings not shown reaches 10, 100,
// 1000, …, and once more, the total, on Flush. A warning given with a key
// (WarnKey) is said once per key: the same problem met again is neither
// shown nor counted. The keys held are bounded by MaxKeys.
package warnlimit

import (
	"fmt"
	"sync"
)

// DefaultVerbatim is how many warnings a Limiter of bad input passes on in
// full: enough to see what is wrong, few enough for a log.
const DefaultVerbatim = 5

// MaxKeys bounds the keys a Limiter remembers to say each problem once
// (WarnKey), so that its memory stays bounded however many distinct
// problems come. Once it holds MaxKeys keys, a warning with a key it does
// not hold is counted every time it comes.
const MaxKeys = 1024

// Limiter rate-limits warnings. It is safe for concurrent use; warn is
// called under its lock, so the notes it prints stay in order.
type Limiter struct {
	prefix   string
	warn     func(string)
	verbatim uint64

	mu         sync.Mutex
	n          uint64
	suppressed uint64
	next       uint64 // print the count when suppressed reaches this
	reported   uint64 // suppressed at the last count printed
	keys       map[string]struct{}
}

// New returns a Limiter that passes the first verbatim warnings to warn
// (which may be nil: then warnings are only counted), with prefix in front
// of every message and note.
func New(prefix string, warn func(string), verbatim int) *Limiter {
	return &Limiter{prefix: prefix, warn: warn, verbatim: uint64(max(verbatim, 0)), next: 10}
}

// Warnf reports one problem.
func (l *Limiter) Warnf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.add(func() string { return fmt.Sprintf(format, args...) })
}

// Warn reports one problem.
func (l *Limiter) Warn(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.add(func() string { return msg })
}

// WarnKey reports one problem unless a problem with the same key was
// reported already.
func (l *Limiter) WarnKey(key, msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.keys[key]; ok {
		return
	}
	if l.keys == nil {
		l.keys = map[string]struct{}{}
	}
	if len(l.keys) < MaxKeys {
		l.keys[key] = struct{}{}
	}
	l.add(func() string { return msg })
}

// add counts one warning and prints it or the notes due. msg is only
// formatted when it is shown.
func (l *Limiter) add(msg func() string) {
	l.n++
	if l.warn == nil {
		return
	}
	if l.n <= l.verbatim {
		l.warn(l.prefix + msg())
		if l.n == l.verbatim {
			l.warn(l.prefix + "further warnings are counted, not shown")
		}
		return
	}
	l.suppressed++
	if l.suppressed == l.next {
		l.warn(fmt.Sprintf("%s%d warnings suppressed so far", l.prefix, l.suppressed))
		l.reported = l.suppressed
		l.next *= 10
	}
}

// Flush prints how many warnings were not shown, if any were not since the
// last count printed.
func (l *Limiter) Flush() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.warn != nil && l.suppressed > l.reported {
		l.warn(fmt.Sprintf("%s%d warnings suppressed in total", l.prefix, l.suppressed))
		l.reported = l.suppressed
	}
}

// Count returns the number of warnings reported so far, shown or not.
func (l *Limiter) Count() uint64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.n
}
