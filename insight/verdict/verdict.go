package verdict

import (
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/internal/figure"
)

// Kind is what held a window back.
type Kind string

// The kinds of verdict, documented in docs/insight.md.
const (
	// CPUBound: the job kept most of the machine's CPUs busy, or more
	// than one CPU: it computed.
	CPUBound Kind = "cpu-bound"
	// SingleThread: the job kept about one CPU busy on a machine of two
	// or more: one thread did the work.
	SingleThread Kind = "single-thread"
	// IOBound: the job's tasks waited for storage much of the time.
	IOBound Kind = "io-bound"
	// MemoryPressured: tasks waited for memory (reclaim, swap), or the
	// OOM killer killed some.
	MemoryPressured Kind = "memory-pressured"
	// Starved: the job waited for CPU that neighbours, or the hypervisor
	// (steal), took.
	Starved Kind = "starved"
	// Waiting: the job neither computed nor waited for CPU, IO or memory:
	// it waited on the network, a sleep, a lock, another service.
	Waiting Kind = "waiting"
	// TooShort: the phase is shorter than MinDuration (its span's
	// duration, usage.Usage.Duration).
	TooShort Kind = "too-short"
	// Unknown: the window has no CPU figure to judge from.
	Unknown Kind = "unknown"
)

// Kinds lists every kind, in the order of the rules that give them; a
// metric's attribute takes only these values.
var Kinds = []Kind{Unknown, TooShort, MemoryPressured, Starved, CPUBound, SingleThread, IOBound, Waiting}

// Known reports whether k is one of Kinds.
func (k Kind) Known() bool {
	for _, c := range Kinds {
		if c == k {
			return true
		}
	}
	return false
}

// Verdict is the judgement of one window: its kind and the evidence, one
// short sentence without a final full stop ("kept 1.9 of 2 CPUs busy").
type Verdict struct {
	Kind   Kind
	Reason string
}

// Thresholds of the rules (docs/insight.md, "Verdicts"). Shares of time are
// stall or wait time over the phase's duration, its span's.
const (
	// MinDuration is the shortest window judged. CPU time moves in 10 ms
	// clock ticks and the machine's CPU times in ticks per CPU; pressure
	// stall totals are exact, but over a shorter window a single burst
	// (a process starting, a page-in) outweighs the phase's own work.
	MinDuration = time.Second
	// MemoryStallShare: tasks waited for memory at least this share of
	// the window. Memory stalls are rare on a healthy machine (reclaim
	// and swap-in only), so a tenth of the time is already a lot.
	MemoryStallShare = 0.10
	// StealShare: the hypervisor took at least this share of the
	// machine's CPU time.
	StealShare = 0.10
	// CPUStallShare: tasks waited for a CPU at least this share of the
	// window.
	CPUStallShare = 0.20
	// BusyMachine: the machine's CPUs were at least this busy (share of
	// all CPUs not idle).
	BusyMachine = 0.90
	// NeighbourShare: others than the job kept at least this share of all
	// CPUs busy; below it the machine was busy with the job's own work.
	NeighbourShare = 0.25
	// MinActiveCPUs: the least CPU a job needs to use to be judged starved
	// when only the machine's stall time is known: below it, a busy
	// machine's stalls are not the job's. The most it may use then is
	// SingleThreadCPUs: the machine's stall counts neighbours that wait
	// for each other, and a job that kept a CPU busy got at least what
	// one thread asks for.
	MinActiveCPUs = 0.05
	// CPUBoundShare: the job kept at least this share of all CPUs busy.
	CPUBoundShare = 0.75
	// ParallelCPUs: a job that keeps more than this many CPUs busy
	// computes in parallel, whatever the machine's size.
	ParallelCPUs = 1.25
	// SingleThreadCPUs: a job that keeps at least this many CPUs busy (and
	// at most ParallelCPUs) on a machine of two or more keeps one busy.
	SingleThreadCPUs = 0.75
	// IOStallShare: tasks waited for IO at least this share of the window.
	IOStallShare = 0.20
	// MinIOBytes: the least the job must read or write for the machine's
	// IO stall time to be taken as its own, when its own is not known.
	MinIOBytes = 1 << 20
)

// Judge returns the verdict of one window's usage: the first rule of the
// table (docs/insight.md) that holds.
func Judge(u usage.Usage) Verdict {
	f := figuresOf(&u)
	for _, r := range rules {
		if reason, ok := r.test(&f); ok {
			return Verdict{Kind: r.kind, Reason: reason}
		}
	}
	return Verdict{Kind: Waiting, Reason: waitingReason(&f)}
}

// rule is one row of the table: the kind it gives and its test, which
// returns the evidence when it holds.
type rule struct {
	kind Kind
	test func(f *figures) (string, bool)
}

