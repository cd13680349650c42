package usage

import (
	"sort"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
)

// MaxHeldSamples bounds the samples a History holds: 4096 points of about
// 350 bytes, 1.4 MiB. At one sample a second that is the last 68 minutes
// whole; a longer run is thinned (see History), so that a 6-hour job is
// still held from its first second, one sample every 8 seconds or so.
const MaxHeldSamples = 1 << 12

// History holds the samples of a run, as a Window keeps them, so that the
// usage of a phase reported after it ended (its start and end given as
// times) is computed by the same Window as that of a phase whose
// boundaries were sampled as they came (Over).
//
// It holds at most MaxHeldSamples. When it is full it is thinned: it keeps
// its first sample and then each one at least a gap after the one kept
// before it, the gap chosen so that about half are kept, and from then on
// it takes new samples at that gap. The last sample given is always held,
// whatever the gap, so that a window that ends just before it has its end.
// A sample dropped passes its memory figures on to the next one kept, so
// that a memory peak is not lost with it. The figures over a window are as
// exact as ever for counters (CPU seconds, bytes, stall time: deltas
// between two held samples); the window's ends and its peaks are as fine
// as the samples held.
//
// A History is not safe for concurrent use: it is fed, and read, by
// functions the Sampler calls with one sample at a time.
type History struct {
	points []point // their counters are the totals of tot
	gap    time.Duration
	tot    totals
}

// Add holds s (its figures are copied).
func (h *History) Add(s *hostmetrics.Sample) { h.add(pointOf(s)) }

func (h *History) add(p point) {
	n := len(h.points)
	if n > 0 && !p.t.After(h.points[n-1].t) {
		return // a sample seen already (a sink given it twice), or a clock that went back
	}
	h.tot.apply(&p)
	// The last point was held only because it was the last: it goes when
	// it is closer than gap to the one before it.
	if n >= 2 && h.points[n-1].t.Sub(h.points[n-2].t) < h.gap {
		fold(&p, &h.points[n-1])
		h.points[n-1] = p
		return
	}
	if n == MaxHeldSamples {
		h.thin()
	}
	h.points = append(h.points, p)
}

// thin doubles the gap at least, to about twice the mean spacing of the
// points held, and keeps the points that are that far apart.
func (h *History) thin() {
	n := len(h.points)
	span := h.points[n-1].t.Sub(h.points[0].t)
	h.gap = max(2*h.gap, 2*span/time.Duration(n), time.Nanosecond)
	kept := h.points[:1]
	for i := 1; i < n; i++ {
		p := h.points[i]
		if i < n-1 && p.t.Sub(kept[len(kept)-1].t) < h.gap {
			fold(&h.points[i+1], &p) // its memory goes on to the next
			continue
		}
		kept = append(kept, p)
	}
	clear(h.points[len(kept):])
	h.points = kept
}

// fold gives p the memory peaks of the dropped point d, which came before
// it, and its reset of the job's CPU time: a span of the peaks ends at
// neither.
func fold(p, d *point) {
	p.cpuKnown = p.cpuKnown && d.cpuKnown
	if d.hasMem {
		p.mem, p.hasMem = max(p.mem, d.mem), true
	}
	if d.hasSysMem {
		p.sysMem, p.hasSysMem = max(p.sysMem, d.sysMem), true
	}
}

// Len is how many samples are held.
func (h *History) Len() int { return len(h.points) }

// Gap is the least time between two held samples but the last two: 0 until
// the History was first thinned.
func (h *History) Gap() time.Duration { return h.gap }

// Span is the part of a phase's window that the usage of Over covers: from
// the held sample From to the held sample To.
type Span struct{ From, To time.Time }

// Over returns the usage of a phase from start to end, computed by a
// Window from the held samples: it begins at the last sample at or before
// start and ends at the first at or after end, so it covers the whole
// phase and at most the time between two samples beyond each end (the
// counters of the samples around a phase, not a share of them guessed by
// interpolation). A phase that began before the first sample held is
// covered from that sample; one that ends after the last is covered up to
// it. ok is false when no two samples bound any of it: the phase ended
// before the first sample held or began after the last, or fewer than two
// are held.
func (h *History) Over(start, end time.Time) (u Usage, covered Span, ok bool) {
	n := len(h.points)
	if n < 2 || end.Before(start) {
		return Usage{}, Span{}, false
	}
	// i: the last point at or before start, else the first; j: the first
	// at or after end, else the last.
	i := sort.Search(n, func(k int) bool { return h.points[k].t.After(start) }) - 1
	i = max(i, 0)
	j := sort.Search(n, func(k int) bool { return !h.points[k].t.Before(end) })
	j = min(j, n-1)
	if j <= i {
		return Usage{}, Span{}, false
	}
	var w Window
	w.beginAt(h.points[i])
	for k := i + 1; k < j; k++ {
		w.addAt(h.points[k])
	}
	return w.endAt(h.points[j]), Span{From: h.points[i].t, To: h.points[j].t}, true
}
