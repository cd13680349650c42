package runmodel

import (
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/monotonic"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/internal/readback"
)

// Advice is the right-sizing advice for the job (insight/sizing), decided
// once, with the model, and read by every renderer: the advice the run set
// on the job's span (Recorder.Advice, made from the statistics of its
// samples), read back from its attributes (sizing.FromAttributes) as its
// usage and verdict are, whether the model is made in the run or read from
// the artifacts. Only a job's span that carries none (a run whose agent
// was killed before the end of the job, a spool from elsewhere) has it
// made here: from the statistics of the samples when the model has them
// (SetStats), else from the rows of resource-usage.csv, which hold the
// same figures; either way with the job's span's peak memory when that is
// higher (its cgroup's memory.peak, read at the end) and its verdict
// (Span.Verdict). A Run made otherwise has the advice of no figures, of
// kind sizing.Unknown.
func (r *Run) Advice() sizing.Advice {
	if r.advice.Kind == "" {
		return sizing.Advise(sizing.Figures{})
	}
	return r.advice
}

// SetStats sets the statistics of the job's samples, and the job's
// advice made from them when its span carries none (Advice).
func (r *Run) SetStats(st JobStats) {
	r.Stats = st
	r.advice = r.advise()
}

// advise is the advice for the job of the run: the one its span carries,
// else made from the statistics of its samples, else from its rows.
func (r *Run) advise() sizing.Advice {
	f := r.Stats.Sizing
	if r.Stats.Samples == 0 {
		f = figuresOfRows(r.Rows)
	}
	if !r.HasJob {
		return advise(f, nil, verdict.Verdict{})
	}
	made := advise(f, &r.Job.Usage, r.Job.Verdict)
	if a, ok := sizing.FromAttributes(r.Job.Attributes); ok {
		return carried(a, made.Figures)
	}
	return made
}

// carried is the advice a span carries, with the figures its attributes
// do not (the job's duration, the machine's CPUs and memory, OOM kills,
// the verdict) taken from f, those of the model: the advice's kind, text,
// machine and the figures it names stay the span's.
func carried(a sizing.Advice, f sizing.Figures) sizing.Advice {
	if a.HasCPU {
		f.HasCPU, f.CPUBusyP95, f.CPUBusyPeak, f.AboveOneCPU = true, a.CPUBusyP95, a.CPUBusyPeak, a.AboveOneCPU
	}
	if a.HasMemory {
		f.HasMemory, f.MemoryPeak = true, a.MemoryPeak
	}
	if a.HasMemoryStall {
		f.HasMemoryStall, f.MemoryStall = true, a.MemoryStall
	}
	if a.HasSwap {
		f.HasSwap, f.Swapped = true, a.Swapped
	}
	a.Figures = f
	return a
}

// Advice is the advice for the job from its samples so far, with job its
// usage (nil when unknown) and v its verdict: what a run sets on the job's
// span (Advice.Attributes), and what the model reads back from it
// (Run.Advice): made once, the span, the summary and the report say the
// same.
func (r *Recorder) Advice(job *usage.Usage, v verdict.Verdict) sizing.Advice {
	return advise(r.series.Stats().Sizing, job, v)
}

// advise is the advice for the figures of the job's samples, with the
// job's duration (from its start to its exit, as every artifact shows it)
// in place of the time its samples cover when its usage has one.
func advise(f sizing.Figures, job *usage.Usage, v verdict.Verdict) sizing.Advice {
	if job != nil && job.HasMemory && (!f.HasMemory || job.MemoryPeak > f.MemoryPeak) {
		f.HasMemory, f.MemoryPeak = true, job.MemoryPeak
	}
	if job != nil && job.Duration > 0 {
		f.Duration = job.Duration
	}
	f.Verdict = v
	return sizing.Advise(f)
}