// rules are tried in order; Waiting is the verdict when none holds.
var rules = []rule{
	{Unknown, func(f *figures) (string, bool) {
		return "no CPU figures for this window", !f.u.HasCPU || f.secs <= 0
	}},
	{TooShort, func(f *figures) (string, bool) {
		return fmt.Sprintf("too short to judge: %s, under %s", figure.Seconds(f.secs), figure.Duration(MinDuration)),
			f.u.Duration < MinDuration
	}},
	{MemoryPressured, memoryPressured},
	{Starved, starved},
	{CPUBound, cpuBound},
	{SingleThread, func(f *figures) (string, bool) {
		return "kept about one CPU busy (" + cpusOf(f) + "): one thread did the work",
			f.n >= 2 && f.busy >= SingleThreadCPUs
	}},
	{IOBound, ioBound},
}

func cpuBound(f *figures) (string, bool) {
	if !(f.n > 0 && f.busy >= CPUBoundShare*float64(f.n)) && f.busy <= ParallelCPUs {
		return "", false
	}
	r := "kept " + cpusOf(f) + " busy"
	if w := f.cpuWait; w.ok && w.own && w.share >= CPUStallShare {
		// Its own tasks queued for the CPUs: it had more work at once
		// than CPUs (neighbours were too few to make it starved).
		r += fmt.Sprintf(", and its tasks waited for a CPU %s of the time: more CPUs would help", percent(w.share))
	}
	return r, true
}

func memoryPressured(f *figures) (string, bool) {
	if f.u.HasOOMKills && f.u.OOMKills > 0 {
		return fmt.Sprintf("the OOM killer killed %d of its processes", f.u.OOMKills), true
	}
	w := f.memWait
	if w.ok && w.share >= MemoryStallShare {
		return fmt.Sprintf("%s for memory %s of the time", w.who, percent(w.share)), true
	}
	return "", false
}

func starved(f *figures) (string, bool) {
	if f.stealOK && f.steal >= StealShare {
		if _, io := ioBound(f); io && f.ioWait.share > f.steal {
			// A virtual machine's disk IO is done by its host, which takes
			// CPU time from it while it waits: waiting for IO longer than
			// the steal took is io-bound.
			return "", false
		}
		return fmt.Sprintf("the hypervisor took %s of the machine's CPU time (steal) while the job used %s",
			percent(f.steal), cpus(f.busy)), true
	}
	if !f.machineOK || f.machine < BusyMachine || f.others < NeighbourShare {
		return "", false
	}
	w := f.cpuWait
	if !w.ok || w.share < CPUStallShare || (!w.own && (f.busy < MinActiveCPUs || f.busy >= SingleThreadCPUs)) {
		return "", false
	}
	if f.ioWait.ok && f.ioWait.share > w.share {
		return "", false // it waited for IO longer: that rule decides
	}
	return fmt.Sprintf("%s for CPU %s of the time while the machine was %s busy, %s by others, and the job used %s",
		w.who, percent(w.share), percent(f.machine), cpus(f.others*float64(f.n)), cpus(f.busy)), true
}

func ioBound(f *figures) (string, bool) {
	w := f.ioWait
	if !w.ok || w.share < IOStallShare {
		return "", false
	}
	moved := f.u.ReadBytes + f.u.WriteBytes
	if !w.own && !(f.u.HasIO && moved >= MinIOBytes) {
		return "", false
	}
	r := fmt.Sprintf("%s for IO %s of the time", w.who, percent(w.share))
	if f.u.HasIO {
		r += fmt.Sprintf(" and the job moved %s", bytes(moved))
	}
	return r + " while it used " + cpus(f.busy), true
}

func waitingReason(f *figures) string {
	r := "used " + cpusOf(f) + " and waited little for CPU, IO or memory"
	if f.u.HasNetwork {
		if n := f.u.NetworkReceive + f.u.NetworkTransmit; n >= MinIOBytes {
			r += fmt.Sprintf("; the machine's network moved %s", bytes(n))
		}
	}
	return r
}

// figures are what the rules read, derived once from a usage.
type figures struct {
	u    *usage.Usage
	secs float64
	n    int     // CPUs, 0 when unknown
	busy float64 // CPUs the job kept busy: its CPU time over the duration

	machineOK bool
	machine   float64 // the machine's share of CPU not idle
	others    float64 // share of all CPUs busy with others than the job
	stealOK   bool
	steal     float64 // share of the machine's CPU time stolen

	cpuWait, memWait, ioWait wait
}

// wait is a stall time as a share of the window, from the job's own
// cgroup (own) when it has one, else the machine's.
type wait struct {
	ok, own bool
	share   float64
	who     string // who waited, for the reason
}

