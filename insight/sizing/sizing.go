package sizing

import (
	"fmt"
	"math"
	"math/bits"
	"strconv"
	"strings"
	"time"

	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/internal/figure"
)

// Figures are what the advice is made from: the job's use of CPUs and
// memory over its samples, and what the machine had. Each group has a Has
// flag: a figure that could not be measured is absent, not zero.
type Figures struct {
	// Duration is the job's duration, from its start to its exit, as
	// every artifact shows it (usage.Usage.Duration); the time from its
	// first sample to its last when it is not known.
	Duration time.Duration
	// NumCPU and MachineMemory are the machine's (0 when unknown); its
	// memory is what it had in use plus what was available, the two
	// figures resource-usage.csv has (runmodel).
	NumCPU        int
	MachineMemory uint64

	// HasCPU is set when the job's CPU time was read over some time.
	HasCPU bool
	// CPUBusyP95 is the CPUs the job kept busy at most for 95 % of the
	// time (Quantile of BusyCPUs); CPUBusyPeak the most over any span
	// between samples; AboveOneCPU the time it kept more than one busy.
	CPUBusyP95, CPUBusyPeak float64
	AboveOneCPU             time.Duration

	// HasMemory: the job's memory in use was read. MemoryPeak is the
	// most at a sample, or the job's cgroup's memory.peak when higher.
	HasMemory  bool
	MemoryPeak uint64

	// HasMemoryStall: pressure stall information for memory was read.
	// MemoryStall is the time in which some of the job's tasks waited for
	// memory (its own cgroup's memory.pressure), or, when MachineStall is
	// set, some task of the machine's (/proc/pressure/memory): the job had
	// no cgroup of its own.
	HasMemoryStall bool
	MemoryStall    time.Duration
	MachineStall   bool

	// HasOOMKills: the job's own cgroup's OOM kills were read.
	HasOOMKills bool
	OOMKills    uint64

	// HasSwap: the machine's swap in use was read. Swapped is how much it
	// grew during the job: the most in use at a sample less what was in
	// use at the first.
	HasSwap bool
	Swapped uint64

	// Verdict is the job's verdict (insight/verdict), judged from its
	// usage; its Kind is empty when unknown. A job starved of CPU used
	// fewer CPUs than it wanted.
	Verdict verdict.Verdict
}

// SetCPU sets the CPU figures from the histogram of CPUs busy.
func (f *Figures) SetCPU(b *BusyCPUs) {
	f.HasCPU = b.Time() > 0
	f.CPUBusyP95, f.CPUBusyPeak, f.AboveOneCPU = b.Quantile(Quantile), b.Peak(), b.AboveOne()
}

// The rules' numbers (docs/insight.md, "Right-sizing").
const (
	// Quantile is the share of the job's time its CPUs busy are taken
	// at: short bursts above it (a link step, a test's start) do not size
	// the machine.
	Quantile = 0.95
	// MinDuration is the shortest job sized: over a few samples the
	// 95th percentile is only the peak, and start-up is most of the job.
	MinDuration = 10 * time.Second
	// CPUHeadroom is added to the CPUs busy before they are rounded up to
	// a machine's: the job shares the machine with the runner, the
	// agent and the kernel.
	CPUHeadroom = 0.10
	// SaturatedShare is the share of the machine's CPUs at or above which
	// the job kept them all busy: it took what it was given, and more
	// CPUs may make it faster; what it would use cannot be told.
	SaturatedShare = 0.90
	// MemoryHeadroom is added to the peak memory before it is rounded up
	// to a machine's: the next run's input may be larger.
	MemoryHeadroom = 0.25
	// SystemMemory is kept for the system besides the job: the kernel,
	// the CI runner, the agent and their page cache.
	SystemMemory = 1 << 30
	// SwapMin is the growth of the machine's swap in use that counts as
	// swapping: a few pages moved out are not a shortage.
	SwapMin = 64 << 20
)

// Kind is what the advice says, in a word.
type Kind string

// The kinds of advice.
const (
	// Sized: a machine size is suggested (Advice.CPUs, Advice.Memory).
	Sized Kind = "sized"
	// NeedsMemory: the job was short of memory (OOM kills, memory
	// pressure or swapping); Advice.Memory is the least to try.
	NeedsMemory Kind = "needs-memory"
	// NeedsCPUs: the job kept every CPU of the machine busy;
	// Advice.CPUs is the next size up.
	NeedsCPUs Kind = "needs-cpus"
	// Starved: the job's verdict is starved (insight/verdict): others
	// took the CPU it waited for, so what it used is not what it needs,
	// and no CPUs are suggested; Advice.Memory is.
	Starved Kind = "starved"
	// TooShort: the job was too short to size a machine for.
	TooShort Kind = "too-short"
	// Unknown: no CPU or memory figure was read.
	Unknown Kind = "unknown"
)

// Advice is the right-sizing advice for a job.
type Advice struct {
	Kind Kind
	// Text is the advice in one plain sentence, with its evidence.
	Text string
	// CPUs and Memory (bytes) are the machine suggested; 0 when none is
	// (too short, unknown, or no figure of that resource).
	CPUs   int
	Memory uint64
	Figures
}

