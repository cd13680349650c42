package summary

import (
	"math"
	"sync"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/procfs"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
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

// counters is what Series keeps of a sample to take rates against the
// next: the cumulative counters only.
type counters struct {
	t          time.Time
	numCPU     int
	hasCPU     bool
	cpu        time.Duration // job user + system
	hasJobIO   bool
	jobIO      uint64 // job read + write bytes
	hasHostCPU bool
	hostCPU    procfs.CPUTimes
	hasDisk    bool
	diskOps    uint64 // host reads + writes
	diskBytes  uint64 // host read + written bytes
	hasNet     bool
	net        uint64 // host rx + tx bytes, loopback excluded
}

func (c *counters) read(s *hostmetrics.Sample) {
	c.t, c.numCPU = s.Time, s.Host.NumCPU
	var u, sy time.Duration
	u, sy, c.hasCPU = s.Job.CPU()
	c.cpu = u + sy
	r, w, ok := s.Job.IO()
	c.hasJobIO, c.jobIO = ok, r+w
	c.hasHostCPU, c.hostCPU = s.Host.HasCPU, s.Host.CPU
	c.hasDisk = s.Host.HasDisk
	c.diskOps = s.Host.Disk.Reads + s.Host.Disk.Writes
	c.diskBytes = s.Host.Disk.ReadBytes + s.Host.Disk.WrittenBytes
	c.hasNet, c.net = s.Host.HasNet, s.Host.Net.RxBytes+s.Host.Net.TxBytes
}

// Series is a sampler sink that keeps running statistics of the job's
// resource usage over its samples:
//
//   - job CPU: percent of all CPUs, from Job.CPU() deltas;
//   - host CPU: percent of all CPUs not idle (iowait counts as idle);
//   - job memory: bytes, Job.Memory() at each sample;
//   - host disk operations per second (reads + writes);
//   - IO throughput in bytes per second: the job's own (Job.IO()), and
//     the host's disks, which the summary shows when the job's is absent;
//   - host network throughput in bytes per second, received + sent.
//
// Rates are taken between samples at least usage.MinPeakSpan apart: a
// shorter span (two boundary samples can be a millisecond apart, and CPU
// time moves in 10 ms ticks) is joined to the next. A span shorter than
// that at the very end of the job is left out.
//
// A Series holds a fixed amount of memory and allocates nothing per
// sample. It is safe to read while the sampler runs.
type Series struct {
	mu      sync.Mutex
	samples int
	prevT   time.Time // time of the previous sample
	anchor  counters  // where the current rate span began
	started bool
	numCPU  int

	cpu, hostCPU, memory, iops, jobIO, hostIO, network running
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

	// Memory is a gauge: each sample stands for the time since the
	// previous one.
	var w float64
	if se.started {
		w = s.Time.Sub(se.prevT).Seconds()
	}
	if m, ok := s.Job.Memory(); ok {
		se.memory.add(float64(m), w)
	}
	if !se.started || s.Time.After(se.prevT) {
		se.prevT = s.Time
	}

	if !se.started {
		se.anchor.read(s)
		se.started = true
		return
	}
	span := s.Time.Sub(se.anchor.t)
	if span < usage.MinPeakSpan {
		return
	}
	var c counters
	c.read(s)
	a := &se.anchor
	sec := span.Seconds()
	if a.hasCPU && c.hasCPU && c.numCPU > 0 {
		used := max(c.cpu-a.cpu, 0).Seconds()
		se.cpu.add(100*min(used/(sec*float64(c.numCPU)), 1), sec)
	}
	if a.hasHostCPU && c.hasHostCPU {
		if u, ok := hostBusy(&a.hostCPU, &c.hostCPU); ok {
			se.hostCPU.add(100*u, sec)
		}
	}
	if a.hasDisk && c.hasDisk {
		se.iops.add(float64(delta(c.diskOps, a.diskOps))/sec, sec)
		se.hostIO.add(float64(delta(c.diskBytes, a.diskBytes))/sec, sec)
	}
	if a.hasJobIO && c.hasJobIO {
		se.jobIO.add(float64(delta(c.jobIO, a.jobIO))/sec, sec)
	}
	if a.hasNet && c.hasNet {
		se.network.add(float64(delta(c.net, a.net))/sec, sec)
	}
	se.anchor = c
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
}

// Stats returns the statistics so far.
func (se *Series) Stats() JobStats {
	se.mu.Lock()
	defer se.mu.Unlock()
	st := JobStats{
		Samples: se.samples, NumCPU: se.numCPU,
		CPU: se.cpu.stat(), HostCPU: se.hostCPU.stat(), Memory: se.memory.stat(),
		IOPS: se.iops.stat(), IO: se.jobIO.stat(), Network: se.network.stat(),
	}
	if se.jobIO.n == 0 && se.hostIO.n > 0 {
		st.IO, st.IOHost = se.hostIO.stat(), true
	}
	return st
}

// hostBusy is the share of the machine's CPU time between a and b that
// was not idle, as package usage computes it.
func hostBusy(a, b *procfs.CPUTimes) (float64, bool) {
	total := sumTimes(b) - sumTimes(a)
	idle := (b.Idle + b.IOWait) - (a.Idle + a.IOWait)
	if total <= 0 {
		return 0, false
	}
	return min(max(1-idle/total, 0), 1), true
}

func sumTimes(c *procfs.CPUTimes) float64 {
	return c.User + c.Nice + c.System + c.Idle + c.IOWait + c.IRQ + c.SoftIRQ + c.Steal
}

// delta is b − a for a counter, 0 when the counter went back (a device or
// interface went away, or a counter wrapped).
func delta(b, a uint64) uint64 {
	if b < a {
		return 0
	}
	return b - a
}
