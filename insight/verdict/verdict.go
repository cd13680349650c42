package verdict

import (
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/internal/figure"
	"github.com/jobtrace/jobtrace/internal/readback"
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

// kinds are every kind, in the order of the rules that give them (Kinds).
var kinds = [...]Kind{Unknown, TooShort, MemoryPressured, Starved, CPUBound, SingleThread, IOBound, Waiting}

// Kinds returns every kind, in the order of the rules that give them; a
// metric's attribute takes only these values.
func Kinds() []Kind { return slices.Clone(kinds[:]) }

// Known reports whether k is one of Kinds.
func (k Kind) Known() bool {
	for _, c := range kinds {
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
		return "no CPU figures for this window", !f.HasBusy
	}},
	{TooShort, func(f *figures) (string, bool) {
		return fmt.Sprintf("too short to judge: %s, under %s", figure.Seconds(f.Seconds), figure.Duration(MinDuration)),
			f.u.Duration < MinDuration
	}},
	{MemoryPressured, memoryPressured},
	{Starved, starved},
	{CPUBound, cpuBound},
	{SingleThread, func(f *figures) (string, bool) {
		return "kept about one CPU busy (" + cpusOf(f) + "): one thread did the work",
			f.NumCPU >= 2 && f.Busy >= SingleThreadCPUs
	}},
	{IOBound, ioBound},
}

func cpuBound(f *figures) (string, bool) {
	if !(f.NumCPU > 0 && f.Busy >= CPUBoundShare*float64(f.NumCPU)) && f.Busy <= ParallelCPUs {
		return "", false
	}
	r := "kept " + cpusOf(f) + " busy"
	if w := f.CPUWait; w.OK && w.Own && w.Share >= CPUStallShare {
		// Its own tasks queued for the CPUs: it had more work at once
		// than CPUs (neighbours were too few to make it starved).
		r += fmt.Sprintf(", and its tasks waited for a CPU %s of the time: more CPUs would help", percent(w.Share))
	}
	return r, true
}

func memoryPressured(f *figures) (string, bool) {
	if f.u.HasOOMKills && f.u.OOMKills > 0 {
		return fmt.Sprintf("the OOM killer killed %d of its processes", f.u.OOMKills), true
	}
	w := f.MemoryWait
	if w.OK && w.Share >= MemoryStallShare {
		return fmt.Sprintf("%s for memory %s of the time", w.who(), percent(w.Share)), true
	}
	return "", false
}

func starved(f *figures) (string, bool) {
	if f.HasSteal && f.Steal >= StealShare {
		if _, io := ioBound(f); io && f.IOWait.Share > f.Steal {
			// A virtual machine's disk IO is done by its host, which takes
			// CPU time from it while it waits: waiting for IO longer than
			// the steal took is io-bound.
			return "", false
		}
		return fmt.Sprintf("the hypervisor took %s of the machine's CPU time (steal) while the job used %s",
			percent(f.Steal), cpus(f.Busy)), true
	}
	if !f.HasOthers || f.Machine < BusyMachine || f.Others < NeighbourShare {
		return "", false
	}
	w := f.CPUWait
	if !w.OK || w.Share < CPUStallShare || (!w.Own && (f.Busy < MinActiveCPUs || f.Busy >= SingleThreadCPUs)) {
		return "", false
	}
	if f.IOWait.OK && f.IOWait.Share > w.Share {
		return "", false // it waited for IO longer: that rule decides
	}
	return fmt.Sprintf("%s for CPU %s of the time while the machine was %s busy, %s by others, and the job used %s",
		w.who(), percent(w.Share), percent(f.Machine), cpus(f.Others*float64(f.NumCPU)), cpus(f.Busy)), true
}

