package runmodel

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
)

// tick is one hand-made sample: cumulative counters at a time.
type tick struct {
	sec          float64
	jobCPU       time.Duration // user + system
	rss          uint64
	jobIO        uint64 // read + write; ignored when noJobIO
	busy, idle   float64
	ops, dbytes  uint64
	rx, tx       uint64
	noJobIO      bool
	noHostFigure bool
	last         bool // the job's last sample (ReasonEnd)
}

func (k tick) sample() hostmetrics.Sample {
	s := hostmetrics.Sample{Time: sampleAt(k.sec), Reason: hostmetrics.ReasonInterval}
	if k.last {
		s.Reason = hostmetrics.ReasonEnd
	}
	s.Host.NumCPU = 2
	if !k.noHostFigure {
		s.Host.HasCPU = true
		s.Host.CPU = hostmetrics.CPUTimes{User: k.busy * 0.75, System: k.busy * 0.25, Idle: k.idle}
		s.Host.HasDisk = true
		s.Host.Disk = hostmetrics.DiskIO{Reads: k.ops / 2, Writes: k.ops - k.ops/2, ReadBytes: k.dbytes / 4, WrittenBytes: k.dbytes - k.dbytes/4}
		s.Host.HasNet = true
		s.Host.Net = hostmetrics.NetIO{RxBytes: k.rx, TxBytes: k.tx}
	}
	s.Job.HasTree = true
	s.Job.Tree = hostmetrics.Tree{CPUUser: k.jobCPU * 2 / 3, CPUSystem: k.jobCPU - k.jobCPU*2/3, RSS: k.rss}
	if !k.noJobIO {
		s.Job.Tree.HasIO = true
		s.Job.Tree.ReadBytes, s.Job.Tree.WriteBytes = k.jobIO/2, k.jobIO-k.jobIO/2
	}
	return s
}

const mib = 1 << 20

