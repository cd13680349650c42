package usage

import (
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
)

// PeakSpans joins the readings of a counter, given in order, into the
// spans its rates are taken over: the one rule by which a Window takes its
// peaks and the statistics of a run (runmodel.Series) their rates, so that
// the job's peaks in both are the same figures.
//
// A span lasts at least MinPeakSpan: a shorter one is joined to the next.
// The last reading ends the spans: a last span shorter than MinPeakSpan is
// joined to the one before it, so that the spans cover the readings from
// the first to the last, and the work done just before the end counts
// without the burst a few clock ticks over a few milliseconds would make;
// readings less than MinPeakSpan apart in all make one span. A reading
// made no later than the one the span began at (a figure of a tree not
// walked again) ends no span.
//
// Each reading is timed by when it was read: the job's figures read from
// its tree at the tree's walk (hostmetrics.Sample.ReadAt), others at the
// sample's time; the job's CPU time to the millisecond (CPUReadAt, as
// resource-usage.csv writes it). R is what a span's ends hold, a counter's totals (by the
// rule of package monotonic, so that the changes between two of them are
// those between their readings summed). The zero PeakSpans has had no
// reading.
type PeakSpans[R any] struct {
	open, held PeakSpan[R] // the open span's From; the span held back
	started    bool
	holds      bool
}

// PeakSpan is a span of PeakSpans: the readings at its ends and its length.
type PeakSpan[R any] struct {
	From, To R
	D        time.Duration
	at       time.Time // when From was read
}

// Next takes the reading r, read at t; known says whether its change is
// known, by the rule of package monotonic, and last is set for the last
// reading. It returns the spans r completes: none, one, or, at the last
// reading, two, in order.
//
// A reading whose change is unknown (a reset) ends no span: the span stays
// open, to end at the next reading with the changes known since, the
// reset's left out, as resource-usage.csv leaves the reset's cell empty
// and its rows summed give the same spans. The span that ended last is
// held back until the next ends (or until End or Held), since a last
// reading too close to it lengthens it.
func (s *PeakSpans[R]) Next(t time.Time, r R, known, last bool) (done [2]PeakSpan[R], n int) {
	if !s.started {
		s.open, s.started = PeakSpan[R]{From: r, at: t}, true
		return done, 0
	}
	d := t.Sub(s.open.at)
	switch {
	case !known || d <= 0:
		if last {
			done[0], n = s.End()
		}
		return done, n
	case d < MinPeakSpan && !last:
		return done, 0 // joined to the next
	case d < MinPeakSpan && s.holds:
		// The last, joined to the one before.
		s.held.To, s.held.D = r, t.Sub(s.held.at)
		done[0], n = s.End()
		s.open = PeakSpan[R]{From: r, at: t}
		return done, n
	}
	if s.holds {
		done[0], n = s.held, 1
	}
	s.held = PeakSpan[R]{From: s.open.From, To: r, D: d, at: s.open.at}
	s.holds = true
	s.open = PeakSpan[R]{From: r, at: t}
	if last {
		done[n], s.holds = s.held, false
		n++
	}
	return done, n
}

// Take is Next for a sample that may have no reading of the figure (has
// false): a sample without one ends no span, but the last ends the spans
// (End).
func (s *PeakSpans[R]) Take(t time.Time, r R, has, known, last bool) (done [2]PeakSpan[R], n int) {
	switch {
	case has:
		return s.Next(t, r, known, last)
	case last:
		done[0], n = s.End()
	}
	return done, n
}

// End ends the spans where the last reading has no figure (or one whose
// change is unknown): it returns the span held back, if there is one, as
// the last. The span still open since is left out.
func (s *PeakSpans[R]) End() (PeakSpan[R], int) {
	if !s.holds {
		return PeakSpan[R]{}, 0
	}
	s.holds = false
	return s.held, 1
}

// Held returns the span held back, if there is one: a span that has
// ended, which the next reading, were it the last and too close to it,
// would lengthen. Statistics taken before the last reading count it.
func (s *PeakSpans[R]) Held() (PeakSpan[R], bool) { return s.held, s.holds }

// Times returns when the span began and ended: when the readings at its
// ends were read.
func (sp *PeakSpan[R]) Times() (from, to time.Time) { return sp.at, sp.at.Add(sp.D) }

// shownSpans are the spans of PeakSpans and the one a sample shows: the
// last that has ended by it, which a sample sooner after its end shows
// again (the time since going on to the next sample's span), and, at the
// run's last sample, the span that sample ended or lengthened. A sample
// before the first span has ended, and one without a reading, show none.
// The rule of a share sample by sample, the machine's (HostCPU) and the
// job's (JobCPU).
type shownSpans[R any] struct {
	spans PeakSpans[R]
	shown PeakSpan[R]
	shows bool
}

// take is PeakSpans.Take, the span shown then set.
func (s *shownSpans[R]) take(t time.Time, r R, has, known, last bool) (done [2]PeakSpan[R], n int) {
	done, n = s.spans.Take(t, r, has, known, last)
	s.shown, s.shows = s.spans.Held()
	if !s.shows && n > 0 {
		// The last sample: the spans held back are done.
		s.shown, s.shows = done[n-1], true
	}
	s.shows = s.shows && has
	return done, n
}

// HostShare is the share of the machine's CPU time over the span sp that
// was busy (hostmetrics.BusyShare), its ends totals of CPUTotals.
func HostShare(sp *PeakSpan[hostmetrics.CPUTimes]) (float64, bool) {
	return hostmetrics.BusyShare(&sp.From, &sp.To)
}
