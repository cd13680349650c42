package proctree

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics/procfs"
)

// ErrParse is wrapped, with the path, in the errors about a /proc file whose
// content could not be parsed.
var ErrParse = errors.New("proctree: parse")

// ErrNoMembers is wrapped in the error of [Reader.SampleCgroup] when the
// members of the cgroup could not be listed.
var ErrNoMembers = errors.New("proctree: cannot list the cgroup's processes")

// ErrUnsupported is returned by [Reader.Sample] on systems without a Linux
// /proc.
var ErrUnsupported = errors.New("proctree: process tree sampling needs Linux /proc")

// tick is the unit of the clock-tick fields of /proc/<pid>/stat.
const tick = time.Second / procfs.UserHZ

// Usage sums the processes of the tree at one sample: Counts holds the
// sums of their figures.
type Usage struct {
	// Time is the time given to Sample.
	Time time.Time
	// Processes counts the processes found, zombies included.
	Processes int
	Counts
}

// Counts are the figures of one process, or their sums over a tree
// (Usage).
//
// A tree's CPUUser and CPUSystem sum the CPU time of the processes alive
// (or zombie) at the sample; see the package doc and [Reader.Exited] for
// the CPU of the processes that are gone. Its ChildUser and ChildSystem,
// added to them and to the CPU of the roots' own waited-for processes
// reported by wait4, give the tree's CPU since it started with nothing
// lost to exits, whatever the sample interval: an exiting process's CPU
// moves into its reaper's cutime and cstime at the moment it leaves /proc.
//
// Unlike CPU, a process's io file already includes the IO of the children
// it waited for (the kernel adds it at the reap), so a tree's IO sums cover
// the exited descendants reaped inside the tree. A tree's IOAbsent is set
// when the io file of at least one process could not be read (another
// user's process, or a kernel without IO accounting): the IO sums are then
// a lower bound.
type Counts struct {
	// Threads is num_threads of stat.
	Threads int
	// CPUUser and CPUSystem are utime and stime of stat.
	CPUUser, CPUSystem time.Duration
	// ChildUser and ChildSystem are the CPU of the children the process
	// has waited for (cutime and cstime), the place where the CPU of
	// exited descendants reaped inside the tree ends up.
	ChildUser, ChildSystem time.Duration
	// RSS is the resident set size in bytes, from statm. Pages shared
	// between processes are counted once per process, so a tree's RSS can
	// exceed the memory it really holds.
	RSS uint64
	// ReadBytes and WriteBytes are read_bytes and write_bytes of io
	// (storage traffic).
	ReadBytes, WriteBytes uint64
	// IOAbsent is set when the io file could not be read.
	IOAbsent bool
}

// Proc is the detail of one process at a sample.
type Proc struct {
	PID, PPID int
	// Comm is the command name from stat (at most 15 bytes, set by the
	// process; it may hold spaces and parentheses).
	Comm string
	// State is the one-letter state from stat: R, S, D, Z, T, ...
	State byte
	// StartTime is the start time after boot in clock ticks; together with
	// the pid it names a process across pid reuse.
	StartTime uint64
	Counts
}

// Exited sums the last-seen usage of the processes that disappeared since the
// previous sample (exited, or replaced by a new process under the same pid).
// The CPU and IO they used after that previous sample are not in it.
type Exited struct {
	Processes             int
	CPUUser, CPUSystem    time.Duration
	ReadBytes, WriteBytes uint64
}

// Reader samples process trees under a proc root. A Reader is not safe for
// concurrent use.
type Reader struct {
	root     string
	pageSize uint64

	path  []byte   // path being opened, NUL-terminated
	buf   []byte   // content of the file being read
	queue []int    // pids to visit in this sample, breadth-first
	tids  []int    // threads of the process being visited
	dirs  []string // cgroups whose members SampleCgroup lists
	// job are the files of the job's cgroup that SampleCgroup reads at
	// every sample, kept open until Close.
	job   jobCgroup
	own   ownFiles // OwnChildren's
	procs []Proc   // detail of this sample, reused

	known map[int]seen // processes of the previous samples, by pid
	gen   uint64       // sample number; seen.gen == gen when visited in this sample
	// kept counts the processes whose files are kept open (seen.files);
	// keepMax bounds it, 0 until the first sample works it out.
	kept, keepMax int
	exited        Exited
	errs          []error

	// openHook, when set (by tests), is called with each path before it is
	// opened; an errno other than 0 is taken as the result of the open.
	openHook func(path string) syscall.Errno
}

// seen is what a Reader keeps of a process between samples.
type seen struct {
	gen       uint64
	startTime uint64
	comm      string
	last      Proc
	files     procFiles
}

// NewReader returns a Reader of the proc file system mounted at procRoot,
// such as "/proc", or "/host/proc" in a container.
func NewReader(procRoot string) *Reader {
	return &Reader{
		root:     strings.TrimRight(procRoot, "/"),
		pageSize: uint64(os.Getpagesize()),
		buf:      make([]byte, 4096),
		known:    make(map[int]seen),
	}
}

// Procs returns the detail of each process found by the last Sample, in the
// order they were visited (breadth-first from the roots). The slice is reused
// by the next Sample: copy what must outlive it.
func (r *Reader) Procs() []Proc { return r.procs }

// Exited returns the last-seen usage of the processes that disappeared between
// the previous Sample and the last one. A caller that adds it to a running
// total at every sample counts each exited process once, with the CPU it had
// at the last sample that saw it.
func (r *Reader) Exited() Exited { return r.exited }

// Saw reports whether the last Sample read process pid, all its figures
// (a process reaped while it was read is not counted, and not seen).
func (r *Reader) Saw(pid int) bool {
	s, ok := r.known[pid]
	return ok && s.gen == r.gen
}

func (u *Usage) add(p *Proc) {
	u.Processes++
	c := &u.Counts
	c.Threads += p.Threads
	c.CPUUser += p.CPUUser
	c.CPUSystem += p.CPUSystem
	c.ChildUser += p.ChildUser
	c.ChildSystem += p.ChildSystem
	c.RSS += p.RSS
	c.ReadBytes += p.ReadBytes
	c.WriteBytes += p.WriteBytes
	c.IOAbsent = c.IOAbsent || p.IOAbsent
}

func (e *Exited) add(p *Proc) {
	e.Processes++
	e.CPUUser += p.CPUUser
	e.CPUSystem += p.CPUSystem
	e.ReadBytes += p.ReadBytes
	e.WriteBytes += p.WriteBytes
}
