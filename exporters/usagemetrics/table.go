package usagemetrics

import (
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/jobtrace/jobtrace/insight/verdict"
)

// Kind is the kind of instrument a metric is recorded with.
type Kind uint8

const (
	// Counter is a monotonic sum, recorded as the increase since the
	// previous sample.
	Counter Kind = iota + 1
	// UpDownCounter is a non-monotonic sum whose value is the current
	// figure.
	UpDownCounter
	// Gauge is the last value recorded.
	Gauge
	// Histogram is the distribution of the values recorded.
	Histogram
)

// String returns the kind as docs/metrics.md spells it.
func (k Kind) String() string {
	switch k {
	case Counter:
		return "counter"
	case UpDownCounter:
		return "updowncounter"
	case Gauge:
		return "gauge"
	case Histogram:
		return "histogram"
	}
	return "unknown"
}

// Number is the value type of a metric's data points.
type Number uint8

const (
	// Int64 values: bytes, counts.
	Int64 Number = iota
	// Float64 values: seconds, ratios.
	Float64
)

// Metric declares one metric.
type Metric struct {
	Name   string
	Unit   string
	Kind   Kind
	Number Number
	// Attributes are the keys its data points may carry, in the order
	// docs/metrics.md lists them.
	Attributes  []attribute.Key
	Description string
	// Enabled metrics get an instrument; a disabled one is never created
	// nor recorded.
	Enabled bool
	// Buckets are the explicit bucket boundaries of a histogram.
	Buckets []float64
}

// Attribute keys without a semantic convention.
const (
	// AttrPressureResource is the resource a pressure stall figure is
	// about: cpu, memory or io.
	AttrPressureResource = attribute.Key("jobtrace.pressure.resource")
	// AttrPressureKind says which tasks were stalled: some (at least one
	// non-idle task) or full (all non-idle tasks at once).
	AttrPressureKind = attribute.Key("jobtrace.pressure.kind")
	// AttrPhaseName is the name of the phase a per-phase figure is about.
	AttrPhaseName = attribute.Key("jobtrace.phase.name")
	// AttrDroppedWhat says what jobtrace.dropped counts: the suffix of the
	// job span's jobtrace.dropped.* attribute (socket_messages, spans, …).
	AttrDroppedWhat = attribute.Key("jobtrace.dropped.what")
)

// Indices of table. The table is written with these as keys, so a metric's
// place in it and the constant that names it cannot drift apart.
const (
	mSysCPUTime = iota
	mSysCPUUtil
	mSysMemUsage
	mSysMemUtil
	mSysPaging
	mSysDiskIO
	mSysDiskOps
	mSysDiskIOTime
	mSysNetIO
	mSysNetPackets
	mSysNetErrors
	mSysFSUsage
	mLoad1
	mLoad5
	mLoad15
	mSysPressure
	mProcCPUTime
	mProcMemory
	mProcDiskIO
	mProcThreads
	mProcCount
	mContCPUTime
	mContMemory
	mContDiskIO
	mContPressure
	mPhaseDuration
	mPhaseCPU
	mPhaseMemPeak
	mPhaseDiskIO
	mPhaseVerdicts
	mJobDuration
	mJobCPU
	mJobMemPeak
	mDropped
	numMetrics
)

// Bucket boundaries of the per-phase histograms. Phases range from a
// fraction of a second (a cache restore) to hours (a full build and test),
// and from kilobytes to tens of gigabytes: the SDK's default boundaries
// (0 to 10,000, meant for milliseconds) would put most phases in one bucket.
var (
	secondsBuckets = []float64{0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 14400, 28800}
	bytesBuckets   = []float64{0, 1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20, 1 << 30, 4 << 30, 16 << 30, 64 << 30, 256 << 30}
)

