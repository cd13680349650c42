package hostmetrics

import (
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics/monotonic"
)

// The shares of CPU every artifact gives are taken here, by the rule of
// package monotonic: the machine's (BusyShare) in a phase's usage, a row of
// resource-usage.csv, the statistics of a run and the OTel utilization
// metric; the job's (CPUShare) in the same places. The spans a row's or a
// sample's share is taken over, at least 200 ms, are those of
// usage.HostCPU for the machine's and of usage.JobCPU for the job's.
// docs/sampling.md ("Counters") says the rule.

// CPUChange is the machine's CPU time in each mode from the reading a to
// the later reading b, each mode a counter of its own taken by the rule of
// package monotonic (monotonic.Change): a mode whose time went back (a
// CPU's idle time the kernel moved to iowait, a CPU gone offline) has an
// unknown change, which counts for none, and the next change of it counts
// from b.
func CPUChange(a, b *CPUTimes) CPUTimes {
	var d CPUTimes
	da, db, dd := a.modes(), b.modes(), d.modes()
	for i := range dd {
		*dd[i], _ = monotonic.Change(*da[i], *db[i])
	}
	return d
}

// modes are the modes' times, in one order.
func (c *CPUTimes) modes() [numCPUModes]*float64 {
	return [numCPUModes]*float64{&c.User, &c.Nice, &c.System, &c.Idle, &c.IOWait, &c.IRQ, &c.SoftIRQ, &c.Steal}
}

// numCPUModes is the number of fields of CPUTimes.
const numCPUModes = 8

// BusyShare is the share of the machine's CPU time from the reading a to
// the later reading b that was busy, 0 to 1: the busy modes' changes (see
// Busy) over every mode's, each by CPUChange; false when no CPU time is
// known to have passed. Given totals that never go back (CPUTotals), it is
// the share over the changes summed between them.
func BusyShare(a, b *CPUTimes) (float64, bool) {
	d := CPUChange(a, b)
	total := d.Total()
	if total <= 0 {
		return 0, false
	}
	return min(d.Busy()/total, 1), true
}

// CPUTotals sums the machine's CPU time mode by mode from its first
// reading, by CPUChange's rule (monotonic.Sum): the totals never go back,
// and two of them differ by the changes between their readings summed. A
// phase's usage and the statistics of a run take their shares between
// totals, so that a reading in between with a mode that went back counts as
// it does in the CSV's rows. The zero CPUTotals has had no reading.
type CPUTotals struct {
	sums [numCPUModes]monotonic.Sum[float64]
}

// Add takes the reading c and returns the totals up to it.
func (t *CPUTotals) Add(c *CPUTimes) CPUTimes {
	var out CPUTimes
	in, o := c.modes(), out.modes()
	for i := range o {
		*o[i], _ = t.sums[i].Add(*in[i])
	}
	return out
}

// CPUShare is the share of the machine's CPU time over span (span × numCPU)
// that used is, 0 to 1: the job's CPU utilization between two readings of
// its CPU time, span apart (for the job's tree, the span between its walks:
// Sample.ReadAt of Job.CPUFrom). used is the change of the CPU time between
// them by the rule of package monotonic, never negative: the caller judges
// a figure that went back, by that rule. Tree figures move in clock ticks,
// so over a short span the share can pass 1: it is capped. false when the
// span is empty or there are no CPUs.
func CPUShare(used, span time.Duration, numCPU int) (float64, bool) {
	if span <= 0 || numCPU <= 0 {
		return 0, false
	}
	return min(used.Seconds()/(span.Seconds()*float64(numCPU)), 1), true
}
