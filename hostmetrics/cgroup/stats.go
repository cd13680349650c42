package cgroup

import "github.com/jobtrace/jobtrace/hostmetrics/procfs"

import "errors"

var (
	// ErrParse marks a cgroup or proc file whose content does not have the
	// documented format. It is wrapped with the path and line.
	ErrParse = errors.New("cgroup: malformed file")

	// ErrNoCgroup2 means no cgroup2 file system is mounted, or the process's
	// cgroup has no cgroup v2 entry.
	ErrNoCgroup2 = errors.New("cgroup: no cgroup v2 hierarchy")

	// ErrNotSupported is returned by operations that the platform or the
	// running kernel cannot do (every write on a system other than Linux,
	// cgroup.kill before Linux 5.14).
	ErrNotSupported = errors.New("cgroup: not supported")
)

// Opt is a value read from a cgroup file, with Present false when the file
// (or the key in it) does not exist. An absent value is not zero: a cgroup
// without the memory controller has no memory.current at all.
type Opt[T any] struct {
	Value   T
	Present bool
}

// Get returns the value and whether it is present.
func (o Opt[T]) Get() (T, bool) { return o.Value, o.Present }

func some[T any](v T) Opt[T] { return Opt[T]{Value: v, Present: true} }

// CPUStat is cpu.stat. usage, user and system exist on every cgroup v2
// directory, with or without the cpu controller; the throttling keys exist
// only when the cpu controller is enabled for the cgroup.
type CPUStat struct {
	UsageUsec     Opt[uint64] // usage_usec, µs
	UserUsec      Opt[uint64] // user_usec, µs
	SystemUsec    Opt[uint64] // system_usec, µs
	ThrottledUsec Opt[uint64] // throttled_usec, µs
}

// MemoryEvents is the part of memory.events that tells whether the job ran
// out of memory. The counts are hierarchical (they include descendants).
type MemoryEvents struct {
	OOM     Opt[uint64] // oom: times the cgroup hit its limit and the OOM killer was invoked
	OOMKill Opt[uint64] // oom_kill: processes killed by the OOM killer
}

// IOStat is io.stat summed over every device (MAJ:MIN line). When the file
// exists but no IO was done yet it is empty, and the sums are present and 0.
type IOStat struct {
	ReadBytes  Opt[uint64] // rbytes
	WriteBytes Opt[uint64] // wbytes
}

// Pressure is a cpu.pressure, memory.pressure or io.pressure file, in the
// same form as the host's /proc/pressure files.
type Pressure = procfs.Pressure

// PressureLine is one line ("some" or "full") of a pressure file.
type PressureLine = procfs.PressureLine

// Stats is one reading of a cgroup v2 directory. Every field tells whether
// it was present; what is present depends on the kernel and on the
// controllers enabled for the cgroup (see the package documentation).
type Stats struct {
	CPU CPUStat

	MemoryCurrent Opt[uint64] // memory.current, bytes
	MemoryPeak    Opt[uint64] // memory.peak, bytes (Linux ≥ 5.19)
	MemoryEvents  MemoryEvents

	IO IOStat

	CPUPressure    Pressure
	MemoryPressure Pressure
	IOPressure     Pressure
}
