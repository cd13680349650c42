package sizing

import (
	"math"
	"time"
)

// The histogram of CPUs busy has log-linear buckets: BusySubBuckets
// buckets for each doubling, from MinBusyCPUs to MinBusyCPUs << BusyOctaves,
// plus one bucket for less than MinBusyCPUs (idle). Each bucket holds the
// time counted in it and the most CPUs counted in it. Its size is fixed,
// 2 × (1 + BusyOctaves×BusySubBuckets) float64s, 9 KiB, however long the
// job: a day of samples costs what a minute does. A value falls in a bucket
// no wider than 1/BusySubBuckets of it, so a quantile is known within 3 %.
const (
	// MinBusyCPUs is the smallest figure told apart from idle: 1/64 of a
	// CPU.
	MinBusyCPUs = 1.0 / 64
	// BusyOctaves is the doublings the buckets span: from 1/64 of a CPU
	// to 4096 CPUs. Figures above go in the last bucket (the peak is kept
	// exactly).
	BusyOctaves = 18
	// BusySubBuckets is the buckets per doubling.
	BusySubBuckets = 32
	// BusyBuckets is the buckets a BusyCPUs holds.
	BusyBuckets = 1 + BusyOctaves*BusySubBuckets
)

// OneCPUMargin is how far above one CPU a span must be to count as using
// more than one: a single thread kept busy reads a little over 1.0 now and
// then, its CPU time and the sample's time read a moment apart.
const OneCPUMargin = 0.1

// BusyCPUs is a histogram of the CPUs a job kept busy, each span of time
// weighted by its length: samples are not evenly spaced (the samples at
// phase boundaries come a few milliseconds apart), and unweighted, a burst
// of them would count for more than a minute of steady work. The zero
// value is empty; it allocates nothing.
type BusyCPUs struct {
	w        [BusyBuckets]float64 // seconds in each bucket
	top      [BusyBuckets]float64 // the most CPUs counted in each bucket
	total    float64              // seconds in all
	aboveOne float64              // seconds with more than 1+OneCPUMargin CPUs busy
	peak     float64
}

// Add counts d of time during which cpus CPUs were busy (CPU seconds per
// second), a rate of the changes of the job's CPU time taken by the rule of
// package monotonic, which are never negative. A span of no time, or a
// figure that is negative or not a number, counts for nothing: this is no
// second rule for a counter that went back.
func (b *BusyCPUs) Add(cpus float64, d time.Duration) {
	sec := d.Seconds()
	if sec <= 0 || !(cpus >= 0) {
		return
	}
	i := bucket(cpus)
	b.w[i] += sec
	b.top[i] = max(b.top[i], cpus)
	b.total += sec
	if cpus > 1+OneCPUMargin {
		b.aboveOne += sec
	}
	b.peak = max(b.peak, cpus)
}

// bucket is the index of the bucket of v ≥ 0.
func bucket(v float64) int {
	if v < MinBusyCPUs {
		return 0
	}
	// v/MinBusyCPUs = frac × 2^exp with frac in [0.5, 1).
	frac, exp := math.Frexp(v / MinBusyCPUs)
	oct := exp - 1
	if oct >= BusyOctaves {
		return BusyBuckets - 1
	}
	sub := int((2*frac - 1) * BusySubBuckets)
	return 1 + oct*BusySubBuckets + min(sub, BusySubBuckets-1)
}

// upper is the upper bound of bucket i.
func upper(i int) float64 {
	if i == 0 {
		return MinBusyCPUs
	}
	oct, sub := (i-1)/BusySubBuckets, (i-1)%BusySubBuckets
	return math.Ldexp(MinBusyCPUs*(1+float64(sub+1)/BusySubBuckets), oct)
}

// Time is the time counted.
func (b *BusyCPUs) Time() time.Duration { return seconds(b.total) }

// AboveOne is the time during which more than one CPU was busy (more than
// 1 + OneCPUMargin).
func (b *BusyCPUs) AboveOne() time.Duration { return seconds(b.aboveOne) }

// Peak is the most CPUs busy over any span.
func (b *BusyCPUs) Peak() float64 { return b.peak }

// Quantile returns CPUs busy that the job stayed at or below for at least
// a share q (0 to 1) of the time counted: the most counted in the bucket
// where that share is reached, a figure measured, at most 1/BusySubBuckets
// above the exact quantile. It is 0 when no time was counted.
func (b *BusyCPUs) Quantile(q float64) float64 {
	if b.total <= 0 {
		return 0
	}
	// A share reached exactly (half the time at one figure, half at
	// another) is reached whatever the rounding of the sums.
	want := min(max(q, 0), 1) * b.total * (1 - 1e-9)
	var sum float64
	for i, w := range b.w {
		sum += w
		if w > 0 && sum >= want {
			return b.top[i]
		}
	}
	return b.peak // rounding left want just above the sum
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
