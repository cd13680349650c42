package summary

import (
	"context"
	"math"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/hostmetrics/usage"
)

// MaxPhases bounds the spans Spans keeps. At about 200 bytes a span, the
// bound keeps the summary's memory near 2 MiB however many phases a job
// opens; spans past it are counted and the summary says how many.
const MaxPhases = 10000

// Phase is what Spans keeps of one ended span.
type Phase struct {
	Name       string
	ID, Parent trace.SpanID
	Start, End time.Time
	// Failed is set when the span's status is Error; Status is the
	// status description.
	Failed bool
	Status string
	// Usage is read back from the span's usage attributes.
	Usage Figures
}

// Figures is the part of a span's usage (package hostmetrics/usage) that
// the summary prints. Each group has a Has flag: a group whose attributes
// the span does not carry is absent, which is not zero.
type Figures struct {
	HasCPU bool
	// CPU is user + system CPU time.
	CPU time.Duration
	// CPUAvg and CPUPeak are in percent of all the machine's CPUs, 0–100.
	CPUAvg, CPUPeak float64

	HasMemory  bool
	MemoryPeak uint64 // bytes

	// HasIO is set when storage IO is known: the job's own, or, when
	// IOHost is set, the host's disks because the job's could not be read.
	HasIO                 bool
	IOHost                bool
	ReadBytes, WriteBytes uint64

	// HasNetwork is set when the host's network traffic (loopback
	// excluded) over the span is known.
	HasNetwork              bool
	NetReceive, NetTransmit uint64
}

// FiguresOf returns the figures of a usage.
func FiguresOf(u *usage.Usage) Figures {
	var f Figures
	if u.HasCPU {
		f.HasCPU = true
		f.CPU = u.CPU()
		f.CPUAvg, f.CPUPeak = 100*u.CPUAvg, 100*u.CPUPeak
	}
	f.HasMemory, f.MemoryPeak = u.HasMemory, u.MemoryPeak
	switch {
	case u.HasIO:
		f.HasIO, f.ReadBytes, f.WriteBytes = true, u.ReadBytes, u.WriteBytes
	case u.HasSystemDisk:
		f.HasIO, f.IOHost, f.ReadBytes, f.WriteBytes = true, true, u.SystemReadBytes, u.SystemWriteBytes
	}
	f.HasNetwork, f.NetReceive, f.NetTransmit = u.HasNetwork, u.NetworkReceive, u.NetworkTransmit
	return f
}

// figuresOfAttrs reads the usage attributes (usage.Attr*) back. A group is
// present when all its keys are; a key of the wrong type counts as absent.
// Numbers are taken as either int or float, so that usage set by another
// tool in the other type is still read.
func figuresOfAttrs(attrs []attribute.KeyValue) Figures {
	var u struct {
		user, sys, avg, peak, mem, read, write, sysRead, sysWrite, rx, tx opt
	}
	for _, kv := range attrs {
		switch kv.Key {
		case usage.AttrCPUUser:
			u.user = number(kv.Value)
		case usage.AttrCPUSystem:
			u.sys = number(kv.Value)
		case usage.AttrCPUAvg:
			u.avg = number(kv.Value)
		case usage.AttrCPUPeak:
			u.peak = number(kv.Value)
		case usage.AttrMemoryPeak:
			u.mem = number(kv.Value)
		case usage.AttrDiskRead:
			u.read = number(kv.Value)
		case usage.AttrDiskWrite:
			u.write = number(kv.Value)
		case usage.AttrSysDiskRead:
			u.sysRead = number(kv.Value)
		case usage.AttrSysDiskWrite:
			u.sysWrite = number(kv.Value)
		case usage.AttrSysNetReceive:
			u.rx = number(kv.Value)
		case usage.AttrSysNetTransmit:
			u.tx = number(kv.Value)
		}
	}
	var f Figures
	if u.user.ok && u.sys.ok && u.avg.ok && u.peak.ok {
		f.HasCPU = true
		f.CPU = time.Duration((u.user.v + u.sys.v) * float64(time.Second))
		f.CPUAvg, f.CPUPeak = percent(u.avg.v), percent(u.peak.v)
	}
	if u.mem.ok {
		f.HasMemory, f.MemoryPeak = true, uint64(u.mem.v)
	}
	switch {
	case u.read.ok && u.write.ok:
		f.HasIO, f.ReadBytes, f.WriteBytes = true, uint64(u.read.v), uint64(u.write.v)
	case u.sysRead.ok && u.sysWrite.ok:
		f.HasIO, f.IOHost, f.ReadBytes, f.WriteBytes = true, true, uint64(u.sysRead.v), uint64(u.sysWrite.v)
	}
	if u.rx.ok && u.tx.ok {
		f.HasNetwork, f.NetReceive, f.NetTransmit = true, uint64(u.rx.v), uint64(u.tx.v)
	}
	return f
}

type opt struct {
	v  float64
	ok bool
}

// number reads a non-negative, finite int or float attribute.
func number(v attribute.Value) opt {
	var f float64
	switch v.Type() {
	case attribute.INT64:
		f = float64(v.AsInt64())
	case attribute.FLOAT64:
		f = v.AsFloat64()
	default:
		return opt{}
	}
	if f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
		return opt{}
	}
	return opt{f, true}
}

// percent turns a share of all CPUs (0 to 1) into percent, bounded.
func percent(share float64) float64 { return min(share, 1) * 100 }

// Spans is a span processor that keeps, for the summary, what it needs of
// every span that ends: name, ids, times, status and usage. It keeps the
// first MaxPhases and counts the rest. It never blocks a span's end for
// longer than an append under a lock.
type Spans struct {
	mu      sync.Mutex
	phases  []Phase
	dropped int
	limit   int
}

var _ sdktrace.SpanProcessor = (*Spans)(nil)

// NewSpans returns an empty Spans bounded by MaxPhases.
func NewSpans() *Spans { return &Spans{limit: MaxPhases} }

// OnStart does nothing: a span is kept when it ends.
func (p *Spans) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd keeps what the summary needs of s.
func (p *Spans) OnEnd(s sdktrace.ReadOnlySpan) {
	p.mu.Lock()
	full := len(p.phases) >= p.limit
	if full {
		p.dropped++
	}
	p.mu.Unlock()
	if full {
		return
	}
	ph := Phase{
		Name: s.Name(), ID: s.SpanContext().SpanID(), Parent: s.Parent().SpanID(),
		Start: s.StartTime(), End: s.EndTime(),
		Failed: s.Status().Code == codes.Error, Status: s.Status().Description,
		Usage: figuresOfAttrs(s.Attributes()),
	}
	p.mu.Lock()
	if len(p.phases) >= p.limit {
		p.dropped++
	} else {
		p.phases = append(p.phases, ph)
	}
	p.mu.Unlock()
}

// Shutdown does nothing: what was kept stays readable.
func (p *Spans) Shutdown(context.Context) error { return nil }

// ForceFlush does nothing.
func (p *Spans) ForceFlush(context.Context) error { return nil }

// Phases returns a copy of the spans kept, in the order they ended, and
// the number of spans that ended past the bound.
func (p *Spans) Phases() (phases []Phase, dropped int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Phase(nil), p.phases...), p.dropped
}
