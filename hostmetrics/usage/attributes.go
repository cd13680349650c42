package usage

import (
	"math"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/internal/readback"
)

// Usage is what a phase (or the job) cost over its window. Each group has a
// Has flag: a figure the system could not give is absent, not zero.
type Usage struct {
	// Duration is the phase's wall time, its span's end less its start
	// (SetSpan), or the job's, from its start to its exit (its span ends
	// later, once jobtrace's own shutdown work, a span of its own, is
	// done): the one duration every artifact shows and the verdict and the
	// advice judge by. The window of samples the other figures were taken
	// over may be longer (a phase added after it ended) or shorter. The
	// job's average share of the CPUs (CPUAvg) is its CPU time over
	// Duration × NumCPU, at most 1: its CPUs busy (CPUsBusy) over the
	// machine's CPUs, one figure wherever either shows. Only the peaks
	// (CPUPeak at least CPUAvg) and the machine's CPU are rates over the
	// window, as they need its samples. A Window does not know the span:
	// its End leaves Duration zero, and CPUAvg over the window, until
	// SetSpan or SetDuration.
	Duration time.Duration
	Samples  int // samples in the window, both boundaries included
	NumCPU   int

	// The job's own cost: its cgroup when it has one, else its process
	// tree.
	HasCPU             bool
	CPUUser, CPUSystem time.Duration
	CPUAvg, CPUPeak    float64 // share of all CPUs, 0 to 1 (CPUAvg: see Duration)
	HasMemory          bool
	MemoryPeak         uint64 // bytes
	HasIO              bool
	ReadBytes          uint64
	WriteBytes         uint64
	HasPressure        bool // the job's own cgroup's stall time
	Pressure           Stalls
	HasOOMKills        bool
	OOMKills           uint64

	// The machine's figures over the same window.
	HasSystemCPU                    bool
	SystemCPUAvg, SystemCPUPeak     float64 // share of all CPUs not idle, 0 to 1
	SystemCPUIOWait, SystemCPUSteal time.Duration
	HasSystemMemory                 bool
	SystemMemoryPeak                uint64 // bytes in use
	HasSystemDisk                   bool
	SystemReadBytes                 uint64
	SystemWriteBytes                uint64
	HasNetwork                      bool
	NetworkReceive                  uint64 // bytes, loopback excluded
	NetworkTransmit                 uint64
	HasSystemPressure               bool
	SystemPressure                  Stalls
}

// Stalls is pressure stall time over a window: time during which some (or
// all) non-idle tasks waited for the resource.
type Stalls struct {
	CPUSome, MemorySome, MemoryFull, IOSome, IOFull                time.Duration
	HasCPUSome, HasMemorySome, HasMemoryFull, HasIOSome, HasIOFull bool
}

// Has reports whether any stall figure is present.
func (s Stalls) Has() bool {
	return s.HasCPUSome || s.HasMemorySome || s.HasMemoryFull || s.HasIOSome || s.HasIOFull
}

// CPU returns user + system CPU time.
func (u *Usage) CPU() time.Duration { return u.CPUUser + u.CPUSystem }

// SetSpan sets the duration to the span's, from start to end
// (SpanDuration), by SetDuration.
func (u *Usage) SetSpan(start, end time.Time) {
	u.SetDuration(SpanDuration(start, end))
}

// SetDuration sets Duration to d, and the job's average share of the CPUs
// to its CPUs busy over it (CPUsBusy) over the machine's CPUs, the peak at
// least as high: the window's average, taken over its samples, may be over
// a longer time (a phase added after it ended, its samples 10 s apart) or
// a shorter one. Without a duration or the machine's CPUs, the window's
// average stays.
func (u *Usage) SetDuration(d time.Duration) {
	u.Duration = d
	if busy, ok := u.CPUsBusy(); ok && u.NumCPU > 0 {
		u.CPUAvg = busy / float64(u.NumCPU)
		u.CPUPeak = max(u.CPUPeak, u.CPUAvg)
	}
}

// CPUsBusy is the CPUs the job kept busy: its CPU time over Duration, at
// most NumCPU when that is known (CPU time taken over a window wider than
// the span would otherwise say more). false without the job's CPU time or
// a duration. The verdict's busy (verdict.Figures.Busy), jobtrace diff's
// CPUs busy and CPUAvg are this one figure.
func (u *Usage) CPUsBusy() (float64, bool) {
	if !u.HasCPU || u.Duration <= 0 {
		return 0, false
	}
	busy := u.CPU().Seconds() / u.Duration.Seconds()
	if u.NumCPU > 0 {
		busy = min(busy, float64(u.NumCPU))
	}
	return busy, true
}

