// Package usage turns the samples taken at a phase's two boundaries, and
// those taken in between, into what the phase cost: CPU seconds, average and
// peak CPU utilisation, peak memory, IO bytes, pressure stall time, and the
// same machine-wide figures for the same interval, so that a slow phase can
// be told apart from a busy neighbour.
//
// Counters are the changes between the samples from the begin boundary to
// the end one, summed by the rule of package monotonic: exact, a reset's
// change left out, as the CSV's rows of the phase sum. Peaks are the
// highest rates over the spans between the samples inside the window,
// joined by the rule of PeakSpans, which the statistics of a run share:
// they are as fine as the sampling interval, and a phase shorter than
// MinPeakSpan has its average as its peak. The job's average share of the
// CPUs is its CPU time over the span's duration, once the span is known
// (Usage.SetSpan): its CPUs busy over the machine's CPUs.
package usage

import (
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/monotonic"
	"github.com/jobtrace/jobtrace/internal/readback"
)

// MinPeakSpan is the shortest span over which a utilisation is taken as a
// peak. Boundary samples can be a millisecond apart, and the CPU time of a
// process tree moves in 10 ms clock ticks: over such a span a utilisation
// says nothing. Spans shorter than this are joined to the next one, the
// last to the one before it (PeakSpans).
const MinPeakSpan = 200 * time.Millisecond

// point is what a window keeps of a sample: the counters, the gauges whose
// peaks it takes, and the time; about 350 bytes, which a History holds
// MaxHeldSamples of. The counters are as read until a totals takes them.
type point struct {
	t                     time.Time
	cpuLag                time.Duration // how long before t user and sys were read (Sample.ReadAt)
	user, sys             time.Duration
	read, write           uint64
	psi                   hostmetrics.PressureSet
	oomKill               uint64
	hostCPU               hostmetrics.CPUTimes
	diskRead, diskWritten uint64
	netRx, netTx          uint64
	hostPSI               hostmetrics.PressureSet
	numCPU                int
	mem                   uint64 // the job's memory in use
	sysMem                uint64 // the machine's memory in use

	hasCPU, hasIO, hasPSI, hasOOM, hasHostCPU, hasDisk, hasNet, hasMem, hasSysMem bool
	cpuFrom, ioFrom                                                               hostmetrics.From // where user and sys, read and write were read
	// cpuKnown is set while the changes of user and sys up to the point
	// are known (totals.apply): a reset clears it, in the point and in
	// the next one a History keeps when it drops this one.
	cpuKnown bool
}

func pointOf(s *hostmetrics.Sample) point {
	p := point{t: s.Time, cpuLag: s.Time.Sub(s.ReadAt(s.Job.CPUFrom())), numCPU: s.Host.NumCPU,
		cpuFrom: s.Job.CPUFrom(), ioFrom: s.Job.IOFrom(), cpuKnown: true}
	p.user, p.sys, p.hasCPU = s.Job.CPU()
	p.read, p.write, p.hasIO = s.Job.IO()
	p.psi, p.hasPSI = s.Job.Pressure()
	if cg, ok := s.Job.OwnCgroup(); ok {
		p.oomKill, p.hasOOM = cg.OOMKills, cg.HasOOMKills
	}
	p.hasHostCPU, p.hostCPU = s.Host.HasCPU, s.Host.CPU
	p.hasDisk, p.diskRead, p.diskWritten = s.Host.HasDisk, s.Host.Disk.ReadBytes, s.Host.Disk.WrittenBytes
	p.hasNet, p.netRx, p.netTx = s.Host.HasNet, s.Host.Net.RxBytes, s.Host.Net.TxBytes
	p.hostPSI = s.Host.Pressure
	p.mem, p.hasMem = s.MemoryNow()
	p.hasSysMem, p.sysMem = s.Host.HasMemory, s.Host.Memory.Used
	return p
}

// totals turns the counters of points, given in order, into the totals of
// their changes by the rule of package monotonic (monotonic.Sum): once
// through apply, a point's counters never go back, and two points'
// differ by the changes between them, a reset's left out. A figure of the
// job read elsewhere than before (its tree after its cgroup) is another
// counter. A Window takes its points through its own totals; a History
// takes them through one as it holds them, so that a sample it drops when
// thinned keeps its resets.
type totals struct {
	user, sys                           monotonic.Sum[time.Duration]
	read, write                         monotonic.Sum[uint64]
	cpuFrom, ioFrom                     hostmetrics.From
	psi, hostPSI                        pressureTotals
	oomKill                             monotonic.Sum[uint64]
	hostCPU                             hostmetrics.CPUTotals
	diskRead, diskWritten, netRx, netTx monotonic.Sum[uint64]
}

// pressureTotals are the totals of a PressureSet's lines: CPU, memory and
// IO, some and full.
type pressureTotals [3][2]monotonic.Sum[time.Duration]

