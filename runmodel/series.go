package runmodel

import (
	"math"
	"sync"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/monotonic"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/sizing"
)

// Stat describes one quantity over the job: its time-weighted mean and
// standard deviation, and its peak. N counts the observations in the
// mean; a quantity never observed has N == 0 and HasPeak false, and prints
// as "–".
type Stat struct {
	N       int
	Mean    float64
	StdDev  float64
	Peak    float64
	HasPeak bool
}

// running is a weighted form of Welford's online algorithm (West, 1979:
// "Updating mean and variance estimates: an improved method"): the mean
// and the sum of squared deviations are updated in place with each
// observation, so that a day of samples costs the same memory as one and
// no sum grows large enough to lose precision.
//
// Observations are weighted by the time they cover. Samples are not evenly
// spaced (phase boundaries add samples a few milliseconds apart), and
// without weights a burst of boundaries would count for more than a
// minute of steady work: with them, the mean CPU of the job is its CPU time
// over its duration, as the job's own usage says.
type running struct {
	n       int
	w       float64 // sum of weights
	mean    float64
	m2      float64 // sum of weighted squared deviations from the mean
	peak    float64
	hasPeak bool
}

// add takes x with weight w (seconds). An observation of weight 0 counts
// only for the peak.
func (r *running) add(x, w float64) {
	if !r.hasPeak || x > r.peak {
		r.peak, r.hasPeak = x, true
	}
	if w <= 0 {
		return
	}
	r.n++
	r.w += w
	d := x - r.mean
	r.mean += d * w / r.w
	r.m2 += w * d * (x - r.mean)
}

func (r running) stat() Stat {
	s := Stat{N: r.n, Peak: r.peak, HasPeak: r.hasPeak}
	if r.n > 0 {
		s.Mean = r.mean
		s.StdDev = math.Sqrt(max(r.m2, 0) / r.w)
	}
	return s
}

// rate turns a cumulative counter of two parts read together (bytes read
// and written, received and sent) into rates over the spans of
// usage.PeakSpans. Each part's changes are taken by the rule of package
// monotonic (monotonic.Sum), as resource-usage.csv writes them in columns
// of their own, and the spans' ends hold their total: a reset's change is
// left out. A reading's change is known when both parts' are. A reading
// from elsewhere than the last (the job's tree after its cgroup) is of
// another counter: both parts restart.
type rate struct {
	parts [2]monotonic.Sum[float64]
	from  hostmetrics.From // where the parts were last read
	spans usage.PeakSpans[float64]
}

// next takes the counter's reading (x, y), read at t from from, when has
// says there is one, and returns the spans it completes.
func (r *rate) next(t time.Time, x, y float64, from hostmetrics.From, has, last bool) ([2]usage.PeakSpan[float64], int) {
	if !has {
		return r.spans.Take(t, 0, false, false, last)
	}
	if from != r.from {
		r.parts[0].Restart()
		r.parts[1].Restart()
		r.from = from
	}
	tx, kx := r.parts[0].Add(x)
	ty, ky := r.parts[1].Add(y)
	return r.spans.Next(t, tx+ty, kx && ky, last)
}

// perSec is the rate over the span sp, per second.
func perSec(sp *usage.PeakSpan[float64]) float64 { return (sp.To - sp.From) / sp.D.Seconds() }

// Series is a sampler sink that keeps running statistics of the job's
// resource usage over its samples:
//
//   - job CPU: percent of all CPUs (usage.JobShare), over the spans of
//     usage.JobCPU, whose shares resource-usage.csv's rows show, and which
//     the sizer's CPUs busy are taken over too;
//   - host CPU: percent of all CPUs not idle, iowait counting as idle
//     (usage.HostShare), over the spans of usage.HostCPU, whose shares
//     resource-usage.csv's rows show;
//   - job memory: bytes, Job.Memory() at each reading; its peak is the
//     job's own cgroup's memory.peak when higher (Job.MemoryPeak), as the
//     job's usage takes it;
//   - host disk operations per second (reads + writes);
//   - IO throughput in bytes per second: the job's own (Job.IO()), and
//     the host's disks, which the summary shows when the job's is absent;
//   - host network throughput in bytes per second, received + sent;
//   - the figures of the job's right-sizing advice (sizer: the CPUs it
//     kept busy, in a histogram of fixed size, its peak memory, memory
//     stall, OOM kills and the machine's swap), read from each sample as
//     they are from each row of resource-usage.csv after the run.
//
// Rates are taken over the spans of usage.PeakSpans, the rule by which the
// job's usage (usage.Window) takes its peaks: spans of at least
// usage.MinPeakSpan, a shorter one joined to the next, the last to the one
// before. So the spans cover the job's samples from the first to the last,
// the mean of the job's CPU is its CPU time over that time, and the peaks
// are the job's usage's.
//
// The job's figures are timed by when they were read: a large process tree
// is walked less often than samples are taken, and the samples in between
// carry the last walk's figures (Tree.At says when). Taken at the sample's
// time they would show no CPU between walks and a burst at each walk;
// taken at the walk's time, a rate spans the time between two walks.
//
// A Series holds a fixed amount of memory and allocates nothing per
// sample. It is safe to read while the sampler runs.
type Series struct {
	mu      sync.Mutex
	samples int
	numCPU  int

	jobIOAt              rate
	opsAt, diskAt, netAt rate
	hostAt               usage.HostCPU
	memT                 time.Time // when the last memory reading was made
	memOK                bool
	memHigh              uint64 // the job's cgroup's memory.peak
	hasMemHigh           bool

	cpu, hostCPU, memory, iops, jobIO, hostIO, network running

	sizer sizer
}

