package hostmetrics

import (
	"strings"
	"time"
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
// Its types are this package's own, the same on every system: each source
// converts what its system gives (procfs and cgroup files on Linux, kstats
// and /proc on illumos, gopsutil elsewhere) into them.
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
	CPU    CPUTimes // since boot, all CPUs together

	HasMemory bool
	Memory    Memory

	HasPaging bool
	Paging    Paging

	HasDisk bool
	Disk    DiskIO // the disks that count in the host's together (Disk.InHostTotal)
	Disks   []Disk // every device, partitions included; see Disk.Whole
	HasNet  bool
	Net     NetIO   // every interface but loopback together
	Ifaces  []Iface // every interface, loopback included

	HasLoad bool
	Load    Load

	HasFS bool
	FS    Filesystem

	// Pressure is host-wide pressure stall information; a resource whose
	// file is absent has HasSome and HasFull false.
	Pressure PressureSet
}

// CPUTimes is CPU time per mode, in seconds. Interrupt time is in IRQ and
// SoftIRQ, not in System; a mode the system does not count stays zero.
type CPUTimes struct {
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal float64
}

// Total is the time of every mode together.
func (c *CPUTimes) Total() float64 {
	return c.User + c.Nice + c.System + c.Idle + c.IOWait + c.IRQ + c.SoftIRQ + c.Steal
}

// Busy is the time of every mode but Idle and IOWait: iowait counts as
// idle, as in top.
func (c *CPUTimes) Busy() float64 {
	return c.Total() - c.Idle - c.IOWait
}

// DiskIO counts the IO of a disk, or of several together, since the disk
// appeared (since boot for the whole disks of the host).
type DiskIO struct {
	Reads, Writes           uint64 // completed operations
	ReadBytes, WrittenBytes uint64
	// IOTime is the time the device had IO in flight: its busy time.
	// Zero where the system does not give it (see Source.Unavailable).
	IOTime time.Duration
}

func (d *DiskIO) add(o *DiskIO) {
	d.Reads, d.Writes = d.Reads+o.Reads, d.Writes+o.Writes
	d.ReadBytes, d.WrittenBytes = d.ReadBytes+o.ReadBytes, d.WrittenBytes+o.WrittenBytes
	d.IOTime += o.IOTime
}

// Disk is one block device.
type Disk struct {
	Name string
	DiskIO
	// Whole is true for a whole disk, false for a partition.
	Whole bool
	// Virtual is true for devices whose IO is a file's or memory's, or
	// is counted on the disks below them too (loop, ram, zram, ZFS pools,
	// lofi): they are left out of the host's totals.
	Virtual bool
}

// InHostTotal reports whether d's IO counts in the host's: a whole disk
// that is not virtual, so that IO to a partition, or to a loop device and
// the disk under it, is not counted twice. Every source sums its disks by
// it (Host.Disk), and the system.disk.* metrics take their disks by it.
func (d *Disk) InHostTotal() bool { return d.Whole && !d.Virtual }

// NetIO counts the traffic of a network interface, or of several together,
// since the interface appeared.
type NetIO struct {
	RxBytes, RxPackets, RxErrors, RxDrops uint64
	TxBytes, TxPackets, TxErrors, TxDrops uint64
}

func (n *NetIO) add(o *NetIO) {
	n.RxBytes, n.TxBytes = n.RxBytes+o.RxBytes, n.TxBytes+o.TxBytes
	n.RxPackets, n.TxPackets = n.RxPackets+o.RxPackets, n.TxPackets+o.TxPackets
	n.RxErrors, n.TxErrors = n.RxErrors+o.RxErrors, n.TxErrors+o.TxErrors
	n.RxDrops, n.TxDrops = n.RxDrops+o.RxDrops, n.TxDrops+o.TxDrops
}

// Iface is one network interface.
type Iface struct {
	Name string
	NetIO
}

// hostDiskIO is the host's disk IO: the sum over its disks that count in
// it (Disk.InHostTotal). Every source sums its disks by it.
func hostDiskIO(disks []Disk) DiskIO {
	var t DiskIO
	for i := range disks {
		if d := &disks[i]; d.InHostTotal() {
			t.add(&d.DiskIO)
		}
	}
	return t
}

