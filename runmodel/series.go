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

func (r *running) stat() Stat {
	s := Stat{N: r.n, Peak: r.peak, HasPeak: r.hasPeak}
	if r.n > 0 {
		s.Mean = r.mean
		s.StdDev = math.Sqrt(max(r.m2, 0) / r.w)
	}
	return s
}

// anchor turns a cumulative counter, of one part or of two read together
// (a job's user and system CPU time, bytes read and written), into rates
// over spans of at least usage.MinPeakSpan. Each part's changes are taken
// by the rule of package monotonic (monotonic.Sum), as resource-usage.csv
// writes them in columns of their own, and the anchor holds their total
// where the current span began.
type anchor struct {
	parts [2]monotonic.Sum[float64]
	from  hostmetrics.From // where the parts were last read
	t     time.Time
	v     float64
	ok    bool
}

// next takes the counter's reading v at t. When the span since the anchor
// is long enough it returns the rate per second over it and the span in
// seconds, and starts the next span at t. A reading whose change is
// unknown (a reset: a device or interface went away, a counter wrapped)
// leaves the span open, to end at the next reading with its changes
// since: the reset's change is left out, as the CSV's empty cell is. An
// absent value leaves the span open too. The last sample of the job ends
// the span however short it is, so the work done just before the job's end
// is counted; its rate is taken over at least MinPeakSpan.
func (a *anchor) next(t time.Time, v float64, has, last bool) (perSec, sec float64, ok bool) {
	if !has {
		return 0, 0, false
	}
	total, known := a.parts[0].Add(v)
	return a.advance(t, total, known, last)
}

// next2 is next for a counter of two parts, x and y, read from from: a
// change of place is a reset of both. The reading's change is known when
// both parts' are; the changes known of either count in the next span.
func (a *anchor) next2(t time.Time, x, y float64, from hostmetrics.From, has, last bool) (perSec, sec float64, ok bool) {
	if !has {
		return 0, 0, false
	}
	if from != a.from {
		a.parts[0].Restart()
		a.parts[1].Restart()
		a.from = from
	}
	tx, kx := a.parts[0].Add(x)
	ty, ky := a.parts[1].Add(y)
	return a.advance(t, tx+ty, kx && ky, last)
}

func (a *anchor) advance(t time.Time, v float64, known, last bool) (perSec, sec float64, ok bool) {
	if !a.ok {
		a.t, a.v, a.ok = t, v, true
		return 0, 0, false
	}
	d := t.Sub(a.t)
	if !known || d <= 0 || (d < usage.MinPeakSpan && !last) {
		return 0, 0, false
	}
	sec = d.Seconds()
	// A last span shorter than MinPeakSpan is taken as if it were that
	// long: its work counts, without the burst a few clock ticks over a
	// few milliseconds would make.
	perSec = (v - a.v) / max(sec, usage.MinPeakSpan.Seconds())
	a.t, a.v = t, v
	return perSec, sec, true
}

// Series is a sampler sink that keeps running statistics of the job's
// resource usage over its samples:
//
//   - job CPU: percent of all CPUs, from Job.CPU() deltas;
//   - host CPU: percent of all CPUs not idle (iowait counts as idle);
//   - job memory: bytes, Job.Memory() at each reading;
//   - host disk operations per second (reads + writes);
//   - IO throughput in bytes per second: the job's own (Job.IO()), and
//     the host's disks, which the summary shows when the job's is absent;
//   - host network throughput in bytes per second, received + sent;
//   - the figures of the job's right-sizing advice (sizer: the CPUs it
//     kept busy, in a histogram of fixed size, its peak memory, memory
//     stall, OOM kills and the machine's swap), read from each sample as
//     they are from each row of resource-usage.csv after the run.
//
// Rates are taken between readings at least usage.MinPeakSpan apart: a
// shorter span (two boundary samples can be a millisecond apart, and CPU
// time moves in 10 ms ticks) is joined to the next; the last sample ends
// the last span whatever its length.
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

	cpuAt, jobIOAt                        anchor
	opsAt, diskAt, netAt, busyAt, totalAt anchor
	memT                                  time.Time // when the last memory reading was made
	memOK                                 bool

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
	se.sizer.observe(&r, last)

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

	if u, sy, ok := j.CPU(); ok {
		from := j.CPUFrom()
		if r, sec, ok := se.cpuAt.next2(s.ReadAt(from), u.Seconds(), sy.Seconds(), from, true, last); ok && s.Host.NumCPU > 0 {
			se.cpu.add(100*min(r/float64(s.Host.NumCPU), 1), sec)
		}
	}
	if rd, wr, ok := j.IO(); ok {
		from := j.IOFrom()
		if r, sec, ok := se.jobIOAt.next2(s.ReadAt(from), float64(rd), float64(wr), from, true, last); ok {
			se.jobIO.add(r, sec)
		}
	}

	h := &s.Host
	busy, total := h.CPU.Busy(), h.CPU.Total()
	b, secB, okB := se.busyAt.next(s.Time, busy, h.HasCPU, last)
	tot, _, okT := se.totalAt.next(s.Time, total, h.HasCPU, last)
	if okB && okT && tot > 0 {
		se.hostCPU.add(100*min(b/tot, 1), secB)
	}
	d := &h.Disk
	if r, sec, ok := se.opsAt.next2(s.Time, float64(d.Reads), float64(d.Writes), hostmetrics.FromNone, h.HasDisk, last); ok {
		se.iops.add(r, sec)
	}
	if r, sec, ok := se.diskAt.next2(s.Time, float64(d.ReadBytes), float64(d.WrittenBytes), hostmetrics.FromNone, h.HasDisk, last); ok {
		se.hostIO.add(r, sec)
	}
	if r, sec, ok := se.netAt.next2(s.Time, float64(h.Net.RxBytes), float64(h.Net.TxBytes), hostmetrics.FromNone, h.HasNet, last); ok {
		se.network.add(r, sec)
	}
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

// Stats returns the statistics so far.
func (se *Series) Stats() JobStats {
	se.mu.Lock()
	defer se.mu.Unlock()
	st := JobStats{
		Samples: se.samples, NumCPU: se.numCPU,
		CPU: se.cpu.stat(), HostCPU: se.hostCPU.stat(), Memory: se.memory.stat(),
		IOPS: se.iops.stat(), IO: se.jobIO.stat(), Network: se.network.stat(),
		Sizing: se.sizer.figures(),
	}
	if se.jobIO.n == 0 && se.hostIO.n > 0 {
		st.IO, st.IOHost = se.hostIO.stat(), true
	}
	return st
}