// sampleAt is s seconds after t0.
func sampleAt(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

func feedSeries(ticks []tick) *Series {
	se := NewSeries()
	for _, k := range ticks {
		s := k.sample()
		se.Sample(&s)
	}
	return se
}

// weighted computes the time-weighted mean and population standard
// deviation of xs directly, in two passes, as a reference.
func weighted(xs, ws []float64) (mean, sd float64) {
	var sw float64
	for i := range xs {
		mean += xs[i] * ws[i]
		sw += ws[i]
	}
	mean /= sw
	for i := range xs {
		sd += ws[i] * (xs[i] - mean) * (xs[i] - mean)
	}
	return mean, math.Sqrt(sd / sw)
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*max(1, math.Abs(a), math.Abs(b)) }

func checkStat(t *testing.T, what string, got Stat, n int, mean, sd, peak float64) {
	t.Helper()
	if got.N != n || !near(got.Mean, mean) || !near(got.StdDev, sd) || !got.HasPeak || !near(got.Peak, peak) {
		t.Errorf("%s = %+v, want N=%d mean=%g stddev=%g peak=%g", what, got, n, mean, sd, peak)
	}
}

// Two boundary samples 1 ms apart in the middle: the span from 1 s to
// 1.001 s is too short for a rate and is joined to the next, so the rates
// are over [0,1] and [1,3].
var ticks = []tick{
	{sec: 0, rss: 100 * mib},
	{sec: 1, jobCPU: 1 * time.Second, rss: 300 * mib, jobIO: 10 * mib, busy: 1, idle: 1, ops: 100, dbytes: 4 * mib, rx: 1000, tx: 24},
	{sec: 1.001, jobCPU: 1 * time.Second, rss: 1000 * mib, jobIO: 10 * mib, busy: 1, idle: 1, ops: 100, dbytes: 4 * mib, rx: 1000, tx: 24},
	{sec: 3, jobCPU: 4 * time.Second, rss: 200 * mib, jobIO: 50 * mib, busy: 4, idle: 2, ops: 500, dbytes: 12 * mib, rx: 5096, tx: 24},
}

func TestSeriesStatistics(t *testing.T) {
	st := feedSeries(ticks).Stats()
	if st.Samples != 4 || st.NumCPU != 2 {
		t.Fatalf("samples %d, CPUs %d; want 4, 2", st.Samples, st.NumCPU)
	}
	w := []float64{1, 2}

	// Job CPU: 1 s of 2 CPUs over 1 s is 50 %; 3 s over 2 s is 75 %. The
	// mean is the job's CPU time over its duration: 4 s / (3 s × 2).
	m, sd := weighted([]float64{50, 75}, w)
	if !near(m, 100*4.0/6) {
		t.Fatalf("reference mean %g", m)
	}
	checkStat(t, "job CPU", st.CPU, 2, m, sd, 75)
	if !near(sd, math.Sqrt(1250.0/9)) {
		t.Errorf("reference stddev %g", sd)
	}

	// Host CPU: 1 busy of 2 is 50 %, then 3 busy of 4 is 75 %.
	checkStat(t, "host CPU", st.HostCPU, 2, m, sd, 75)

	// IOPS: 100 ops in 1 s, 400 in 2 s.
	m, sd = weighted([]float64{100, 200}, w)
	checkStat(t, "IOPS", st.IOPS, 2, m, sd, 200)

	// Job IO: 10 MiB in 1 s, then 40 MiB in 2 s.
	m, sd = weighted([]float64{10 * mib, 20 * mib}, w)
	checkStat(t, "job IO", st.IO, 2, m, sd, 20*mib)
	if st.IOHost {
		t.Error("IO says it is the host's, but the job's was read")
	}

	// Network: 1024 bytes in 1 s, 4096 in 2 s.
	m, sd = weighted([]float64{1024, 2048}, w)
	checkStat(t, "network", st.Network, 2, m, sd, 2048)

	// Memory: each sample stands for the time since the previous one; the
	// first only counts for the peak, which the 1 ms sample holds.
	gap := func(a, b float64) float64 { return sampleAt(b).Sub(sampleAt(a)).Seconds() }
	m, sd = weighted([]float64{300 * mib, 1000 * mib, 200 * mib}, []float64{gap(0, 1), gap(1, 1.001), gap(1.001, 3)})
	checkStat(t, "memory", st.Memory, 3, m, sd, 1000*mib)
}

func TestSeriesHostIOWhenJobIOAbsent(t *testing.T) {
	ts := append([]tick(nil), ticks...)
	for i := range ts {
		ts[i].noJobIO = true
	}
	st := feedSeries(ts).Stats()
	if !st.IOHost {
		t.Fatal("IO should be the host's disks when the job's is absent")
	}
	// Host disk bytes: 4 MiB in 1 s, 8 MiB in 2 s.
	m, sd := weighted([]float64{4 * mib, 4 * mib}, []float64{1, 2})
	checkStat(t, "host IO", st.IO, 2, m, sd, 4*mib)
}

func TestSeriesAbsentFigures(t *testing.T) {
	ts := append([]tick(nil), ticks...)
	for i := range ts {
		ts[i].noHostFigure, ts[i].noJobIO = true, true
	}
	st := feedSeries(ts).Stats()
	for name, s := range map[string]Stat{"host CPU": st.HostCPU, "IOPS": st.IOPS, "IO": st.IO, "network": st.Network} {
		if s.N != 0 || s.HasPeak {
			t.Errorf("%s = %+v, want absent", name, s)
		}
	}
	if st.IOHost {
		t.Error("IOHost set with no IO at all")
	}
	if st.CPU.N != 2 {
		t.Errorf("job CPU N = %d, want 2", st.CPU.N)
	}
}

func TestSeriesShortSpanAtEnd(t *testing.T) {
	// A sample 100 ms after the previous one gives no rate of its own: a
	// 100 % burst there must not show as the peak. Before the job's last
	// sample, the span held back ([1,3]) counts as it is.
	ts := append(append([]tick(nil), ticks...), tick{sec: 3.1, jobCPU: 4*time.Second + 200*time.Millisecond, busy: 4.2, idle: 2})
	st := feedSeries(ts).Stats()
	if st.CPU.N != 2 || st.CPU.Peak != 75 {
		t.Errorf("job CPU = %+v, want the two long spans only", st.CPU)
	}
	// The job's last sample ends the spans: the last 100 ms are joined to
	// the span before them (usage.PeakSpans), [1,3.1] with 3.2 s of CPU,
	// so the spans cover the job and the mean is its CPU time over its
	// duration, 4.2 s over 3.1 s of 2 CPUs.
	ts[len(ts)-1].last = true
	end := feedSeries(ts).Stats()
	if peak := 100 * 3.2 / (2.1 * 2); end.CPU.N != 2 || !near(end.CPU.Peak, peak) || !near(end.CPU.Mean, 100*4.2/(3.1*2)) {
		t.Errorf("job CPU with the last sample = %+v, want 2 spans, peak %v, mean %v", end.CPU, peak, 100*4.2/(3.1*2))
	}
}

func TestSeriesCounterGoesBack(t *testing.T) {
	// An interface that goes away lowers the host's network total: the
	// change is unknown (monotonic's rule), not 2^64 bytes, nor no traffic
	// over the span (as it was before): the span stays open to the next
	// reading, and the traffic known over the two seconds is its rate.
	ts := []tick{{sec: 0, rx: 5000}, {sec: 1, rx: 100}, {sec: 2, rx: 1100}}
	st := feedSeries(ts).Stats()
	checkStat(t, "network", st.Network, 1, 500, 0, 500)
}

func TestSeriesAllocatesNothingPerSample(t *testing.T) {
	se := NewSeries()
	s := ticks[1].sample()
	s.Host.Disks = make([]hostmetrics.Disk, 4)
	s.Host.Ifaces = make([]hostmetrics.Iface, 3)
	s.Job.HasCgroup, s.Job.CgroupOwn = true, true
	s.Job.Cgroup.Memory, s.Job.Cgroup.HasMemory = 1<<30, true
	allocs := testing.AllocsPerRun(1000, func() {
		s.Time = s.Time.Add(time.Second)
		s.Job.Tree.CPUUser += 500 * time.Millisecond
		s.Host.Net.RxBytes += 4096
		se.Sample(&s)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per sample, want 0", allocs)
	}
	if st := se.Stats(); st.Samples < 1000 || st.Memory.Peak != 1<<30 {
		t.Errorf("stats after the run: %+v", st)
	}
}

func TestSeriesTreeWalkedLessOften(t *testing.T) {
	// A large tree walked every 2 s while samples are taken every second:
	// the samples between walks carry the last walk's figures, and the
	// rates span the walks, not the samples.
	walks := []struct {
		sec, walked float64
		cpu         time.Duration
		rss         uint64
	}{
		{0, 0, 0, 100 * mib},
		{1, 0, 0, 100 * mib},
		{2, 2, 2 * time.Second, 300 * mib},
		{3, 2, 2 * time.Second, 300 * mib},
		{4, 4, 6 * time.Second, 200 * mib},
	}
	se, cg := NewSeries(), NewSeries()
	for i, w := range walks {
		s := hostmetrics.Sample{Time: sampleAt(w.sec)}
		s.Host.NumCPU = 2
		s.Job.HasTree = true
		s.Job.Tree = hostmetrics.Tree{CPUUser: w.cpu, RSS: w.rss, At: sampleAt(w.walked)}
		se.Sample(&s)

		// The same with a cgroup of the job's own without the memory
		// controller: CPU from cpu.stat, read at every sample (1 s of
		// CPU each), memory from the tree.
		s.Job.HasCgroup, s.Job.CgroupOwn = true, true
		s.Job.Cgroup.CPUUser, s.Job.Cgroup.HasCPU = time.Duration(i)*time.Second, true
		cg.Sample(&s)
	}
	st := se.Stats()
	// 2 s of CPU over [0,2], 4 s over [2,4], on 2 CPUs.
	checkStat(t, "job CPU", st.CPU, 2, 75, 25, 100)
	// Readings made at 0, 2 and 4 s; the first counts for the peak only.
	checkStat(t, "job memory", st.Memory, 2, 250*mib, 50*mib, 300*mib)

	st = cg.Stats()
	checkStat(t, "job CPU from the cgroup", st.CPU, 4, 50, 0, 50)
	checkStat(t, "job memory from the tree", st.Memory, 2, 250*mib, 50*mib, 300*mib)
}

func TestSeriesGapInAFigure(t *testing.T) {
	// A figure missing from one sample (a read that failed once) leaves
	// the span open: the next reading's rate covers the gap.
	ts := []tick{{sec: 0}, {sec: 1, rx: 1 << 40, noHostFigure: true}, {sec: 2, rx: 2048}}
	st := feedSeries(ts).Stats()
	checkStat(t, "network", st.Network, 1, 1024, 0, 1024)
}

func BenchmarkSeriesSample(b *testing.B) {
	se := NewSeries()
	s := ticks[1].sample()
	b.ReportAllocs()
	for b.Loop() {
		s.Time = s.Time.Add(time.Second)
		s.Job.Tree.CPUUser += 500 * time.Millisecond
		se.Sample(&s)
	}
}

// Whatever the spacing of the samples, no mean exceeds its peak.
func TestSeriesMeanNeverAbovePeak(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		var ts []tick
		var k tick
		for i := 0; i < 2+r.IntN(10); i++ {
			k.sec += []float64{0.001, 0.01, 0.15, 0.3, 1}[r.IntN(5)]
			k.jobCPU += time.Duration(r.IntN(400)) * time.Millisecond
			k.jobIO += uint64(r.IntN(1 << 24))
			k.busy += r.Float64()
			k.idle += r.Float64()
			k.ops += uint64(r.IntN(500))
			k.dbytes += uint64(r.IntN(1 << 24))
			k.rx += uint64(r.IntN(1 << 20))
			ts = append(ts, k)
		}
		ts[len(ts)-1].last = true
		st := feedSeries(ts).Stats()
		for name, s := range map[string]Stat{"cpu": st.CPU, "host cpu": st.HostCPU, "iops": st.IOPS, "io": st.IO, "net": st.Network} {
			if s.N > 0 && s.Mean > s.Peak*(1+1e-9) {
				t.Fatalf("round %d: %s mean %v above peak %v (ticks %+v)", round, name, s.Mean, s.Peak, ts)
			}
		}
	}
}