// SpanDuration is the duration of a span from start to end: none when
// either is unknown (zero) or end is before start. It is the one rule of a
// duration from two times: a phase's span's (SetSpan) and the job's, from
// its start to its exit.
func SpanDuration(start, end time.Time) time.Duration {
	if start.IsZero() || end.IsZero() || !end.After(start) {
		return 0
	}
	return end.Sub(start)
}

// Attribute keys of the usage of a phase or of the job, documented in
// docs/attributes.md. No semantic convention exists for the cost of a span;
// the names follow the metrics they are deltas of.
const (
	AttrCPUUser        = attribute.Key("jobtrace.usage.cpu.user")
	AttrCPUSystem      = attribute.Key("jobtrace.usage.cpu.system")
	AttrCPUAvg         = attribute.Key("jobtrace.usage.cpu.utilization.avg")
	AttrCPUPeak        = attribute.Key("jobtrace.usage.cpu.utilization.peak")
	AttrMemoryPeak     = attribute.Key("jobtrace.usage.memory.peak")
	AttrDiskRead       = attribute.Key("jobtrace.usage.disk.read")
	AttrDiskWrite      = attribute.Key("jobtrace.usage.disk.write")
	AttrStallCPU       = attribute.Key("jobtrace.usage.pressure.cpu.some")
	AttrStallMemory    = attribute.Key("jobtrace.usage.pressure.memory.some")
	AttrStallMemFull   = attribute.Key("jobtrace.usage.pressure.memory.full")
	AttrStallIO        = attribute.Key("jobtrace.usage.pressure.io.some")
	AttrStallIOFull    = attribute.Key("jobtrace.usage.pressure.io.full")
	AttrOOMKills       = attribute.Key("jobtrace.usage.oom_kills")
	AttrSamples        = attribute.Key("jobtrace.usage.samples")
	AttrSysCPUAvg      = attribute.Key("jobtrace.system.cpu.utilization.avg")
	AttrSysCPUPeak     = attribute.Key("jobtrace.system.cpu.utilization.peak")
	AttrSysCPUIOWait   = attribute.Key("jobtrace.system.cpu.iowait")
	AttrSysCPUSteal    = attribute.Key("jobtrace.system.cpu.steal")
	AttrSysMemoryPeak  = attribute.Key("jobtrace.system.memory.peak")
	AttrSysDiskRead    = attribute.Key("jobtrace.system.disk.read")
	AttrSysDiskWrite   = attribute.Key("jobtrace.system.disk.write")
	AttrSysNetReceive  = attribute.Key("jobtrace.system.network.receive")
	AttrSysNetTransmit = attribute.Key("jobtrace.system.network.transmit")
	AttrSysStallCPU    = attribute.Key("jobtrace.system.pressure.cpu.some")
	AttrSysStallMemory = attribute.Key("jobtrace.system.pressure.memory.some")
	AttrSysStallIO     = attribute.Key("jobtrace.system.pressure.io.some")
)

// Attribute keys of a phase added after it ended (docs/attributes.md): the
// times of the samples its usage was computed between (History.Over), or
// why it has none.
const (
	AttrWindowStart = attribute.Key("jobtrace.usage.window.start")
	AttrWindowEnd   = attribute.Key("jobtrace.usage.window.end")
	AttrNone        = attribute.Key("jobtrace.usage.none")
)

// windowKeys are the keys of a phase added after it ended: the window its
// usage was measured over, or why it has none.
var windowKeys = [...]attribute.Key{AttrWindowStart, AttrWindowEnd, AttrNone}

// NumWindowKeys is how many keys a phase added after it ended has for its
// window, which the room kept on its span for jobtrace's own attributes
// counts.
const NumWindowKeys = len(windowKeys)

// AttributeKeys returns every key Attributes can set, in order, for the
// test that checks docs/attributes.md.
func AttributeKeys() []attribute.Key { return slices.Clone(attributeKeys[:]) }

// NumAttributeKeys is len(AttributeKeys()).
const NumAttributeKeys = len(attributeKeys)