func ioBound(f *figures) (string, bool) {
	w := f.IOWait
	if !w.OK || w.Share < IOStallShare {
		return "", false
	}
	moved := f.u.ReadBytes + f.u.WriteBytes
	if !w.Own && !(f.u.HasIO && moved >= MinIOBytes) {
		return "", false
	}
	r := fmt.Sprintf("%s for IO %s of the time", w.who(), percent(w.Share))
	if f.u.HasIO {
		r += fmt.Sprintf(" and the job moved %s", bytes(moved))
	}
	return r + " while it used " + cpus(f.Busy), true
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

// Figures are what the rules read, derived once from a usage by FiguresOf:
// jobtrace diff compares the same figures (package rundiff), so that a
// phase's CPUs busy, the share its neighbours took and its stall shares are
// one figure wherever they show. Shares of time are over the phase's
// duration, its span's (usage.Usage.Duration), as the job's share of the
// CPUs is (usage.Usage.CPUAvg, Busy over NumCPU); the machine's CPU is a
// rate over the samples of the phase's window.
type Figures struct {
	// Seconds is the duration in seconds, 0 when unknown; NumCPU the
	// machine's CPUs, 0 when unknown.
	Seconds float64
	NumCPU  int
	// Busy is the CPUs the job kept busy: its CPU time over the duration,
	// at most NumCPU when that is known (usage.Usage.CPUsBusy, the job's
	// average share of the CPUs, CPUAvg, times NumCPU). HasBusy is false
	// without the job's CPU time or a duration.
	Busy    float64
	HasBusy bool
	// Machine is the share of all the machine's CPUs not idle (0–1), and
	// Others the share of all CPUs busy with others than the job: Machine
	// less the job's own share (Busy over NumCPU), at least 0. HasOthers
	// needs the job's CPU time and NumCPU.
	Machine, Others       float64
	HasMachine, HasOthers bool
	// Steal is the share of the machine's CPU time over the duration
	// that the hypervisor took; HasSteal needs NumCPU.
	Steal    float64
	HasSteal bool
	// CPUWait, MemoryWait and IOWait are the shares of the duration during
	// which some of the job's tasks waited for a CPU, for memory and for
	// IO.
	CPUWait, MemoryWait, IOWait Wait
}

// Wait is a stall time as a share of the duration, 0 to 1: the job's own
// cgroup's pressure stall time when it has one (Own), else the machine's
// (/proc/pressure); for IO without either, the time the machine's CPUs
// idled with IO outstanding, at most one CPU's worth (IOWait), as "some"
// would count it.
type Wait struct {
	Share           float64
	OK, Own, IOWait bool
}

// who says who waited, for a reason.
func (w Wait) who() string {
	switch {
	case w.Own:
		return "waited"
	case w.IOWait:
		return "the machine's CPUs idled"
	}
	return "the machine's tasks waited"
}

// figures are the Figures of a usage, and the usage, which the rules read.
type figures struct {
	Figures
	u *usage.Usage
}

func figuresOf(u *usage.Usage) figures { return figures{FiguresOf(u), u} }

// FiguresOf returns the figures of a phase's (or the job's) usage.
func FiguresOf(u *usage.Usage) Figures {
	f := Figures{Seconds: u.Duration.Seconds(), NumCPU: u.NumCPU}
	n := float64(f.NumCPU)
	f.Busy, f.HasBusy = u.CPUsBusy()
	if u.HasSystemCPU {
		f.Machine, f.HasMachine = usage.BoundShare(u.SystemCPUAvg), true
		if f.HasBusy && n > 0 {
			f.Others, f.HasOthers = clamp01(f.Machine-f.Busy/n), true
		}
		if f.Seconds > 0 && n > 0 {
			f.Steal, f.HasSteal = u.SystemCPUSteal.Seconds()/(f.Seconds*n), true
		}
	}
	f.CPUWait = f.waitOf(u, u.Pressure.CPUSome, u.Pressure.HasCPUSome, u.SystemPressure.CPUSome, u.SystemPressure.HasCPUSome)
	f.MemoryWait = f.waitOf(u, u.Pressure.MemorySome, u.Pressure.HasMemorySome, u.SystemPressure.MemorySome, u.SystemPressure.HasMemorySome)
	f.IOWait = f.waitOf(u, u.Pressure.IOSome, u.Pressure.HasIOSome, u.SystemPressure.IOSome, u.SystemPressure.HasIOSome)
	if !f.IOWait.OK && u.HasSystemCPU && f.Seconds > 0 {
		// Without stall figures (a kernel without PSI), the CPUs' time
		// idle with IO outstanding: at most one CPU's worth counts, as
		// "some" would.
		f.IOWait = Wait{OK: true, IOWait: true, Share: usage.BoundShare(u.SystemCPUIOWait.Seconds() / f.Seconds)}
	}
	return f
}

func (f *Figures) waitOf(u *usage.Usage, own time.Duration, hasOwn bool, sys time.Duration, hasSys bool) Wait {
	if f.Seconds <= 0 {
		return Wait{}
	}
	switch {
	case u.HasPressure && hasOwn:
		return Wait{OK: true, Own: true, Share: usage.BoundShare(own.Seconds() / f.Seconds)}
	case u.HasSystemPressure && hasSys:
		return Wait{OK: true, Share: usage.BoundShare(sys.Seconds() / f.Seconds)}
	}
	return Wait{}
}

// cpusOf is the CPUs the job kept busy, out of the machine's when known.
func cpusOf(f *figures) string {
	if f.NumCPU > 0 {
		return fmt.Sprintf("%s of %d CPUs", number(f.Busy), f.NumCPU)
	}
	return cpus(f.Busy)
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

// AttributeKeys returns every key Attributes sets, for the test that checks
// docs/attributes.md.
func AttributeKeys() []attribute.Key { return slices.Clone(attributeKeys[:]) }

// NumAttributeKeys is len(AttributeKeys()), for the span limits.
const NumAttributeKeys = len(attributeKeys)

var attributeKeys = [...]attribute.Key{AttrKind, AttrReason}

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
// last (readback.Attr), and a reason that is no string as none. The reason
// comes back cleaned (cleantext.String) and bounded by MaxReasonBytes: it
// is the one door through which a verdict read from artifacts reaches what
// jobtrace renders.
func FromAttributes(attrs []attribute.KeyValue) (Verdict, bool) {
	text := func(k attribute.Key) string {
		if v, ok := readback.Attr(attrs, k); ok && v.Type() == attribute.STRING {
			return v.AsString()
		}
		return ""
	}
	v := Verdict{Kind: Kind(text(AttrKind)), Reason: text(AttrReason)}
	if !v.Kind.Known() {
		return Verdict{}, false
	}
	v.Reason = cleantext.Cut(cleantext.String(v.Reason), MaxReasonBytes)
	return v, true
}