// hostNetIO is the host's network traffic: the sum over every interface
// but the loopback, whose traffic never leaves the host. Every source sums
// its interfaces by it.
func hostNetIO(ifaces []Iface) NetIO {
	var t NetIO
	for i := range ifaces {
		if n := &ifaces[i]; !isLoopback(n.Name) {
			t.add(&n.NetIO)
		}
	}
	return t
}

// isLoopback tells whether an interface is the loopback: "lo" on Linux,
// "lo0" on darwin and the BSDs, "Loopback Pseudo-Interface 1" on Windows.
// (On illumos the loopback is no datalink, and no link kstat names it.)
func isLoopback(name string) bool {
	return name == "lo" || name == "lo0" || strings.HasPrefix(name, "Loopback Pseudo-Interface")
}

// Load is the load average and the task counts.
type Load struct {
	// Load1, Load5 and Load15 are the runnable (and, on Linux,
	// uninterruptible) tasks averaged over 1, 5 and 15 minutes.
	Load1, Load5, Load15 float64
	// Running is the tasks runnable now, Total those that exist: threads
	// on Linux, processes on illumos. Zero where the system does not say.
	Running, Total uint64
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
	CPU, Memory, IO Pressure
}

// Pressure is the stall time of one resource since boot (or since the
// cgroup was made): Some is the time in which at least one task waited for
// it, Full the time in which every non-idle task did at once. HasFull is
// false where there is no full figure (CPU before Linux 5.13).
type Pressure struct {
	Some, Full       time.Duration
	HasSome, HasFull bool
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
	Cgroup    Cgroup
}

