package sizing

import (
	"math"
	"slices"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/internal/readback"
)

// Attribute keys of the advice, set on the job's span and documented in
// docs/attributes.md.
const (
	AttrKind        = attribute.Key("jobtrace.job.advice.kind")
	AttrText        = attribute.Key("jobtrace.job.advice.text")
	AttrCPUs        = attribute.Key("jobtrace.job.advice.cpus")
	AttrMemory      = attribute.Key("jobtrace.job.advice.memory")
	AttrCPUBusyP95  = attribute.Key("jobtrace.job.advice.cpu.busy.p95")
	AttrCPUBusyPeak = attribute.Key("jobtrace.job.advice.cpu.busy.peak")
	AttrAboveOneCPU = attribute.Key("jobtrace.job.advice.cpu.above_one")
	AttrMemoryPeak  = attribute.Key("jobtrace.job.advice.memory.peak")
	AttrMemoryStall = attribute.Key("jobtrace.job.advice.memory.pressure")
	AttrSwapped     = attribute.Key("jobtrace.job.advice.swap")
)

// AttributeKeys returns every key Attributes can set, for the test that
// checks docs/attributes.md.
func AttributeKeys() []attribute.Key { return slices.Clone(attributeKeys[:]) }

// NumAttributeKeys is len(AttributeKeys()), for the span limits.
const NumAttributeKeys = len(attributeKeys)

var attributeKeys = [...]attribute.Key{
	AttrKind, AttrText, AttrCPUs, AttrMemory, AttrCPUBusyP95, AttrCPUBusyPeak,
	AttrAboveOneCPU, AttrMemoryPeak, AttrMemoryStall, AttrSwapped,
}

// Attributes returns the advice as span attributes: CPUs as numbers of
// CPUs (double for those measured, int for the machine suggested), times
// in seconds (double), memory in bytes (int). Absent figures and
// suggestions are left out.
func (a *Advice) Attributes() []attribute.KeyValue {
	kv := make([]attribute.KeyValue, 0, len(attributeKeys))
	kv = append(kv, AttrKind.String(string(a.Kind)), AttrText.String(a.Text))
	if a.CPUs > 0 {
		kv = append(kv, AttrCPUs.Int(a.CPUs))
	}
	if a.Memory > 0 {
		kv = append(kv, AttrMemory.Int64(int64(a.Memory)))
	}
	if a.HasCPU {
		kv = append(kv, AttrCPUBusyP95.Float64(round3(a.CPUBusyP95)), AttrCPUBusyPeak.Float64(round3(a.CPUBusyPeak)),
			AttrAboveOneCPU.Float64(readback.SecondsOf(a.AboveOneCPU)))
	}
	if a.HasMemory {
		kv = append(kv, AttrMemoryPeak.Int64(int64(a.MemoryPeak)))
	}
	if a.HasMemoryStall {
		kv = append(kv, AttrMemoryStall.Float64(readback.SecondsOf(a.MemoryStall)))
	}
	if a.HasSwap {
		kv = append(kv, AttrSwapped.Int64(int64(a.Swapped)))
	}
	return kv
}

// MaxTextBytes bounds the advice's text read back (FromAttributes): Advise
// writes one sentence of a hundred bytes or two; a span from elsewhere may
// carry any text, which every renderer would print whole.
const MaxTextBytes = 1024

// FromAttributes reads back the advice that Attributes wrote: its inverse,
// so that the job's advice is read by one function wherever its span comes
// from (the SDK's in a run, or a spool read back), as a span's usage and
// verdict are. It is false when attrs hold no advice of a known kind. The
// text comes back cleaned (cleantext.String) and cut to MaxTextBytes;
// numbers are read by package readback's rule (an int or a float from 0
// to 2^64, a key set twice counted as its last), and a group of figures
// (the CPUs busy, the peak memory, the memory stall, the swap) is present
// when all its keys are. The figures Attributes does not write (the
// duration, the machine's CPUs and memory, the OOM kills, whose memory
// stall it was, the verdict) stay zero.
func FromAttributes(attrs []attribute.KeyValue) (Advice, bool) {
	kind, _ := readback.Attr(attrs, AttrKind)
	text, _ := readback.Attr(attrs, AttrText)
	a := Advice{Kind: Kind(kind.AsString()), Text: cleantext.Cut(cleantext.String(text.AsString()), MaxTextBytes)}
	if kind.Type() != attribute.STRING || !a.Kind.known() {
		return Advice{}, false
	}
	num := func(k attribute.Key) (float64, bool) { return readback.Number(attrs, k) }
	if v, ok := num(AttrCPUs); ok {
		a.CPUs = int(min(v, math.MaxInt32))
	}
	if v, ok := num(AttrMemory); ok {
		a.Memory = readback.Count(v)
	}
	p95, ok1 := num(AttrCPUBusyP95)
	peak, ok2 := num(AttrCPUBusyPeak)
	above, ok3 := num(AttrAboveOneCPU)
	if a.HasCPU = ok1 && ok2 && ok3; a.HasCPU {
		a.CPUBusyP95, a.CPUBusyPeak, a.AboveOneCPU = p95, peak, readback.Seconds(above)
	}
	if v, ok := num(AttrMemoryPeak); ok {
		a.HasMemory, a.MemoryPeak = true, readback.Count(v)
	}
	if v, ok := num(AttrMemoryStall); ok {
		a.HasMemoryStall, a.MemoryStall = true, readback.Seconds(v)
	}
	if v, ok := num(AttrSwapped); ok {
		a.HasSwap, a.Swapped = true, readback.Count(v)
	}
	return a, true
}

// known reports whether k is one of the kinds Advise gives.
func (k Kind) known() bool {
	switch k {
	case Sized, NeedsMemory, NeedsCPUs, Starved, TooShort, Unknown:
		return true
	}
	return false
}

// round3 keeps three decimals: a thousandth of a CPU is below what the
// histogram tells apart.
func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