var attributeKeys = [...]attribute.Key{
	AttrCPUUser, AttrCPUSystem, AttrCPUAvg, AttrCPUPeak, AttrMemoryPeak,
	AttrDiskRead, AttrDiskWrite, AttrStallCPU, AttrStallMemory, AttrStallMemFull,
	AttrStallIO, AttrStallIOFull, AttrOOMKills, AttrSamples,
	AttrSysCPUAvg, AttrSysCPUPeak, AttrSysCPUIOWait, AttrSysCPUSteal, AttrSysMemoryPeak,
	AttrSysDiskRead, AttrSysDiskWrite, AttrSysNetReceive, AttrSysNetTransmit,
	AttrSysStallCPU, AttrSysStallMemory, AttrSysStallIO,
}

// Attributes returns the usage as span attributes: durations in seconds
// (double), sizes in bytes (int), utilisations as a share of all CPUs
// (double, 0 to 1). Absent figures are left out.
func (u *Usage) Attributes() []attribute.KeyValue {
	a := make([]attribute.KeyValue, 0, len(attributeKeys))
	if u.HasCPU {
		a = append(a,
			AttrCPUUser.Float64(readback.SecondsOf(u.CPUUser)),
			AttrCPUSystem.Float64(readback.SecondsOf(u.CPUSystem)),
			AttrCPUAvg.Float64(round4(u.CPUAvg)),
			AttrCPUPeak.Float64(round4(u.CPUPeak)))
	}
	if u.HasMemory {
		a = append(a, AttrMemoryPeak.Int64(int64(u.MemoryPeak)))
	}
	if u.HasIO {
		a = append(a, AttrDiskRead.Int64(int64(u.ReadBytes)), AttrDiskWrite.Int64(int64(u.WriteBytes)))
	}
	if u.HasPressure {
		a = stallAttrs(a, u.Pressure, AttrStallCPU, AttrStallMemory, AttrStallMemFull, AttrStallIO, AttrStallIOFull)
	}
	if u.HasOOMKills {
		a = append(a, AttrOOMKills.Int64(int64(u.OOMKills)))
	}
	if u.Samples > 0 {
		a = append(a, AttrSamples.Int(u.Samples))
	}
	if u.HasSystemCPU {
		a = append(a,
			AttrSysCPUAvg.Float64(round4(u.SystemCPUAvg)),
			AttrSysCPUPeak.Float64(round4(u.SystemCPUPeak)),
			AttrSysCPUIOWait.Float64(readback.SecondsOf(u.SystemCPUIOWait)),
			AttrSysCPUSteal.Float64(readback.SecondsOf(u.SystemCPUSteal)))
	}
	if u.HasSystemMemory {
		a = append(a, AttrSysMemoryPeak.Int64(int64(u.SystemMemoryPeak)))
	}
	if u.HasSystemDisk {
		a = append(a, AttrSysDiskRead.Int64(int64(u.SystemReadBytes)), AttrSysDiskWrite.Int64(int64(u.SystemWriteBytes)))
	}
	if u.HasNetwork {
		a = append(a, AttrSysNetReceive.Int64(int64(u.NetworkReceive)), AttrSysNetTransmit.Int64(int64(u.NetworkTransmit)))
	}
	if u.HasSystemPressure {
		a = stallAttrs(a, u.SystemPressure, AttrSysStallCPU, AttrSysStallMemory, "", AttrSysStallIO, "")
	}
	return a
}

// MaxFigure bounds a figure read back from a span or a file:
// readback.MaxFigure, the one rule's bound.
const MaxFigure = readback.MaxFigure