// Bucket boundaries of the job histograms. A whole job lasts from seconds
// (a lint) to hours (a release build), and keeps from tens of megabytes to
// tens of gigabytes: finer than the phases' between a minute and an hour,
// where most jobs fall, and up to a day.
var (
	jobSecondsBuckets = []float64{1, 5, 10, 30, 60, 120, 180, 300, 450, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200, 10800, 14400, 21600, 28800, 43200, 86400}
	jobBytesBuckets   = []float64{16 << 20, 64 << 20, 128 << 20, 256 << 20, 512 << 20, 1 << 30, 2 << 30, 4 << 30, 8 << 30, 16 << 30, 32 << 30, 64 << 30, 128 << 30}
)

var jobAttrs = []attribute.Key{semconv.CICDPipelineTaskRunResultKey}

var phaseAttrs = []attribute.Key{AttrPhaseName, semconv.CICDPipelineTaskRunResultKey}

// table declares every metric this package records, in the order of
// docs/metrics.md. The names and units of the semantic conventions are
// written out, checked against semconv's systemconv, processconv and
// containerconv by TestSemconvNamesAndUnits: those packages build their
// instruments' options in their package inits, which every jobtrace
// process would run.
var table = []Metric{
	mSysCPUTime: {
		Name: "system.cpu.time", Unit: "s", Kind: Counter, Number: Float64,
		Attributes:  []attribute.Key{semconv.CPUModeKey},
		Description: "CPU time of all CPUs together in each mode (interrupt includes softirq), since jobtrace started.",
		Enabled:     true,
	},
	mSysCPUUtil: {
		Name: "system.cpu.utilization", Unit: "1", Kind: Gauge, Number: Float64,
		Attributes:  []attribute.Key{semconv.CPUModeKey},
		Description: "Share of the time of all CPUs spent in each mode over the last span of at least 200 ms between samples, 0 to 1.",
		Enabled:     true,
	},
	mSysMemUsage: {
		Name: "system.memory.usage", Unit: "By", Kind: UpDownCounter, Number: Int64,
		Attributes:  []attribute.Key{semconv.SystemMemoryStateKey},
		Description: "Memory in each state: used (total minus available), free, buffers, cached.",
		Enabled:     true,
	},
	mSysMemUtil: {
		Name: "system.memory.utilization", Unit: "1", Kind: Gauge, Number: Float64,
		Attributes:  []attribute.Key{semconv.SystemMemoryStateKey},
		Description: "Memory in each state as a share of total memory, 0 to 1.",
		Enabled:     true,
	},
	mSysPaging: {
		Name: "system.paging.faults", Unit: "{fault}", Kind: Counter, Number: Int64,
		Attributes:  []attribute.Key{semconv.SystemPagingFaultTypeKey},
		Description: "Page faults of the whole machine, minor and major.",
		Enabled:     true,
	},
	mSysDiskIO: {
		Name: "system.disk.io", Unit: "By", Kind: Counter, Number: Int64,
		Attributes:  []attribute.Key{semconv.SystemDeviceKey, semconv.DiskIODirectionKey},
		Description: "Bytes read from and written to each whole, non-virtual disk.",
		Enabled:     true,
	},
	mSysDiskOps: {
		Name: "system.disk.operations", Unit: "{operation}", Kind: Counter, Number: Int64,
		Attributes:  []attribute.Key{semconv.SystemDeviceKey, semconv.DiskIODirectionKey},
		Description: "Completed reads and writes of each whole, non-virtual disk.",
		Enabled:     true,
	},
	mSysDiskIOTime: {
		Name: "system.disk.io_time", Unit: "s", Kind: Counter, Number: Float64,
		Attributes:  []attribute.Key{semconv.SystemDeviceKey},
		Description: "Time each whole, non-virtual disk had IO in flight.",
		Enabled:     true,
	},
	mSysNetIO: {
		Name: "system.network.io", Unit: "By", Kind: Counter, Number: Int64,
		Attributes:  []attribute.Key{semconv.NetworkInterfaceNameKey, semconv.NetworkIODirectionKey},
		Description: "Bytes received and transmitted on each network interface, loopback included.",
		Enabled:     true,
	},
	mSysNetPackets: {
		Name: "system.network.packet.count", Unit: "{packet}", Kind: Counter, Number: Int64,
		Attributes:  []attribute.Key{semconv.SystemDeviceKey, semconv.NetworkIODirectionKey},
		Description: "Packets received and transmitted on each network interface (system.device is the interface name, as the convention has it).",
		Enabled:     true,
	},
	mSysNetErrors: {
		Name: "system.network.errors", Unit: "{error}", Kind: Counter, Number: Int64,
		Attributes:  []attribute.Key{semconv.NetworkInterfaceNameKey, semconv.NetworkIODirectionKey},
		Description: "Receive and transmit errors on each network interface.",
		Enabled:     true,
	},
	mSysFSUsage: {
		Name: "system.filesystem.usage", Unit: "By", Kind: UpDownCounter, Number: Int64,
		Attributes:  []attribute.Key{semconv.SystemFilesystemStateKey, semconv.SystemDeviceKey},
		Description: "Space of the file system holding the job's working directory: used, free (to unprivileged users), reserved (for root). system.device only when the source knows it.",
		Enabled:     true,
	},
	mLoad1: {
		Name: "jobtrace.system.cpu.load_average.1m", Unit: "{thread}", Kind: Gauge, Number: Float64,
		Description: "Load average over 1 minute: runnable and uninterruptible threads.",
		Enabled:     true,
	},
	mLoad5: {
		Name: "jobtrace.system.cpu.load_average.5m", Unit: "{thread}", Kind: Gauge, Number: Float64,
		Description: "Load average over 5 minutes.",
		Enabled:     true,
	},
	mLoad15: {
		Name: "jobtrace.system.cpu.load_average.15m", Unit: "{thread}", Kind: Gauge, Number: Float64,
		Description: "Load average over 15 minutes.",
		Enabled:     true,
	},
	mSysPressure: {
		Name: "jobtrace.system.pressure.stall", Unit: "s", Kind: Counter, Number: Float64,
		Attributes:  []attribute.Key{AttrPressureResource, AttrPressureKind},
		Description: "Machine-wide pressure stall time: time some (or all) non-idle tasks waited for CPU, memory or IO. No cpu/full: the kernel leaves it at zero machine-wide.",
		Enabled:     true,
	},
	mProcCPUTime: {
		Name: "process.cpu.time", Unit: "s", Kind: Counter, Number: Float64,
		Attributes:  []attribute.Key{semconv.CPUModeKey},
		Description: "CPU time of the job's process tree, user and system, exited processes included.",
		Enabled:     true,
	},
	mProcMemory: {
		Name: "process.memory.usage", Unit: "By", Kind: UpDownCounter, Number: Int64,
		Description: "Resident memory of the job's live processes, summed.",
		Enabled:     true,
	},
	mProcDiskIO: {
		Name: "process.disk.io", Unit: "By", Kind: Counter, Number: Int64,
		Attributes:  []attribute.Key{semconv.DiskIODirectionKey},
		Description: "Storage bytes read and written by the job's process tree, exited processes included.",
		Enabled:     true,
	},
	mProcThreads: {
		Name: "process.thread.count", Unit: "{thread}", Kind: UpDownCounter, Number: Int64,
		Description: "Threads of the job's live processes.",
		Enabled:     true,
	},
	mProcCount: {
		Name: "jobtrace.process.count", Unit: "{process}", Kind: UpDownCounter, Number: Int64,
		Description: "Live processes in the job's process tree.",
		Enabled:     true,
	},
	mContCPUTime: {
		Name: "container.cpu.time", Unit: "s", Kind: Counter, Number: Float64,
		Attributes:  []attribute.Key{semconv.CPUModeKey},
		Description: "CPU time of the cgroup (cpu.stat), user and system.",
		Enabled:     true,
	},
	mContMemory: {
		Name: "container.memory.usage", Unit: "By", Kind: UpDownCounter, Number: Int64,
		Description: "Memory charged to the cgroup (memory.current), page cache included.",
		Enabled:     true,
	},
	mContDiskIO: {
		Name: "container.disk.io", Unit: "By", Kind: Counter, Number: Int64,
		Attributes:  []attribute.Key{semconv.DiskIODirectionKey},
		Description: "Storage bytes read and written by the cgroup (io.stat), all devices together.",
		Enabled:     true,
	},
	mContPressure: {
		Name: "jobtrace.container.pressure.stall", Unit: "s", Kind: Counter, Number: Float64,
		Attributes:  []attribute.Key{AttrPressureResource, AttrPressureKind},
		Description: "Pressure stall time of the cgroup's tasks (cpu.pressure, memory.pressure, io.pressure).",
		Enabled:     true,
	},
	mPhaseDuration: {
		Name: "jobtrace.phase.duration", Unit: "s", Kind: Histogram, Number: Float64,
		Attributes:  phaseAttrs,
		Description: "Wall time of each phase that ended: its span's end less its start, the duration every artifact shows.",
		Enabled:     true,
		Buckets:     secondsBuckets,
	},
	mPhaseCPU: {
		Name: "jobtrace.phase.cpu.time", Unit: "s", Kind: Histogram, Number: Float64,
		Attributes:  phaseAttrs,
		Description: "CPU time (user plus system) the job used during each phase that ended.",
		Enabled:     true,
		Buckets:     secondsBuckets,
	},
	mPhaseMemPeak: {
		Name: "jobtrace.phase.memory.peak", Unit: "By", Kind: Histogram, Number: Int64,
		Attributes:  phaseAttrs,
		Description: "Largest memory use of the job seen during each phase that ended.",
		Enabled:     true,
		Buckets:     bytesBuckets,
	},
	mPhaseDiskIO: {
		Name: "jobtrace.phase.disk.io", Unit: "By", Kind: Histogram, Number: Int64,
		Attributes:  []attribute.Key{AttrPhaseName, semconv.CICDPipelineTaskRunResultKey, semconv.DiskIODirectionKey},
		Description: "Storage bytes the job read and wrote during each phase that ended.",
		Enabled:     true,
		Buckets:     bytesBuckets,
	},
	mPhaseVerdicts: {
		Name: "jobtrace.phase.verdicts", Unit: "{phase}", Kind: Counter, Number: Int64,
		Attributes:  []attribute.Key{AttrPhaseName, verdict.AttrKind},
		Description: "Phases that ended, by name and verdict (docs/insight.md).",
		Enabled:     true,
	},
	mJobDuration: {
		Name: "jobtrace.job.duration", Unit: "s", Kind: Histogram, Number: Float64,
		Attributes:  jobAttrs,
		Description: "Wall time of each job, from its start to its exit, the duration every artifact shows (its span's jobtrace.job.duration).",
		Enabled:     true,
		Buckets:     jobSecondsBuckets,
	},
	mJobCPU: {
		Name: "jobtrace.job.cpu.time", Unit: "s", Kind: Histogram, Number: Float64,
		Attributes:  jobAttrs,
		Description: "CPU time (user plus system) of each job.",
		Enabled:     true,
		Buckets:     jobSecondsBuckets,
	},
	mJobMemPeak: {
		Name: "jobtrace.job.memory.peak", Unit: "By", Kind: Histogram, Number: Int64,
		Attributes:  jobAttrs,
		Description: "Largest memory use of each job: the largest sampled, or its own cgroup's memory.peak when it has one and it is larger, as in the summary.",
		Enabled:     true,
		Buckets:     jobBytesBuckets,
	},
	mDropped: {
		Name: "jobtrace.dropped", Unit: "{item}", Kind: Counter, Number: Int64,
		Attributes:  []attribute.Key{AttrDroppedWhat},
		Description: "What jobtrace could not turn into spans, events or counters (a malformed or too long message, a line not scanned, a message past a limit, a span the spool could not write), by what it was; added at the end of the job.",
		Enabled:     true,
	},
}

// NewDropped makes the jobtrace.dropped counter on meter. The agent adds to
// it at the end of the job, whether resources are sampled or not.
func NewDropped(meter metric.Meter) (metric.Int64Counter, error) {
	m := &table[mDropped]
	return meter.Int64Counter(m.Name, metric.WithDescription(m.Description), metric.WithUnit(m.Unit))
}
