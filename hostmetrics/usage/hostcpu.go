package usage

import (
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
)

// HostCPU joins the machine's CPU readings of a run's samples, given in
// order, into the spans of PeakSpans, and says whose share each sample
// shows: the one rule of the machine's CPU share sample by sample, in
// resource-usage.csv's host_cpu_pct (and so in report.html's and
// usage.svg's line, drawn from it) and in the system.cpu.utilization
// metric, and the spans whose shares the statistics of a run take
// (runmodel.Series).
//
// /proc/stat counts each CPU's time in clock ticks of 10 ms, and the
// samples of phase boundaries can be a few milliseconds apart: over such a
// span the machine's CPU time moves by one tick or none, and its share
// reads 0 %, 100 % or nothing. So a sample shows the share of the last
// span that has ended by it, at least MinPeakSpan long: a sample sooner
// after that span's end shows its share again, and the time since goes on
// to the next sample's span. The run's last sample, come sooner, lengthens
// the span before it and shows that one. A sample before the first span
// has ended, and one without a reading of the machine's CPU time, show
// none. Each mode's change is summed by the rule of package monotonic
// (hostmetrics.CPUTotals), a change not known counting for none.
//
// The zero HostCPU has had no reading. It holds a fixed amount of memory
// and is copied as a value.
type HostCPU struct {
	totals hostmetrics.CPUTotals
	spans  shownSpans[hostmetrics.CPUTimes]
}

// Take takes a sample's reading c, made at t, when has says there is one;
// last is set for the run's last sample. It returns the spans the reading
// completes, as PeakSpans.Take does.
func (h *HostCPU) Take(t time.Time, c *hostmetrics.CPUTimes, has, last bool) (done [2]PeakSpan[hostmetrics.CPUTimes], n int) {
	var tot hostmetrics.CPUTimes
	if has {
		tot = h.totals.Add(c)
	}
	// A change of a mode not known counts for none
	// (hostmetrics.CPUChange): every reading ends a span.
	return h.spans.take(t, tot, has, true, last)
}

// Shown returns the span whose share the sample last taken shows, its ends
// totals of every mode: HostShare is its busy share, and
// hostmetrics.CPUChange of its ends each mode's time. false when the
// sample shows none.
func (h *HostCPU) Shown() (PeakSpan[hostmetrics.CPUTimes], bool) { return h.spans.shown, h.spans.shows }

// Held returns the span held back (PeakSpans.Held), which statistics taken
// before the last sample count.
func (h *HostCPU) Held() (PeakSpan[hostmetrics.CPUTimes], bool) { return h.spans.spans.Held() }