// Advise gives the advice for a job's figures. The first rule that holds
// decides: no figures; short of memory (OOM kills, then memory pressure
// for at least verdict.MemoryStallShare of its time, then swapping); too
// short; every CPU busy; starved of CPU by others (its verdict); otherwise
// a size.
func Advise(f Figures) Advice {
	a := Advice{Figures: f}
	if !f.HasCPU && !f.HasMemory {
		a.Kind, a.Text = Unknown, "no CPU or memory figures of the job: no advice"
		return a
	}
	if short := memoryShort(&f); short != "" {
		// The peak of a job short of memory is what it got, not what
		// it wanted: the size suggested is one step above its peak's.
		a.Kind, a.Text = NeedsMemory, short+": needs more memory"
		if f.HasMemory {
			a.Memory = 2 * memoryFor(f.MemoryPeak)
			a.Text += ", " + bytesText(a.Memory) + " or more"
		}
		if f.Duration >= MinDuration {
			a.CPUs = a.cpusFor()
		}
		return a
	}
	if f.Duration < MinDuration {
		a.Kind = TooShort
		a.Text = fmt.Sprintf("ran %s: too short to size a machine for (%s at least)", figure.Duration(f.Duration), figure.Duration(MinDuration))
		return a
	}
	a.Kind, a.CPUs = Sized, a.cpusFor()
	if f.HasMemory {
		a.Memory = memoryFor(f.MemoryPeak)
	}
	saturated := f.HasCPU && f.NumCPU > 0 && f.CPUBusyP95 >= SaturatedShare*float64(f.NumCPU)
	if f.Verdict.Kind == verdict.Starved && !saturated {
		a.Kind, a.CPUs = Starved, 0
		a.Text = f.Verdict.Reason + ": too starved to size its CPUs"
		if f.HasMemory {
			a.Text += "; at most " + bytesText(f.MemoryPeak) + ": " + bytesText(a.Memory) + " of memory would do"
		}
		return a
	}
	var used []string
	switch {
	case saturated:
		a.Kind, a.CPUs = NeedsCPUs, nextPow2(f.NumCPU+1)
		used = append(used, fmt.Sprintf("kept all %d CPUs busy (%s at p95)", f.NumCPU, figure.Count(f.CPUBusyP95)))
	case f.HasCPU:
		u := "used " + figure.Count(f.CPUBusyP95)
		if f.NumCPU > 0 {
			u += " of " + strconv.Itoa(f.NumCPU)
		}
		u += " CPUs (p95"
		if f.AboveOneCPU > 0 {
			u += "; more than one for " + figure.Duration(f.AboveOneCPU)
		}
		used = append(used, u+")")
	}
	if f.HasMemory {
		m := "at most " + bytesText(f.MemoryPeak)
		if a.Kind != Sized || !f.HasCPU {
			m = "used " + m
		}
		used = append(used, m)
	}
	would := " would do"
	if a.Kind == NeedsCPUs {
		would = " would make it faster"
	}
	a.Text = strings.Join(used, " and ") + ": " + machineText(a.CPUs, a.Memory) + would
	return a
}

// memoryShort is the evidence that the job was short of memory, "" when
// it was not.
func memoryShort(f *Figures) string {
	switch {
	case f.HasOOMKills && f.OOMKills > 0:
		s := fmt.Sprintf("%d %s OOM-killed", f.OOMKills, plural(f.OOMKills, "process was", "processes were"))
		if f.HasMemory {
			s += " at " + bytesText(f.MemoryPeak)
		}
		return s
	case f.HasMemoryStall && f.MemoryStall > 0 && f.MemoryStall.Seconds() >= verdict.MemoryStallShare*f.Duration.Seconds():
		// The share that makes a window memory-pressured (insight/verdict):
		// the job's verdict and its advice say the same.
		if f.MachineStall {
			return "the machine was under memory pressure for " + figure.Duration(f.MemoryStall)
		}
		return "hit memory pressure for " + figure.Duration(f.MemoryStall)
	case f.HasSwap && f.Swapped >= SwapMin:
		return "the machine swapped " + bytesText(f.Swapped) + " out"
	}
	return ""
}

// cpusFor is the CPUs suggested for the job's busy CPUs, 0 without them.
func (a *Advice) cpusFor() int {
	if !a.HasCPU {
		return 0
	}
	return CPUsFor(a.CPUBusyP95)
}

// CPUsFor is the machine's CPUs for busy CPUs kept busy: busy with
// CPUHeadroom, rounded up to a power of two, at least 1.
func CPUsFor(busy float64) int {
	need := math.Ceil(max(busy, 0) * (1 + CPUHeadroom))
	if need > 1<<20 {
		return 1 << 20
	}
	return nextPow2(int(need))
}

// memoryFor is the machine's memory for a peak: the peak with
// MemoryHeadroom and SystemMemory, rounded up to a power of two GiB.
func memoryFor(peak uint64) uint64 {
	need := float64(peak)*(1+MemoryHeadroom) + SystemMemory
	gibs := math.Ceil(need / (1 << 30))
	if gibs > 1<<30 {
		return 1 << 60
	}
	return uint64(nextPow2(int(gibs))) << 30
}

// nextPow2 is the least power of two ≥ n, at least 1.
func nextPow2(n int) int {
	if n <= 1 {
		return 1
	}
	return 1 << bits.Len(uint(n-1))
}

// machineText names a machine: "a 4-CPU, 8 GiB machine".
func machineText(cpuN int, mem uint64) string {
	var parts []string
	if cpuN > 0 {
		parts = append(parts, strconv.Itoa(cpuN)+"-CPU")
	}
	if mem > 0 {
		parts = append(parts, bytesText(mem))
	}
	s := strings.Join(parts, ", ") + " machine"
	if strings.HasPrefix(s, "8") {
		return "an " + s
	}
	return "a " + s
}

func plural(n uint64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// bytesText writes memory, the job's or the machine's, as every renderer
// writes a size (figure.Bytes).
func bytesText(b uint64) string { return figure.Bytes(float64(b)) }