var _ hostmetrics.Sink = (*Series)(nil)

// NewSeries returns an empty Series.
func NewSeries() *Series { return &Series{} }

// Sample implements hostmetrics.Sink.
func (se *Series) Sample(s *hostmetrics.Sample) {
	se.mu.Lock()
	defer se.mu.Unlock()
	se.samples++
	if s.Host.NumCPU > 0 {
		se.numCPU = s.Host.NumCPU
	}
	j := &s.Job
	last := s.Reason == hostmetrics.ReasonEnd
	r := readingOf(s)
	cpu, n := se.sizer.observe(&r, last)
	for i := range cpu[:n] {
		addJobCPU(&se.cpu, &cpu[i])
	}

	// Memory is a gauge: each new reading stands for the time since the
	// previous one; the first counts only for the peak.
	if m, ok := j.Memory(); ok {
		t := s.ReadAt(j.MemoryFrom())
		switch {
		case !se.memOK:
			se.memory.add(float64(m), 0)
			se.memT, se.memOK = t, true
		case t.After(se.memT):
			se.memory.add(float64(m), t.Sub(se.memT).Seconds())
			se.memT = t
		}
	}
	if p, ok := j.MemoryPeak(); ok {
		se.memHigh, se.hasMemHigh = max(se.memHigh, p), true
	}

	h := &s.Host
	host, n := se.hostAt.Take(s.Time, &h.CPU, h.HasCPU, last)
	for i := range host[:n] {
		addHostCPU(&se.hostCPU, &host[i])
	}

	rd, wr, ok := j.IO()
	from := j.IOFrom()
	se.jobIOAt.take(&se.jobIO, s.ReadAt(from), float64(rd), float64(wr), from, ok, last)
	d := &h.Disk
	none := hostmetrics.FromNone
	se.opsAt.take(&se.iops, s.Time, float64(d.Reads), float64(d.Writes), none, h.HasDisk, last)
	se.diskAt.take(&se.hostIO, s.Time, float64(d.ReadBytes), float64(d.WrittenBytes), none, h.HasDisk, last)
	se.netAt.take(&se.network, s.Time, float64(h.Net.RxBytes), float64(h.Net.TxBytes), none, h.HasNet, last)
}

// take takes the reading (x, y), when has says there is one, into the
// spans of r and the rates of the spans it completes into st.
func (r *rate) take(st *running, t time.Time, x, y float64, from hostmetrics.From, has, last bool) {
	spans, n := r.next(t, x, y, from, has, last)
	for i := range spans[:n] {
		addRate(st, &spans[i])
	}
}

// addJobCPU takes the job's share of all CPUs over sp into r, in percent.
func addJobCPU(r *running, sp *usage.PeakSpan[usage.JobCPUTotal]) {
	if share, ok := usage.JobShare(sp); ok {
		r.add(100*share, sp.D.Seconds())
	}
}

// addHostCPU takes the machine's busy share over sp into r, in percent.
func addHostCPU(r *running, sp *usage.PeakSpan[hostmetrics.CPUTimes]) {
	if share, ok := usage.HostShare(sp); ok {
		r.add(100*share, sp.D.Seconds())
	}
}

// addRate takes the rate per second over sp into r.
func addRate(r *running, sp *usage.PeakSpan[float64]) { r.add(perSec(sp), sp.D.Seconds()) }

// withHeld is r with the span held back by spans (usage.PeakSpans.Held)
// taken into it by add: the statistics so far, before the last sample.
func withHeld[R any](r running, spans interface {
	Held() (usage.PeakSpan[R], bool)
}, add func(*running, *usage.PeakSpan[R])) running {
	if sp, ok := spans.Held(); ok {
		add(&r, &sp)
	}
	return r
}

// JobStats is what Series measured over the job.
type JobStats struct {
	Samples int
	NumCPU  int // the CPUs of the last sample; 0 when unknown
	// CPU and HostCPU are in percent of all CPUs, 0–100.
	CPU, HostCPU Stat
	Memory       Stat // bytes
	IOPS         Stat // host disk operations per second
	// IO is in bytes per second: the job's own storage IO, or, when
	// IOHost is set, the host's disks because the job's could not be read.
	IO      Stat
	IOHost  bool
	Network Stat // host bytes per second, received + sent
	// Sizing are the figures of the right-sizing advice (Run.Advice).
	Sizing sizing.Figures
}

// Stats returns the statistics so far: with the spans the last sample
// has ended, the job's; before it, the spans held back count as they are.
func (se *Series) Stats() JobStats {
	se.mu.Lock()
	defer se.mu.Unlock()
	memory := se.memory
	if se.hasMemHigh && (!memory.hasPeak || float64(se.memHigh) > memory.peak) {
		memory.peak, memory.hasPeak = float64(se.memHigh), true
	}
	st := JobStats{
		Samples: se.samples, NumCPU: se.numCPU,
		CPU:     withHeld(se.cpu, &se.sizer.cpuAt, addJobCPU).stat(),
		HostCPU: withHeld(se.hostCPU, &se.hostAt, addHostCPU).stat(),
		Memory:  memory.stat(),
		IOPS:    withHeld(se.iops, &se.opsAt.spans, addRate).stat(),
		IO:      withHeld(se.jobIO, &se.jobIOAt.spans, addRate).stat(),
		Network: withHeld(se.network, &se.netAt.spans, addRate).stat(),
		Sizing:  se.sizer.figures(),
	}
	if hostIO := withHeld(se.hostIO, &se.diskAt.spans, addRate); st.IO.N == 0 && hostIO.n > 0 {
		st.IO, st.IOHost = hostIO.stat(), true
	}
	return st
}