// machineMemory is the machine's memory, by the one definition both ways
// of making the model share: what is in use plus what is available
// (hostmetrics.Memory's Used + Available, resource-usage.csv's
// host_memory_used_bytes + host_memory_available_bytes). The CSV has no
// column of the total, so the model read from it can only add those two;
// the model made in the run adds the same two of the sample rather than
// take its Memory.Total, so that both give the same figure. Where the
// machine tells what is available (Linux's MemAvailable since 3.14,
// illumos, gopsutil where it knows), Used is Total − Available and the sum
// is the total; where it does not, Available is 0 and Used another
// estimate, and the total is unknown: 0. (system.memory.utilization keeps
// the semantic conventions' total, Memory.Total: see usagemetrics.)
func machineMemory(used, available uint64) uint64 {
	if available == 0 {
		return 0
	}
	return used + available
}

// reading is what a sizer takes of a sample or of a row: counters are
// cumulative, in seconds or a count: a sample's as read, a row's its
// changes summed, from 0 at the first row.
type reading struct {
	t                     time.Time
	cpuT                  time.Time        // when the CPU time was read
	user, sys             float64          // the job's CPU seconds
	cpuFrom               hostmetrics.From // where a sample's were read; none for a row
	numCPU                int
	mem, memTotal, swap   uint64 // the job's memory, the machine's, its swap in use
	stall, hostStall, oom float64

	hasCPU, hasMem, hasSwap, hasStall, hasHostStall, hasOOM bool
}

// readingOf is the reading of a sample: the job's figures from where
// hostmetrics.Job says, the CPU time when it was read for the sample (a
// figure of the tree carried from an earlier walk is none, as
// resource-usage.csv leaves its cells empty). Times are taken to the
// millisecond, as resource-usage.csv writes them (the CPU time's by
// usage.JobCPU; its other figures are as exact as the sample's): the
// figures gathered in a run are then those gathered again from its rows,
// which spans shorter than usage.MinPeakSpan, joined or not by a fraction
// of a millisecond, would otherwise tell apart.
func readingOf(s *hostmetrics.Sample) reading {
	j := &s.Job
	r := reading{t: s.Time.Truncate(time.Millisecond), numCPU: s.Host.NumCPU}
	if u, sy, ok := j.CPU(); ok && s.ReadAt(j.CPUFrom()).Equal(s.Time) {
		r.cpuFrom = j.CPUFrom()
		r.cpuT, r.user, r.sys, r.hasCPU = s.Time, u.Seconds(), sy.Seconds(), true
	}
	r.mem, r.hasMem = s.MemoryNow()
	if p, ok := j.Pressure(); ok {
		r.stall, r.hasStall = p.Memory.Some.Seconds(), p.Memory.HasSome
	}
	if cg, ok := j.OwnCgroup(); ok {
		r.oom, r.hasOOM = float64(cg.OOMKills), cg.HasOOMKills
	}
	hp := &s.Host.Pressure.Memory
	r.hostStall, r.hasHostStall = hp.Some.Seconds(), hp.HasSome
	if m := &s.Host.Memory; s.Host.HasMemory {
		r.memTotal, r.swap, r.hasSwap = machineMemory(m.Used, m.Available), m.SwapUsed, true
	}
	return r
}

// figuresOfRows gathers the figures of the advice over the rows of
// resource-usage.csv: the counters, written as changes since the previous
// row, are summed back, from 0 at the first row (whose changes are empty).
// A row without a counter's change (it could not read it, or the change is
// unknown) has no reading of it, as a sample whose change is unknown has
// none for the sizer's anchor and counters.
func figuresOfRows(rows []Row) sizing.Figures {
	var z sizer
	var user, sys, stall, hostStall, oom float64
	for i := range rows {
		row := &rows[i]
		first := i == 0
		// sum adds the change of column c to *total, and says whether
		// the row has it (the first row is where the sums start).
		sum := func(total *float64, c Col) bool {
			v, ok := row.Get(c)
			*total += v
			return first || ok
		}
		r := reading{t: row.Time, cpuT: row.Time}
		hasUser, hasSys := sum(&user, JobCPUUser), sum(&sys, JobCPUSystem)
		r.hasCPU = hasUser && hasSys
		r.hasStall = sum(&stall, JobMemoryStall)
		r.hasHostStall = sum(&hostStall, HostMemoryStall)
		r.hasOOM = sum(&oom, JobOOMKills)
		r.user, r.sys, r.stall, r.hostStall, r.oom = user, sys, stall, hostStall, oom
		if n, ok := row.Get(HostCPUs); ok {
			r.numCPU = int(n)
		}
		if m, ok := row.Get(JobMemory); ok {
			r.mem, r.hasMem = uint64(m), true
		}
		used, okU := row.Get(HostMemoryUsed)
		avail, okA := row.Get(HostMemoryAvailable)
		if okU && okA {
			r.memTotal = machineMemory(uint64(used), uint64(avail))
		}
		if sw, ok := row.Get(HostSwapUsed); ok {
			r.swap, r.hasSwap = uint64(sw), true
		}
		z.observe(&r, i == len(rows)-1)
	}
	return z.figures()
}

