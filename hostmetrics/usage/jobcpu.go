package usage

import (
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/monotonic"
)

// JobCPU joins the readings of the job's CPU time, given in order, into
// the spans of PeakSpans, and says whose share each sample shows: the
// job's counterpart of HostCPU, and the one rule of the job's CPU share
// sample by sample. resource-usage.csv's job_cpu_pct shows it (and so
// report.html's and usage.svg's line of the job's CPU and the crosshair's
// values, drawn from it); the statistics of a run (runmodel.Series), its
// right-sizing advice (its CPUs busy, JobBusy) and profile.json's CPU
// samples and counter (render/profile, from the rows) take their rates
// over its spans.
//
// The job's process tree counts its CPU time in clock ticks of 10 ms, and
// the samples of phase boundaries can be a few milliseconds apart: over
// such a span the tree's CPU time moves by a tick or none, and its share
// reads 0 %, 100 % or more. So, as for the machine's share, a sample shows
// the share of the last span of at least MinPeakSpan that has ended by it;
// one sooner after that span's end shows it again, and the time since goes
// on to the next sample's span. The run's last sample, come sooner,
// lengthens the span before it and shows that one. A sample before the
// first span has ended, and one without a new reading of the job's CPU
// time (its tree not walked for it), show none.
//
// A reading is timed as resource-usage.csv writes it: when it was made
// (for the tree, its walk: hostmetrics.Sample.ReadAt), to the millisecond
// (CPUReadAt), so that the spans of a run's samples are those of its rows
// read back, which a span of 199.9 ms, joined to the next or not by a
// fraction of a millisecond, would otherwise tell apart. User and system
// time are each summed by the rule of package monotonic, both restarting
// when a reading is made elsewhere than the last (the tree after the
// job's cgroup). The machine's CPUs are the last known.
//
// The zero JobCPU has had no reading. It holds a fixed amount of memory
// and is copied as a value.
type JobCPU struct {
	user, sys monotonic.Sum[time.Duration]
	from      hostmetrics.From
	numCPU    int
	spans     shownSpans[JobCPUTotal]
}

// Take takes a reading of the job's CPU time, user and system time read at
// t from from (hostmetrics.FromNone for the rows of resource-usage.csv,
// whose changes are summed from the first row), on a machine of numCPU
// CPUs (0 when not known), when has says there is a new one; last is set
// for the run's last sample. It returns the spans the reading completes,
// as PeakSpans.Take does.
func (j *JobCPU) Take(t time.Time, user, sys time.Duration, from hostmetrics.From, numCPU int, has, last bool) ([2]PeakSpan[JobCPUTotal], int) {
	if numCPU > 0 {
		j.numCPU = numCPU
	}
	if !has {
		return j.spans.take(t, JobCPUTotal{}, false, false, last)
	}
	if from != j.from {
		j.user.Restart()
		j.sys.Restart()
		j.from = from
	}
	tu, ku := j.user.Add(user)
	ts, ks := j.sys.Add(sys)
	return j.spans.take(CPUReadAt(t), JobCPUTotal{Used: tu + ts, NumCPU: j.numCPU}, true, ku && ks, last)
}

// Shown returns the span whose share the sample last taken shows
// (JobShare). false when the sample shows none.
func (j *JobCPU) Shown() (PeakSpan[JobCPUTotal], bool) { return j.spans.shown, j.spans.shows }

// Held returns the span held back (PeakSpans.Held), which statistics taken
// before the last sample count.
func (j *JobCPU) Held() (PeakSpan[JobCPUTotal], bool) { return j.spans.spans.Held() }

// CPUReadAt is the time a reading of the job's CPU time is taken at for its
// spans: when it was made, to the millisecond, as resource-usage.csv writes
// a row's time (time_utc). A Window times its readings so too, and
// profile.json its samples within the spans.
func CPUReadAt(t time.Time) time.Time { return t.Truncate(time.Millisecond) }

// JobCPUTotal is a reading of the job's CPU time for its rates: user and
// system time together, as a total of their changes (by the rule of
// package monotonic), and the machine's CPUs it is a share of.
type JobCPUTotal struct {
	Used   time.Duration
	NumCPU int
}

// JobShare is the job's share of the machine's CPUs over the span sp
// (hostmetrics.CPUShare, at most all of them): a Window's peak, a row's
// job_cpu_pct, and a rate of the statistics of a run.
func JobShare(sp *PeakSpan[JobCPUTotal]) (float64, bool) {
	return hostmetrics.CPUShare(sp.To.Used-sp.From.Used, sp.D, sp.To.NumCPU)
}

// JobBusy is the CPUs the job kept busy over the span sp: its share of the
// machine's CPUs times their number (JobShare), or, when that number is
// not known, its CPU time over the span's length. The right-sizing
// advice's CPUs busy, and the CPU time profile.json's samples spread over
// the span.
func JobBusy(sp *PeakSpan[JobCPUTotal]) float64 {
	if share, ok := JobShare(sp); ok {
		return share * float64(sp.To.NumCPU)
	}
	return (sp.To.Used - sp.From.Used).Seconds() / sp.D.Seconds()
}