// FromAttributes reads back the usage that Attributes wrote: the inverse
// of Attributes, so that a span's usage is read by one function wherever
// the span comes from (the SDK in memory, or a spool read back). Each
// figure is read by the rule of package readback (readback.Number: an
// int or a float from 0 to MaxFigure, a key set twice counted as its
// last), so that usage set by another tool in the other type is still
// read and a damaged figure counts as absent. A group (CPU, IO, disk,
// network) is present when all its keys are. Duration and NumCPU are not
// attributes and stay zero: the span's times give Duration (SetSpan).
func FromAttributes(attrs []attribute.KeyValue) Usage {
	nums := make(map[attribute.Key]float64, len(attributeKeys))
	for _, k := range attributeKeys {
		if f, ok := readback.Number(attrs, k); ok {
			nums[k] = f
		}
	}
	has := func(keys ...attribute.Key) bool {
		for _, k := range keys {
			if _, ok := nums[k]; !ok {
				return false
			}
		}
		return true
	}
	num := func(k attribute.Key) float64 { return nums[k] }
	count := func(k attribute.Key) uint64 { return readback.Count(num(k)) }
	dur := func(k attribute.Key) time.Duration { return readback.Seconds(num(k)) }
	stall := func(k attribute.Key) (time.Duration, bool) {
		if k == "" || !has(k) {
			return 0, false
		}
		return dur(k), true
	}

	var u Usage
	if u.HasCPU = has(AttrCPUUser, AttrCPUSystem, AttrCPUAvg, AttrCPUPeak); u.HasCPU {
		u.CPUUser, u.CPUSystem = dur(AttrCPUUser), dur(AttrCPUSystem)
		u.CPUAvg, u.CPUPeak = num(AttrCPUAvg), num(AttrCPUPeak)
	}
	if u.HasMemory = has(AttrMemoryPeak); u.HasMemory {
		u.MemoryPeak = count(AttrMemoryPeak)
	}
	if u.HasIO = has(AttrDiskRead, AttrDiskWrite); u.HasIO {
		u.ReadBytes, u.WriteBytes = count(AttrDiskRead), count(AttrDiskWrite)
	}
	u.Pressure = stallsOf(stall, AttrStallCPU, AttrStallMemory, AttrStallMemFull, AttrStallIO, AttrStallIOFull)
	u.HasPressure = u.Pressure.Has()
	if u.HasOOMKills = has(AttrOOMKills); u.HasOOMKills {
		u.OOMKills = count(AttrOOMKills)
	}
	if has(AttrSamples) {
		u.Samples = int(min(num(AttrSamples), math.MaxInt32))
	}
	if u.HasSystemCPU = has(AttrSysCPUAvg, AttrSysCPUPeak, AttrSysCPUIOWait, AttrSysCPUSteal); u.HasSystemCPU {
		u.SystemCPUAvg, u.SystemCPUPeak, u.SystemCPUIOWait, u.SystemCPUSteal =
			num(AttrSysCPUAvg), num(AttrSysCPUPeak), dur(AttrSysCPUIOWait), dur(AttrSysCPUSteal)
	}
	if u.HasSystemMemory = has(AttrSysMemoryPeak); u.HasSystemMemory {
		u.SystemMemoryPeak = count(AttrSysMemoryPeak)
	}
	if u.HasSystemDisk = has(AttrSysDiskRead, AttrSysDiskWrite); u.HasSystemDisk {
		u.SystemReadBytes, u.SystemWriteBytes = count(AttrSysDiskRead), count(AttrSysDiskWrite)
	}
	if u.HasNetwork = has(AttrSysNetReceive, AttrSysNetTransmit); u.HasNetwork {
		u.NetworkReceive, u.NetworkTransmit = count(AttrSysNetReceive), count(AttrSysNetTransmit)
	}
	u.SystemPressure = stallsOf(stall, AttrSysStallCPU, AttrSysStallMemory, "", AttrSysStallIO, "")
	u.HasSystemPressure = u.SystemPressure.Has()
	return u
}

// stallsOf is the inverse of stallAttrs.
func stallsOf(get func(attribute.Key) (time.Duration, bool), cpu, mem, memFull, io, ioFull attribute.Key) Stalls {
	var s Stalls
	s.CPUSome, s.HasCPUSome = get(cpu)
	s.MemorySome, s.HasMemorySome = get(mem)
	s.MemoryFull, s.HasMemoryFull = get(memFull)
	s.IOSome, s.HasIOSome = get(io)
	s.IOFull, s.HasIOFull = get(ioFull)
	return s
}

func stallAttrs(a []attribute.KeyValue, s Stalls, cpu, mem, memFull, io, ioFull attribute.Key) []attribute.KeyValue {
	add := func(k attribute.Key, d time.Duration, ok bool) {
		if ok && k != "" {
			a = append(a, k.Float64(readback.SecondsOf(d)))
		}
	}
	add(cpu, s.CPUSome, s.HasCPUSome)
	add(mem, s.MemorySome, s.HasMemorySome)
	add(memFull, s.MemoryFull, s.HasMemoryFull)
	add(io, s.IOSome, s.HasIOSome)
	add(ioFull, s.IOFull, s.HasIOFull)
	return a
}

func round4(v float64) float64 {
	return float64(int64(v*10000+0.5)) / 10000
}
