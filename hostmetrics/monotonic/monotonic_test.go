package monotonic

import (
	"testing"
	"time"
)

func TestChange(t *testing.T) {
	for _, c := range []struct {
		prev, cur, want uint64
		ok              bool
	}{
		{10, 15, 5, true},
		{10, 10, 0, true}, // no change is a known change
		{10, 5, 0, false}, // a reset: unknown, not 0 - 5 wrapped
		{0, 0, 0, true},
	} {
		if got, ok := Change(c.prev, c.cur); got != c.want || ok != c.ok {
			t.Errorf("Change(%d, %d) = %d, %v; want %d, %v", c.prev, c.cur, got, ok, c.want, c.ok)
		}
	}
	if got, ok := Change(1.5, -0.5); got != 0 || ok {
		t.Errorf("Change(1.5, -0.5) = %v, %v; want 0, false", got, ok)
	}
}

// reading is one reading of a counter in a test sequence; absent readings
// are not given, as the callers of Counter and Sum do.
type reading struct {
	v      uint64
	absent bool
	// the change Next gives and the total Add gives
	change uint64
	known  bool
	total  uint64
}

// dropSequence is a counter that is reset (10, 5), misses a reading, and
// goes on: the change from 10 to 5 is unknown, the next counts from 5,
// and the one after the absent reading runs from the last one there was.
var dropSequence = []reading{
	{v: 10, change: 0, known: false, total: 0}, // the baseline
	{v: 12, change: 2, known: true, total: 2},
	{v: 5, change: 0, known: false, total: 2}, // a reset: left out
	{v: 8, change: 3, known: true, total: 5},  // counted from the new reading
	{absent: true},
	{v: 11, change: 3, known: true, total: 8}, // from 8, the last reading there was
	{v: 11, change: 0, known: true, total: 8},
}

// Counter gives each reading's change, Sum the total of the changes, by
// the same rule.
func TestCounterAndSum(t *testing.T) {
	var c Counter[uint64]
	var s Sum[uint64]
	for i, r := range dropSequence {
		if r.absent {
			continue
		}
		change, knownC := c.Next(r.v)
		total, knownS := s.Add(r.v)
		if change != r.change || knownC != r.known || total != r.total || knownS != r.known {
			t.Errorf("reading %d (%d): Next %d, %v and Add %d, %v; want %d, %v and %d",
				i, r.v, change, knownC, total, knownS, r.change, r.known, r.total)
		}
	}
	// Another counter: its first reading's change is unknown, however
	// high it is, and the total goes on from it.
	c.Restart()
	s.Restart()
	for _, r := range []reading{{v: 3, total: 8}, {v: 4, change: 1, known: true, total: 9}, {v: 100, change: 96, known: true, total: 105}} {
		change, knownC := c.Next(r.v)
		total, knownS := s.Add(r.v)
		if change != r.change || knownC != r.known || total != r.total || knownS != r.known {
			t.Errorf("after Restart, %d: Next %d, %v and Add %d, %v; want %d, %v and %d",
				r.v, change, knownC, total, knownS, r.change, r.known, r.total)
		}
	}
}

func TestHold(t *testing.T) {
	var h Held[time.Duration]
	for _, c := range []struct{ in, want time.Duration }{
		{-3, -3}, // the first value stands, whatever it is
		{5, 5},
		{4, 5}, // a dip is held at the highest
		{5, 5},
		{9, 9},
		{0, 9},
	} {
		if got := h.Hold(c.in); got != c.want {
			t.Errorf("Hold(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

// A figure held where it is read never goes back, so the rule counts its
// dip once: 10, 9 (a process exited, not reaped yet), 10 (reaped) is no
// change at all; taken as it was read, the climb back would count 1 again.
func TestHeldDipIsNoReset(t *testing.T) {
	var h Held[uint64]
	var held, raw Sum[uint64]
	var totalHeld, totalRaw uint64
	for _, v := range []uint64{10, 9, 10, 12} {
		totalHeld, _ = held.Add(h.Hold(v))
		totalRaw, _ = raw.Add(v)
	}
	if totalHeld != 2 || totalRaw != 3 {
		t.Errorf("held %d, as read %d; want 2 and 3", totalHeld, totalRaw)
	}
}
