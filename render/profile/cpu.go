package profile

import (
	"math"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/internal/readback"
)

// spreadCPU sets the CPU time of each row after the first that read the
// job's CPU time to its part of the span of usage.JobCPU it is in: the
// spans of at least 200 ms between the readings that resource-usage.csv's
// job_cpu_pct, the statistics of the run and its advice take their shares
// over, here made from the rows' changes summed. A row's part is the
// span's CPUs busy (usage.JobBusy) over the time since the previous row
// that read it, to the microsecond, so that the rows of a span sum to its
// CPU time: the CPU samples and counter show each span's share at every
// row in it, where the rows of phase boundaries a few milliseconds apart
// had the 10 ms clock ticks of a process tree over a few milliseconds (0 %
// or several CPUs), and the call tree's CPU time per phase is as fine as
// the spans. A row in no span (the readings after the last span, at the
// end of a run whose last row has none) has none.
func spreadCPU(rows []Row) {
	var j usage.JobCPU
	var spans []usage.PeakSpan[usage.JobCPUTotal]
	var total float64
	for i := range rows {
		r := &rows[i]
		has := i == 0 || r.CPU.OK
		if i > 0 && r.CPU.OK {
			total += r.CPU.V
		}
		cpus := 0
		if r.CPUs.OK {
			cpus = int(r.CPUs.V)
		}
		done, n := j.Take(r.Time, readback.Seconds(total), 0, hostmetrics.FromNone, cpus, has, i == len(rows)-1)
		spans = append(spans, done[:n]...)
	}
	k := 0
	var prev time.Time // when the last row that read the CPU time did
	for i := range rows {
		r := &rows[i]
		if i > 0 && !r.CPU.OK {
			continue
		}
		from, to := prev, usage.CPUReadAt(r.Time)
		prev = to
		if i == 0 {
			continue
		}
		for ; k < len(spans); k++ {
			if _, end := spans[k].Times(); !end.Before(to) {
				break
			}
		}
		if k == len(spans) {
			r.CPU = Opt{}
			continue
		}
		if start, _ := spans[k].Times(); start.After(from) {
			r.CPU = Opt{}
			continue
		}
		r.CPU = Opt{(cpuUntil(&spans[k], to) - cpuUntil(&spans[k], from)).Seconds(), true}
	}
}

// cpuUntil is the CPU time of the span sp from its start until t, inside
// it: its CPUs busy over that time, to the microsecond; at its end, the
// whole.
func cpuUntil(sp *usage.PeakSpan[usage.JobCPUTotal], t time.Time) time.Duration {
	a, b := sp.Times()
	whole := time.Duration(math.Round(usage.JobBusy(sp) * float64(sp.D)))
	if !t.Before(b) {
		return whole
	}
	return time.Duration(float64(whole) * float64(t.Sub(a)) / float64(sp.D)).Round(time.Microsecond)
}
