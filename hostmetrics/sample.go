package hostmetrics

import (
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics/cgroup"
	"github.com/jobtrace/jobtrace/hostmetrics/monotonic"
	"github.com/jobtrace/jobtrace/hostmetrics/procfs"
)

// Reason says why a sample was taken.
type Reason uint8

const (
	// ReasonInterval is a sample taken because the interval elapsed.
	ReasonInterval Reason = iota
	// ReasonBoundary is a sample taken at a phase's begin or end.
	ReasonBoundary
	// ReasonStart is the first sample, taken as the job starts.
	ReasonStart
	// ReasonEnd is the last sample, taken after the job has exited.
	ReasonEnd
)

func (r Reason) String() string {
	switch r {
	case ReasonInterval:
		return "interval"
	case ReasonBoundary:
		return "boundary"
	case ReasonStart:
		return "start"
	case ReasonEnd:
		return "end"
	}
	return "unknown"
}

// Sample is what the machine and the job looked like at one instant. Counters
// (CPU time, bytes, operations, stall time) are cumulative: since boot for the
// host, since the job started for the job. Each group of fields has a Has
// flag: a group whose source does not exist on this system (no /proc, no
// cgroup v2, no PSI) is absent, which is not the same as zero.
//
// A Sample is reused by the Sampler: a sink that keeps anything of it past
// the call must copy it (see Sample.CopyTo).
type Sample struct {
	Time   time.Time
	Reason Reason
	Host   Host
	Job    Job
}

// Host holds machine-wide figures.
type Host struct {
	// NumCPU is the number of CPUs the figures cover (online CPUs).
	NumCPU int

	HasCPU bool
	CPU    procfs.CPUTimes // seconds since boot per mode, all CPUs together

	HasMemory bool
	Memory    Memory

	HasPaging bool
	Paging    Paging

	HasDisk bool
	Disk    procfs.DiskTotals // whole, non-virtual disks together
	Disks   []procfs.DiskStat // every device, partitions included; see DiskStat.Whole
	HasNet  bool
	Net     procfs.NetDevStat   // every interface but loopback together; Name is ""
	Ifaces  []procfs.NetDevStat // every interface, loopback included

	HasLoad bool
	Load    procfs.Loadavg

	HasFS bool
	FS    Filesystem

	// Pressure is host-wide pressure stall information; a resource whose
	// file is absent has HasSome and HasFull false.
	Pressure PressureSet
}

// Memory is host memory in bytes.
type Memory struct {
	Total, Used, Free, Available, Buffers, Cached uint64
	SwapTotal, SwapUsed                           uint64
}

// Paging counts page faults since boot.
type Paging struct {
	Minor, Major uint64
}

// Filesystem is the usage of the file system holding the job's working
// directory, in bytes. Free counts what unprivileged users may use; Reserved
// is kept for root.
type Filesystem struct {
	Path                        string
	Device                      string
	Total, Used, Free, Reserved uint64
}

// PressureSet is the pressure stall information of one scope (the host or a
// cgroup) for CPU, memory and IO.
type PressureSet struct {
	CPU, Memory, IO procfs.Pressure
}

// Job holds the figures of the job: its process tree, and its cgroup.
type Job struct {
	// HasTree is set when the process tree could be walked.
	HasTree bool
	Tree    Tree

	// HasCgroup is set when cgroup v2 figures were read. CgroupOwn is set
	// when the cgroup is the job's own, made for it; otherwise it is the
	// cgroup the agent runs in, which may hold other processes, and its
	// figures describe that container rather than the job.
	HasCgroup bool
	CgroupOwn bool
	CgroupDir string
	Cgroup    cgroup.Stats
}

// Tree sums the job's process tree.
type Tree struct {
	// Processes and Threads are counted at the sample.
	Processes, Threads int
	// CPUUser and CPUSystem are the tree's CPU since the job started,
	// exited processes included.
	CPUUser, CPUSystem time.Duration
	// RSS sums the resident memory of the live processes, in bytes.
	RSS uint64
	// ReadBytes and WriteBytes are storage IO since the job started,
	// exited processes included. HasIO is false when no process's IO could
	// be read; IOPartial is set when some could not (another user's).
	HasIO                 bool
	IOPartial             bool
	ReadBytes, WriteBytes uint64
	// Roots is the number of trees walked: the job and the orphans that
	// re-parented to the agent.
	Roots int
	// At is when the tree was walked: earlier than the sample's time when
	// walking a large tree is spaced out to keep its cost bounded.
	At time.Time
}

// CPU returns the job's CPU time since it started: from its own cgroup's
// cpu.stat when there is one (exact, exited processes included), otherwise
// from the process tree.
func (j *Job) CPU() (user, system time.Duration, ok bool) {
	if j.HasCgroup && j.CgroupOwn {
		u, okU := j.Cgroup.CPU.UserUsec.Get()
		s, okS := j.Cgroup.CPU.SystemUsec.Get()
		if okU && okS {
			return time.Duration(u) * time.Microsecond, time.Duration(s) * time.Microsecond, true
		}
	}
	if j.HasTree {
		return j.Tree.CPUUser, j.Tree.CPUSystem, true
	}
	return 0, 0, false
}

// Memory returns the job's memory in use, in bytes: its own cgroup's
// memory.current when the memory controller is on (page cache included, as
// the kernel charges it), otherwise the summed RSS of the tree.
func (j *Job) Memory() (uint64, bool) {
	if j.HasCgroup && j.CgroupOwn {
		if v, ok := j.Cgroup.MemoryCurrent.Get(); ok {
			return v, true
		}
	}
	if j.HasTree {
		return j.Tree.RSS, true
	}
	return 0, false
}

// IO returns the job's storage IO since it started, in bytes: its own
// cgroup's io.stat when the io controller is on, otherwise the tree's.
func (j *Job) IO() (read, write uint64, ok bool) {
	if j.HasCgroup && j.CgroupOwn {
		r, okR := j.Cgroup.IO.ReadBytes.Get()
		w, okW := j.Cgroup.IO.WriteBytes.Get()
		if okR && okW {
			return r, w, true
		}
	}
	if j.HasTree && j.Tree.HasIO {
		return j.Tree.ReadBytes, j.Tree.WriteBytes, true
	}
	return 0, 0, false
}

// Pressure returns the stall information of the job's own cgroup, if it has
// one.
func (j *Job) Pressure() (PressureSet, bool) {
	if !j.HasCgroup || !j.CgroupOwn {
		return PressureSet{}, false
	}
	p := PressureSet{CPU: j.Cgroup.CPUPressure, Memory: j.Cgroup.MemoryPressure, IO: j.Cgroup.IOPressure}
	return p, p.CPU.HasSome || p.Memory.HasSome || p.IO.HasSome
}

// CopyTo copies s into dst, reusing dst's slices.
func (s *Sample) CopyTo(dst *Sample) {
	disks, ifaces := dst.Host.Disks[:0], dst.Host.Ifaces[:0]
	*dst = *s
	dst.Host.Disks = append(disks, s.Host.Disks...)
	dst.Host.Ifaces = append(ifaces, s.Host.Ifaces...)
}

// treeTotals holds the cumulative figures of the job's tree that a source
// gives, so that they never go down: a process that exits between the
// reading of its parent and its own is missed for one walk.
type treeTotals struct {
	user, sys   monotonic.Total[time.Duration]
	read, write monotonic.Total[uint64]
}