func figuresOf(u *usage.Usage) figures {
	f := figures{u: u, secs: u.Duration.Seconds(), n: u.NumCPU}
	if f.secs > 0 {
		f.busy = u.CPU().Seconds() / f.secs
	}
	if u.HasSystemCPU {
		f.machineOK = true
		f.machine = u.SystemCPUAvg
		if f.n > 0 {
			f.others = clamp01(u.SystemCPUAvg - f.busy/float64(f.n))
			if f.secs > 0 {
				f.stealOK = true
				f.steal = u.SystemCPUSteal.Seconds() / (f.secs * float64(f.n))
			}
		}
	}
	f.cpuWait = f.waitOf(u.Pressure.CPUSome, u.Pressure.HasCPUSome, u.SystemPressure.CPUSome, u.SystemPressure.HasCPUSome)
	f.memWait = f.waitOf(u.Pressure.MemorySome, u.Pressure.HasMemorySome, u.SystemPressure.MemorySome, u.SystemPressure.HasMemorySome)
	f.ioWait = f.waitOf(u.Pressure.IOSome, u.Pressure.HasIOSome, u.SystemPressure.IOSome, u.SystemPressure.HasIOSome)
	if !f.ioWait.ok && u.HasSystemCPU && f.secs > 0 {
		// Without stall figures (a kernel without PSI), the CPUs' time
		// idle with IO outstanding: at most one CPU's worth counts, as
		// "some" would.
		f.ioWait = wait{ok: true, share: min(u.SystemCPUIOWait.Seconds()/f.secs, 1), who: "the machine's CPUs idled"}
	}
	return f
}

func (f *figures) waitOf(own time.Duration, hasOwn bool, sys time.Duration, hasSys bool) wait {
	if f.secs <= 0 {
		return wait{}
	}
	switch {
	case f.u.HasPressure && hasOwn:
		return wait{ok: true, own: true, share: own.Seconds() / f.secs, who: "waited"}
	case f.u.HasSystemPressure && hasSys:
		return wait{ok: true, share: sys.Seconds() / f.secs, who: "the machine's tasks waited"}
	}
	return wait{}
}

// cpusOf is the CPUs the job kept busy, out of the machine's when known.
func cpusOf(f *figures) string {
	if f.n > 0 {
		return fmt.Sprintf("%s of %d CPUs", number(f.busy), f.n)
	}
	return cpus(f.busy)
}

func cpus(v float64) string {
	if s := number(v); s != "1" {
		return s + " CPUs"
	}
	return "1 CPU"
}

// number writes CPUs busy as a count (figure.Count), and one that would
// read as 0 as "under 0.01", so that a small figure does not read as none.
func number(v float64) string {
	if v > 0 && v < 0.005 {
		return "under 0.01"
	}
	return figure.Count(v)
}

// percent writes a share of 1 as a percentage (figure.Percent).
func percent(share float64) string { return figure.Percent(share * 100) }

// bytes writes a size (figure.Bytes).
func bytes(n uint64) string { return figure.Bytes(float64(n)) }

func clamp01(v float64) float64 { return min(max(v, 0), 1) }

// Attribute keys of the verdict of a phase's span, and of the job's span
// (docs/attributes.md).
const (
	AttrKind   = attribute.Key("jobtrace.phase.verdict")
	AttrReason = attribute.Key("jobtrace.phase.verdict.reason")
)

// AttributeKeys lists every key Attributes sets, for the test that checks
// docs/attributes.md and for the span limits.
var AttributeKeys = []attribute.Key{AttrKind, AttrReason}

// Attributes returns the verdict as span attributes; none for the zero
// Verdict.
func (v Verdict) Attributes() []attribute.KeyValue {
	if v.Kind == "" {
		return nil
	}
	return []attribute.KeyValue{AttrKind.String(string(v.Kind)), AttrReason.String(v.Reason)}
}

// MaxReasonBytes bounds the reason FromAttributes reads back. The reasons
// Judge writes are one sentence of about 120 bytes; spans written by
// another tool, or edited, may carry any length, and every reader (the
// summary, the report, the profile, the diff) shows the reason as it is
// read back here. A longer reason is cut at a character boundary and ends
// with "…", so the cut shows.
const MaxReasonBytes = 256

// FromAttributes reads back the verdict that Attributes wrote; false when
// the attributes hold no verdict of a known kind (of another type than
// string, or a word jobtrace does not know). A key set twice counts as its
// last. The reason comes back cleaned (cleantext.String) and bounded by
// MaxReasonBytes: it is the one door through which a verdict read from
// artifacts reaches what jobtrace renders.
func FromAttributes(attrs []attribute.KeyValue) (Verdict, bool) {
	var v Verdict
	for _, kv := range attrs {
		if kv.Value.Type() != attribute.STRING {
			if kv.Key == AttrKind {
				v.Kind = ""
			}
			continue
		}
		switch kv.Key {
		case AttrKind:
			v.Kind = Kind(kv.Value.AsString())
		case AttrReason:
			v.Reason = kv.Value.AsString()
		}
	}
	if !v.Kind.Known() {
		return Verdict{}, false
	}
	v.Reason = cleantext.Cut(cleantext.String(v.Reason), MaxReasonBytes)
	return v, true
}