func (t *totals) apply(p *point) {
	if p.hasCPU {
		restart(&t.cpuFrom, p.cpuFrom, &t.user, &t.sys)
		var ku, ks bool
		p.user, ku = t.user.Add(p.user)
		p.sys, ks = t.sys.Add(p.sys)
		p.cpuKnown = p.cpuKnown && ku && ks
	}
	if p.hasIO {
		restart(&t.ioFrom, p.ioFrom, &t.read, &t.write)
		p.read, p.write = add(&t.read, p.read), add(&t.write, p.write)
	}
	if p.hasPSI {
		t.psi.apply(&p.psi)
	}
	if p.hasOOM {
		p.oomKill = add(&t.oomKill, p.oomKill)
	}
	if p.hasHostCPU {
		p.hostCPU = t.hostCPU.Add(&p.hostCPU)
	}
	if p.hasDisk {
		p.diskRead, p.diskWritten = add(&t.diskRead, p.diskRead), add(&t.diskWritten, p.diskWritten)
	}
	if p.hasNet {
		p.netRx, p.netTx = add(&t.netRx, p.netRx), add(&t.netTx, p.netTx)
	}
	t.hostPSI.apply(&p.hostPSI)
}

func (t *pressureTotals) apply(p *hostmetrics.PressureSet) {
	for i, r := range [...]*hostmetrics.Pressure{&p.CPU, &p.Memory, &p.IO} {
		if r.HasSome {
			r.Some = add(&t[i][0], r.Some)
		}
		if r.HasFull {
			r.Full = add(&t[i][1], r.Full)
		}
	}
}

// add is the total of s's changes up to the reading v.
func add[T monotonic.Number](s *monotonic.Sum[T], v T) T {
	total, _ := s.Add(v)
	return total
}

// restart restarts the sums of a figure of the job when it is read from
// elsewhere than before (*last), which it then is.
func restart[T monotonic.Number](last *hostmetrics.From, from hostmetrics.From, sums ...*monotonic.Sum[T]) {
	if from == *last {
		return
	}
	for _, s := range sums {
		s.Restart()
	}
	*last = from
}

// Window accumulates the usage of one phase (or of the whole job) from its
// begin sample to its end sample. The zero Window is not started: call
// Begin.
type Window struct {
	begin   point
	started bool
	tot     totals // the counters of begin and of the points taken are its

	// job and host join the readings of the job's CPU time and of the
	// machine's into the spans of the peaks (PeakSpans).
	job  PeakSpans[JobCPUTotal]
	host PeakSpans[hostmetrics.CPUTimes]

	memPeak    uint64
	hasMem     bool
	sysMemPeak uint64
	hasSysMem  bool
	cpuPeak    float64
	hasPeak    bool
	sysPeak    float64
	hasSysPeak bool
	samples    int
	seen       time.Time // time of the last sample taken into the gauges
}

// Begin starts the window at sample s.
func (w *Window) Begin(s *hostmetrics.Sample) { w.beginAt(pointOf(s)) }

func (w *Window) beginAt(p point) {
	*w = Window{started: true}
	w.tot.apply(&p)
	w.begin = p
	w.take(p, false)
}

// Started reports whether Begin was called.
func (w *Window) Started() bool { return w.started }

// Add takes a sample taken inside the window into its peaks.
func (w *Window) Add(s *hostmetrics.Sample) {
	if w.started {
		w.addAt(pointOf(s))
	}
}

func (w *Window) addAt(p point) {
	if !w.started {
		return
	}
	w.tot.apply(&p)
	w.take(p, false)
}

// take takes p, its counters totals, into the gauges and the peaks; last
// is set for the window's end.
func (w *Window) take(p point, last bool) {
	w.gauges(p)
	// The job's CPU time is timed as JobCPU times it (CPUReadAt), so that
	// the job's window joins the spans the statistics of its run do.
	spans, n := w.job.Take(CPUReadAt(p.t.Add(-p.cpuLag)), JobCPUTotal{p.user + p.sys, p.numCPU}, p.hasCPU, p.cpuKnown, last)
	for i := range spans[:n] {
		if u, ok := JobShare(&spans[i]); ok && (!w.hasPeak || u > w.cpuPeak) {
			w.cpuPeak, w.hasPeak = u, true
		}
	}
	// The machine's CPU time is a counter per mode, a change of one not
	// known counting for none (hostmetrics.CPUChange): every reading ends
	// a span.
	hspans, n := w.host.Take(p.t, p.hostCPU, p.hasHostCPU, true, last)
	for i := range hspans[:n] {
		if u, ok := HostShare(&hspans[i]); ok && (!w.hasSysPeak || u > w.sysPeak) {
			w.sysPeak, w.hasSysPeak = u, true
		}
	}
}

func (w *Window) gauges(p point) {
	if p.t.Equal(w.seen) && w.samples > 0 {
		return // the same sample, given to Add and then to End
	}
	w.seen = p.t
	w.samples++
	if p.hasMem {
		w.memPeak = max(w.memPeak, p.mem)
		w.hasMem = true
	}
	if p.hasSysMem {
		w.sysMemPeak = max(w.sysMemPeak, p.sysMem)
		w.hasSysMem = true
	}
}

// End closes the window at sample s and returns the usage over it; its
// Duration is the span's, which the caller sets (Usage.SetSpan), and with
// it CPUAvg.
func (w *Window) End(s *hostmetrics.Sample) Usage {
	if !w.started {
		return Usage{}
	}
	return w.endAt(pointOf(s))
}

