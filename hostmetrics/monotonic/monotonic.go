// Package monotonic is the one rule by which a cumulative counter (CPU
// time, bytes read and written, network bytes, pressure stall time, OOM
// kills) becomes changes between its readings, and the one place that
// judges a counter that went back.
//
// The rule: the change between two readings is the later less the earlier.
// When the later is lower, the counter was reset: what it sums lost a
// member (a disk or a network interface went away), it wrapped, or it
// started again. Its change since the earlier reading is then unknown,
// neither zero nor negative: it is left out, and the next change counts
// from the new reading. Readings of another counter (the job's CPU time
// read from its tree after its cgroup) are taken the same way: the caller
// says so with Restart. The first reading is a baseline, with no change. An
// absent reading (a file that could not be read, a tree not walked for
// that sample) is no reading: it is not given, and the next change runs
// from the last reading there was. Change is the rule for two readings,
// Counter for a counter's readings in turn (a cell of resource-usage.csv,
// an OTel counter), Sum for the total of its changes (a phase's usage, the
// statistics of a run), so that a column of the CSV summed over a phase's
// rows is the phase's usage, and a run's figures are those read back from
// its CSV.
//
// Held is the one exception, made where a figure is read and never by a
// sink: a figure that dips for a moment without having been reset (a
// process tree's CPU time when a process has exited and its parent has not
// reaped it yet; /proc/stat's iowait, which the kernel can take back into
// idle time) is held at its highest, so that the rule never sees it go
// back. Taken as a reset, the dip would be counted a second time as the
// figure climbs back.
package monotonic

// Number is what a counter can count: integers, durations and seconds.
type Number interface {
	~int | ~int64 | ~uint64 | ~float64
}

// Change is the change of a counter from the reading prev to the later
// reading cur: cur less prev, and true; or 0 and false when cur is lower,
// the counter having been reset, so that the change is unknown.
func Change[T Number](prev, cur T) (T, bool) {
	if cur < prev {
		return 0, false
	}
	return cur - prev, true
}

// Counter follows one counter's readings, given in order, and gives the
// change of each from the one before by Change. The zero Counter has had
// no reading.
type Counter[T Number] struct {
	last T
	seen bool
}

// Next takes the reading v and returns its change since the last reading.
// false, with 0, for the first reading (or the first after Restart), which
// is a baseline, and for one lower than the last (a reset): the next
// change counts from v.
func (c *Counter[T]) Next(v T) (T, bool) {
	last, seen := c.last, c.seen
	c.last, c.seen = v, true
	if !seen {
		return 0, false
	}
	return Change(last, v)
}

// Restart forgets the last reading: the next one is a baseline, for
// readings of another counter (another source of the figure, a device that
// went away and may come back counting from zero).
func (c *Counter[T]) Restart() { *c = Counter[T]{} }

// Sum is the total of a counter's changes by the rule, from its first
// reading: the changes that are known, summed. The zero Sum has had no
// reading.
type Sum[T Number] struct {
	c     Counter[T]
	total T
}

// Add takes the reading v and returns the total of the changes up to it,
// and whether v's change is known (as Counter.Next says). A reading whose
// change is unknown leaves the total as it was, and the total goes on from
// it.
func (s *Sum[T]) Add(v T) (total T, known bool) {
	d, known := s.c.Next(v)
	s.total += d
	return s.total, known
}

// Restart takes the next reading as one of another counter (Counter.Restart):
// its change is unknown, and the total goes on from it.
func (s *Sum[T]) Restart() { s.c.Restart() }

// Held is a figure that dips for a moment without having been reset, held
// at its highest where it is read: the one exception to the rule (see the
// package documentation). The zero Held has seen no value.
type Held[T Number] struct {
	high T
	seen bool
}

// Hold returns v, or the highest value given before when v is lower, and
// keeps it as the highest.
func (h *Held[T]) Hold(v T) T {
	if !h.seen || v > h.high {
		h.high, h.seen = v, true
	}
	return h.high
}
