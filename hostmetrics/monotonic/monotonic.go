// Package monotonic holds cumulative figures that never go down.
//
// A cumulative figure read from the system can step back for a moment
// without anything having been undone: a process tree's CPU time dips when
// a process has exited and its parent has not reaped it yet, /proc/stat's
// iowait can step back, a sum loses a member between two readings. Given
// as it was read, such a figure would make a delta negative, or count the
// same work twice once it comes back up. Every place that gives or records
// a total goes through a Total, which holds the figure at its highest.
package monotonic

// Number is what a Total can count: integers, durations and seconds.
type Number interface {
	~int | ~int64 | ~uint64 | ~float64
}

// Total is a cumulative figure that never goes down. The zero Total has
// seen no value.
type Total[T Number] struct {
	high T
	seen bool
}

// Clamp returns v, or the highest value given before when v is lower, and
// keeps it as the highest.
func (t *Total[T]) Clamp(v T) T {
	if !t.seen || v > t.high {
		t.high, t.seen = v, true
	}
	return t.high
}

// Step returns how far v passes the highest value given before, and keeps
// it as the highest. The first value is the baseline: its step is 0. A
// value at or below the highest steps 0, so a figure that dips and comes
// back is not counted twice.
func (t *Total[T]) Step(v T) T {
	if !t.seen {
		t.high, t.seen = v, true
		return 0
	}
	if v <= t.high {
		return 0
	}
	d := v - t.high
	t.high = v
	return d
}

// Reset forgets the values given: the next one is a baseline again, for a
// figure whose counter may have started again from zero (a device that went
// away and came back).
func (t *Total[T]) Reset() { *t = Total[T]{} }
