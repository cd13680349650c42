package rundiff

import "math"

// Noise is the rule that tells a change from noise, for one figure: a
// change is "same" unless it is at least Abs and at least Rel of the base
// figure. Both are needed: a phase of 0.2 s that takes 0.4 s is twice as
// long but within what a busy scheduler moves it by, and a phase of 20
// minutes that takes 2 s more is not slower in any sense that matters.
type Noise struct {
	Abs float64 // in the figure's unit
	Rel float64 // share of the base figure
}

// MiB is a mebibyte, in bytes.
const MiB = 1 << 20

// NoiseOf returns the noise rule of figure f (docs/diff.md, "Noise").
//
// Durations move by a few hundred milliseconds between two runs of the
// same job on a shared machine (start-up of a tool, the page cache, the
// scheduler), and CPU time by less, since a process that waits costs none;
// 10 % is the spread of repeated CI runs of the same commit. Memory and IO
// move with allocator and file-system caches: a few MiB is noise.
func NoiseOf(f Figure) Noise {
	switch f {
	case Duration:
		return Noise{Abs: 0.5, Rel: 0.10}
	case CPUTime:
		return Noise{Abs: 0.25, Rel: 0.10}
	case CPUsBusy:
		return Noise{Abs: 0.1, Rel: 0.10}
	case MemoryPeak, DiskIO:
		return Noise{Abs: 8 * MiB, Rel: 0.10}
	}
	// The machine's figures are shares (0–1): a change of 10 points.
	return Noise{Abs: 0.10, Rel: 0}
}

// Direction is how a figure changed.
type Direction int

// The directions of a change.
const (
	Same Direction = 0
	Up   Direction = 1
	Down Direction = -1
)

// changeOf is how a figure went from base to cur under the noise rule n.
func changeOf(base, cur float64, n Noise) Direction {
	d := cur - base
	if math.Abs(d) < n.Abs || math.Abs(d) < n.Rel*base {
		return Same
	}
	if d > 0 {
		return Up
	}
	return Down
}
