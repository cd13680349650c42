package sizing

import (
	"math"

	"go.opentelemetry.io/otel/attribute"
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

// AttributeKeys lists every key Attributes can set, for the test that
// checks docs/attributes.md.
var AttributeKeys = []attribute.Key{
	AttrKind, AttrText, AttrCPUs, AttrMemory, AttrCPUBusyP95, AttrCPUBusyPeak,
	AttrAboveOneCPU, AttrMemoryPeak, AttrMemoryStall, AttrSwapped,
}

// Attributes returns the advice as span attributes: CPUs as numbers of
// CPUs (double for those measured, int for the machine suggested), times
// in seconds (double), memory in bytes (int). Absent figures and
// suggestions are left out.
func (a *Advice) Attributes() []attribute.KeyValue {
	kv := make([]attribute.KeyValue, 0, len(AttributeKeys))
	kv = append(kv, AttrKind.String(string(a.Kind)), AttrText.String(a.Text))
	if a.CPUs > 0 {
		kv = append(kv, AttrCPUs.Int(a.CPUs))
	}
	if a.Memory > 0 {
		kv = append(kv, AttrMemory.Int64(int64(a.Memory)))
	}
	if a.HasCPU {
		kv = append(kv, AttrCPUBusyP95.Float64(round3(a.CPUBusyP95)), AttrCPUBusyPeak.Float64(round3(a.CPUBusyPeak)),
			AttrAboveOneCPU.Float64(a.AboveOneCPU.Seconds()))
	}
	if a.HasMemory {
		kv = append(kv, AttrMemoryPeak.Int64(int64(a.MemoryPeak)))
	}
	if a.HasMemoryStall {
		kv = append(kv, AttrMemoryStall.Float64(a.MemoryStall.Seconds()))
	}
	if a.HasSwap {
		kv = append(kv, AttrSwapped.Int64(int64(a.Swapped)))
	}
	return kv
}

// round3 keeps three decimals: a thousandth of a CPU is below what the
// histogram tells apart.
func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