// EndJob is End for the window of the whole job, from its first sample to
// its last: its peak memory is the job's highest memory use, its own
// cgroup's memory.peak when that is higher than the highest sampled
// (hostmetrics.Job.MemoryPeak), as the statistics of the job's samples
// (runmodel.Series) take it. A phase's window cannot: memory.peak is the
// highest since the job started.
func (w *Window) EndJob(s *hostmetrics.Sample) Usage {
	u := w.End(s)
	if p, ok := s.Job.MemoryPeak(); ok && w.started && (!u.HasMemory || p > u.MemoryPeak) {
		u.MemoryPeak, u.HasMemory = p, true
	}
	return u
}

func (w *Window) endAt(e point) Usage {
	w.tot.apply(&e)
	w.take(e, true)
	b := w.begin
	u := Usage{Samples: w.samples, NumCPU: e.numCPU}
	if b.hasCPU && e.hasCPU {
		u.HasCPU = true
		u.CPUUser = e.user - b.user
		u.CPUSystem = e.sys - b.sys
		u.CPUAvg, _ = jobUtil(b, e)
		u.CPUPeak = u.CPUAvg
		if w.hasPeak && w.cpuPeak > u.CPUPeak {
			u.CPUPeak = w.cpuPeak
		}
	}
	u.HasMemory, u.MemoryPeak = w.hasMem, w.memPeak
	if b.hasIO && e.hasIO {
		u.HasIO = true
		u.ReadBytes, u.WriteBytes = e.read-b.read, e.write-b.write
	}
	if b.hasPSI && e.hasPSI {
		u.HasPressure = true
		u.Pressure = stalls(b.psi, e.psi)
	}
	if b.hasOOM && e.hasOOM {
		u.HasOOMKills = true
		u.OOMKills = e.oomKill - b.oomKill
	}
	if b.hasHostCPU && e.hasHostCPU {
		u.HasSystemCPU = true
		u.SystemCPUAvg, _ = hostUtil(b, e)
		u.SystemCPUPeak = u.SystemCPUAvg
		if w.hasSysPeak && w.sysPeak > u.SystemCPUPeak {
			u.SystemCPUPeak = w.sysPeak
		}
		u.SystemCPUIOWait = readback.Seconds(e.hostCPU.IOWait - b.hostCPU.IOWait)
		u.SystemCPUSteal = readback.Seconds(e.hostCPU.Steal - b.hostCPU.Steal)
	}
	u.HasSystemMemory, u.SystemMemoryPeak = w.hasSysMem, w.sysMemPeak
	if b.hasDisk && e.hasDisk {
		u.HasSystemDisk = true
		u.SystemReadBytes = e.diskRead - b.diskRead
		u.SystemWriteBytes = e.diskWritten - b.diskWritten
	}
	if b.hasNet && e.hasNet {
		u.HasNetwork = true
		u.NetworkReceive = e.netRx - b.netRx
		u.NetworkTransmit = e.netTx - b.netTx
	}
	u.SystemPressure = stalls(b.hostPSI, e.hostPSI)
	u.HasSystemPressure = u.SystemPressure.Has()
	return u
}

// jobUtil is the job's CPU time between a and b, points whose counters are
// totals, over the CPU time the machine had between the times those
// figures were read (hostmetrics.CPUShare): 0 to 1.
func jobUtil(a, b point) (float64, bool) {
	if !a.hasCPU || !b.hasCPU {
		return 0, false
	}
	span := b.t.Sub(a.t) - b.cpuLag + a.cpuLag
	return hostmetrics.CPUShare(b.user-a.user+b.sys-a.sys, span, b.numCPU)
}

// hostUtil is the share of the machine's CPU time between a and b that was
// busy (hostmetrics.BusyShare).
func hostUtil(a, b point) (float64, bool) {
	if !a.hasHostCPU || !b.hasHostCPU {
		return 0, false
	}
	return hostmetrics.BusyShare(&a.hostCPU, &b.hostCPU)
}

func stalls(a, b hostmetrics.PressureSet) Stalls {
	var s Stalls
	s.CPUSome, s.HasCPUSome = stall(a.CPU.HasSome && b.CPU.HasSome, a.CPU.Some, b.CPU.Some)
	s.MemorySome, s.HasMemorySome = stall(a.Memory.HasSome && b.Memory.HasSome, a.Memory.Some, b.Memory.Some)
	s.MemoryFull, s.HasMemoryFull = stall(a.Memory.HasFull && b.Memory.HasFull, a.Memory.Full, b.Memory.Full)
	s.IOSome, s.HasIOSome = stall(a.IO.HasSome && b.IO.HasSome, a.IO.Some, b.IO.Some)
	s.IOFull, s.HasIOFull = stall(a.IO.HasFull && b.IO.HasFull, a.IO.Full, b.IO.Full)
	return s
}

func stall(ok bool, a, b time.Duration) (time.Duration, bool) {
	if !ok {
		return 0, false
	}
	return b - a, true
}