// Cgroup holds the figures of a cgroup v2. Which files a cgroup has depends
// on the kernel and on the controllers enabled for it, so each figure has a
// Has flag: absent is not zero. The counters are since the cgroup was made.
type Cgroup struct {
	// HasCPU: cpu.stat, which every cgroup v2 has. CPU is usage_usec,
	// which is CPUUser plus CPUSystem give or take a tick.
	HasCPU                  bool
	CPU, CPUUser, CPUSystem time.Duration
	// HasThrottled: the time the cpu controller held the cgroup back to
	// its limit (throttled_usec), with the cpu controller only.
	HasThrottled bool
	Throttled    time.Duration

	// HasMemory: memory.current, with the memory controller only.
	HasMemory bool
	Memory    uint64
	// HasMemoryPeak: memory.peak (Linux 5.19 and later).
	HasMemoryPeak bool
	MemoryPeak    uint64
	// HasOOMKills: the processes killed by the OOM killer (oom_kill of
	// memory.events).
	HasOOMKills bool
	OOMKills    uint64

	// HasIO: io.stat, with the io controller only, summed over devices.
	HasIO                 bool
	ReadBytes, WriteBytes uint64

	// Pressure is the cgroup's cpu, memory and io .pressure files.
	Pressure PressureSet
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

// From says where a figure of the job was read.
type From uint8

const (
	// FromNone: the figure could not be read.
	FromNone From = iota
	// FromCgroup: the job's own cgroup, read at the sample's time.
	FromCgroup
	// FromTree: the job's process tree, read at its last walk (Tree.At).
	FromTree
)

// OwnCgroup returns the job's cgroup when it is the job's own, made for it
// (not the cgroup jobtrace runs in, whose figures are a container's).
func (j *Job) OwnCgroup() (*Cgroup, bool) {
	if j.HasCgroup && j.CgroupOwn {
		return &j.Cgroup, true
	}
	return nil, false
}

// CPUFrom says where CPU reads the job's CPU time: its own cgroup's
// cpu.stat when there is one (exact, exited processes included), otherwise
// the process tree.
func (j *Job) CPUFrom() From { return j.from(j.Cgroup.HasCPU, j.HasTree) }

// MemoryFrom says where Memory reads the job's memory: its own cgroup's
// memory.current when the memory controller is on (page cache included,
// as the kernel charges it), otherwise the summed RSS of the tree.
func (j *Job) MemoryFrom() From { return j.from(j.Cgroup.HasMemory, j.HasTree) }

// IOFrom says where IO reads the job's storage IO: its own cgroup's
// io.stat when the io controller is on, otherwise the tree's.
func (j *Job) IOFrom() From { return j.from(j.Cgroup.HasIO, j.HasTree && j.Tree.HasIO) }

// from is the job's own cgroup when it is and has the figure (inCgroup),
// else the tree when it has it (inTree).
func (j *Job) from(inCgroup, inTree bool) From {
	if _, own := j.OwnCgroup(); own && inCgroup {
		return FromCgroup
	}
	if inTree {
		return FromTree
	}
	return FromNone
}

// CPU returns the job's CPU time since it started, from where CPUFrom
// says.
func (j *Job) CPU() (user, system time.Duration, ok bool) {
	switch j.CPUFrom() {
	case FromCgroup:
		return j.Cgroup.CPUUser, j.Cgroup.CPUSystem, true
	case FromTree:
		return j.Tree.CPUUser, j.Tree.CPUSystem, true
	}
	return 0, 0, false
}

// Memory returns the job's memory in use, in bytes, from where MemoryFrom
// says.
func (j *Job) Memory() (uint64, bool) {
	switch j.MemoryFrom() {
	case FromCgroup:
		return j.Cgroup.Memory, true
	case FromTree:
		return j.Tree.RSS, true
	}
	return 0, false
}

// MemoryPeak returns the job's highest memory use since it started, as its
// own cgroup's memory.peak (Linux 5.19 and later) holds it: exact, where
// samples see only the moments they were taken. The job's usage and the
// statistics of its samples take it as their peak when it is higher than
// the highest sampled. (wait4's ru_maxrss is no such figure: the job's
// first process inherits jobtrace's own high-water mark, as the child of a
// vfork keeps its parent's memory until it execs.)
func (j *Job) MemoryPeak() (uint64, bool) {
	cg, ok := j.OwnCgroup()
	if !ok || !cg.HasMemoryPeak {
		return 0, false
	}
	return cg.MemoryPeak, true
}

// IO returns the job's storage IO since it started, in bytes, from where
// IOFrom says.
func (j *Job) IO() (read, write uint64, ok bool) {
	switch j.IOFrom() {
	case FromCgroup:
		return j.Cgroup.ReadBytes, j.Cgroup.WriteBytes, true
	case FromTree:
		return j.Tree.ReadBytes, j.Tree.WriteBytes, true
	}
	return 0, 0, false
}

// Pressure returns the stall information of the job's own cgroup, if it has
// one.
func (j *Job) Pressure() (PressureSet, bool) {
	cg, ok := j.OwnCgroup()
	if !ok {
		return PressureSet{}, false
	}
	p := cg.Pressure
	return p, p.CPU.HasSome || p.Memory.HasSome || p.IO.HasSome
}

// ReadAt is when the job's figures read from f were read: the last walk of
// the tree for FromTree (a large tree is walked less often than samples are
// taken, and the samples in between carry the last walk's figures), the
// sample's time otherwise.
func (s *Sample) ReadAt(f From) time.Time {
	if f == FromTree && s.Job.HasTree && !s.Job.Tree.At.IsZero() {
		return s.Job.Tree.At
	}
	return s.Time
}

// ReadNow says whether the job's figures read from f were read for this
// sample: from its cgroup, or from its tree walked for it. A figure of the
// tree carried from an earlier walk (ReadAt earlier than the sample) is no
// reading of this sample's: a gauge's value then (memory, processes) is
// the earlier walk's, not this moment's, and a counter's change counts from
// that walk.
func (s *Sample) ReadNow(f From) bool {
	switch f {
	case FromCgroup:
		return true
	case FromTree:
		return s.Job.HasTree && s.ReadAt(FromTree).Equal(s.Time)
	}
	return false
}

// MemoryNow returns the job's memory in use (Job.Memory) when it was read
// for this sample (ReadNow): a phase's peak, the run's sizing and the CSV
// take no memory carried from an earlier walk of a large tree, which may
// be another phase's.
func (s *Sample) MemoryNow() (uint64, bool) {
	v, ok := s.Job.Memory()
	return v, ok && s.ReadNow(s.Job.MemoryFrom())
}

// CopyTo copies s into dst, reusing dst's slices.
func (s *Sample) CopyTo(dst *Sample) {
	disks, ifaces := dst.Host.Disks[:0], dst.Host.Ifaces[:0]
	*dst = *s
	dst.Host.Disks = append(disks, s.Host.Disks...)
	dst.Host.Ifaces = append(ifaces, s.Host.Ifaces...)
}