// sizer gathers the figures of the right-sizing advice over the job's
// readings, its samples (Series) or its rows (figuresOfRows), the same
// way for both. It holds a fixed amount of memory, the histogram of CPUs
// busy (sizing.BusyCPUs: 2 × 577 float64s, 9 KiB) and a few figures, and
// allocates nothing.
type sizer struct {
	cpuAt                 usage.JobCPU
	busy                  sizing.BusyCPUs
	first, last           time.Time
	started               bool
	numCPU                int
	memTotal, mem         uint64
	swap0, swap           uint64
	hasMem, hasSwap       bool
	stall, hostStall, oom counter
}

// counter is the change of a cumulative counter over the readings, by the
// rule of package monotonic: a change that is not known (a reset) is left
// out, as the CSV leaves its cell empty.
type counter struct {
	total monotonic.Sum[float64]
	sum   float64
	moved bool // a change was known, so sum is one
}

func (c *counter) add(v float64, has bool) {
	if !has {
		return
	}
	var known bool
	c.sum, known = c.total.Add(v)
	c.moved = c.moved || known
}

// observe takes one reading; last is set for the job's last. It returns
// the spans of the job's CPU time the reading completes (usage.JobCPU),
// which the statistics of a run take too.
func (z *sizer) observe(r *reading, last bool) ([2]usage.PeakSpan[usage.JobCPUTotal], int) {
	if !z.started {
		z.first, z.started = r.t, true
	}
	z.last = r.t
	if r.numCPU > 0 {
		z.numCPU = r.numCPU
	}
	if r.memTotal > 0 {
		z.memTotal = r.memTotal
	}
	// CPUs busy over the spans of usage.JobCPU: a few milliseconds
	// between boundary samples say nothing. A share above the machine's
	// CPUs is the two readings' moments apart, not work: it is capped
	// (usage.JobBusy).
	spans, n := z.cpuAt.Take(r.cpuT, readback.Seconds(r.user), readback.Seconds(r.sys), r.cpuFrom, r.numCPU, r.hasCPU, last)
	for i := range spans[:n] {
		z.busy.Add(usage.JobBusy(&spans[i]), spans[i].D)
	}
	if r.hasMem {
		z.mem, z.hasMem = max(z.mem, r.mem), true
	}
	if r.hasSwap {
		if !z.hasSwap {
			z.swap0, z.hasSwap = r.swap, true
		}
		z.swap = max(z.swap, r.swap)
	}
	z.stall.add(r.stall, r.hasStall)
	z.hostStall.add(r.hostStall, r.hasHostStall)
	z.oom.add(r.oom, r.hasOOM)
	return spans, n
}

// figures are the figures gathered so far. The memory stall is the job's
// own cgroup's, else the machine's.
func (z *sizer) figures() sizing.Figures {
	f := sizing.Figures{
		Duration: z.last.Sub(z.first), NumCPU: z.numCPU, MachineMemory: z.memTotal,
		HasMemory: z.hasMem, MemoryPeak: z.mem,
		HasOOMKills: z.oom.moved, OOMKills: uint64(z.oom.sum),
		HasSwap: z.hasSwap, Swapped: z.swap - z.swap0,
	}
	f.SetCPU(&z.busy)
	switch {
	case z.stall.moved:
		f.HasMemoryStall, f.MemoryStall = true, seconds(z.stall.sum)
	case z.hostStall.moved:
		f.HasMemoryStall, f.MemoryStall, f.MachineStall = true, seconds(z.hostStall.sum), true
	}
	return f
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
