package hostmetrics

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/jobtrace/jobtrace/hostmetrics/cgroup"
	"github.com/jobtrace/jobtrace/hostmetrics/monotonic"
	"github.com/jobtrace/jobtrace/hostmetrics/procfs"
	"github.com/jobtrace/jobtrace/hostmetrics/proctree"
)

// linuxSource reads /proc, /sys and cgroup v2.
type linuxSource struct {
	fs   procfs.FS
	tree *proctree.Reader
	cg   *cgroup.Reader
	own  bool
	self int
	// reap is set when the agent is a child subreaper: orphans of the job
	// become its children, are walked as roots, and their zombies are
	// reaped here.
	reap   bool
	notJob func(int) bool
	orphan func(int, uint64)
	// gone reports whether the job's pid no longer exists (pidGone; a
	// test's stand-in decides when the job is reaped).
	gone func(pid int) bool

	wdFD   int
	wdPath string

	stat  procfs.Stat
	mem   procfs.Meminfo
	vm    procfs.Vmstat
	disks procfs.Diskstats
	net   procfs.NetDev
	load  procfs.Loadavg
	psi   procfs.Pressure
	cgst  cgroup.Stats
	roots []int

	// pacer spaces out the walks of a large tree.
	pacer walkPacer

	jobState

	// iowait is /proc/stat's iowait, held at its highest (monotonic.Held):
	// the kernel gives the time an idle CPU has been idle so far as iowait
	// while a task waits for IO, and as idle once none does, so iowait can
	// step back (Documentation/filesystems/proc.rst: it "will decrease in
	// certain conditions"). That is no reset: taken as one, the time taken
	// back would be counted again as iowait climbs back.
	iowait monotonic.Held[float64]

	mu     sync.Mutex
	reaped ExitUsage // orphans reaped here
	totals treeTotals
}

// NewSource returns the source for this system. On Linux it reads
// cfg.ProcRoot, cfg.SysRoot and cfg.CgroupDir.
func NewSource(cfg Config) (Source, error) {
	cfg.defaults()
	s := &linuxSource{
		fs:     procfs.NewFS(cfg.ProcRoot, cfg.SysRoot),
		tree:   proctree.NewReader(cfg.ProcRoot),
		self:   os.Getpid(),
		reap:   cfg.Subreaper,
		notJob: cfg.NotJob,
		orphan: cfg.Orphan,
		gone:   pidGone,
		own:    cfg.CgroupOwn,
		wdFD:   -1,
		pacer:  walkPacer{budget: TreeBudget, cheapProcs: CheapWalkProcs, cpu: agentCPU},
	}
	if cfg.CgroupDir != "" {
		s.cg = cgroup.NewReader(cfg.CgroupDir)
	}
	if cfg.WorkDir != "" {
		fd, err := unix.Open(cfg.WorkDir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return s, &os.PathError{Op: "open", Path: cfg.WorkDir, Err: err}
		}
		s.wdFD, s.wdPath = fd, cfg.WorkDir
	}
	return s, nil
}

func (s *linuxSource) Unavailable() string { return "" }

// pidGone reports whether pid no longer exists: a zombie still does, and
// its usage is still in /proc.
func pidGone(pid int) bool { return unix.Kill(pid, 0) == unix.ESRCH }

func (s *linuxSource) Close() error {
	s.fs.Close()
	if s.cg != nil {
		s.cg.Close()
	}
	s.tree.Close()
	if s.wdFD >= 0 {
		unix.Close(s.wdFD)
		s.wdFD = -1
	}
	return nil
}

func (s *linuxSource) Read(out *Sample) error {
	return errors.Join(s.ReadJob(out), s.ReadHost(out))
}

var _ JobFirst = (*linuxSource)(nil)

// ReadJob reads the job's figures (JobFirst): its cgroup's files and its
// process tree.
func (s *linuxSource) ReadJob(out *Sample) error {
	var errs []error
	s.readJob(out, &errs)
	return errors.Join(errs...)
}

// ReadHost reads the host's figures (JobFirst).
func (s *linuxSource) ReadHost(out *Sample) error {
	var errs []error
	s.readHost(&out.Host, &errs)
	return errors.Join(errs...)
}

// note records err unless it says the file does not exist, which is how a
// missing figure (no PSI, no /sys) shows: absent, not a problem.
func note(errs *[]error, err error) bool {
	if err == nil {
		return true
	}
	if !errors.Is(err, fs.ErrNotExist) {
		*errs = append(*errs, err)
	}
	return false
}

func (s *linuxSource) readHost(h *Host, errs *[]error) {
	h.HasCPU = note(errs, s.fs.Stat(&s.stat))
	if h.HasCPU {
		h.CPU = linuxCPUTimes(&s.stat.Total)
		h.CPU.IOWait = s.iowait.Hold(h.CPU.IOWait)
		h.NumCPU = len(s.stat.CPUs)
	}
	h.HasMemory = note(errs, s.fs.Meminfo(&s.mem))
	if h.HasMemory {
		m := &s.mem
		h.Memory = Memory{
			Total: m.MemTotal, Used: m.Used(), Free: m.MemFree, Available: m.MemAvailable,
			Buffers: m.Buffers, Cached: m.Cached, SwapTotal: m.SwapTotal, SwapUsed: m.SwapUsed(),
		}
	}
	h.HasPaging = note(errs, s.fs.Vmstat(&s.vm))
	if h.HasPaging {
		h.Paging = Paging{Minor: s.vm.MinorFaults(), Major: s.vm.PgMajFault}
	}
	h.HasDisk = note(errs, s.fs.Diskstats(&s.disks))
	h.Disks, h.Disk = h.Disks[:0], DiskIO{}
	if h.HasDisk {
		h.Disks, h.Disk = linuxDisks(&s.disks, h.Disks)
	}
	h.HasNet = note(errs, s.fs.NetDev(&s.net))
	h.Ifaces, h.Net = h.Ifaces[:0], NetIO{}
	if h.HasNet {
		h.Ifaces, h.Net = linuxIfaces(&s.net, h.Ifaces)
	}
	h.HasLoad = note(errs, s.fs.Loadavg(&s.load))
	if h.HasLoad {
		h.Load = linuxLoad(&s.load)
	}
	h.HasFS = false
	if s.wdFD >= 0 {
		var st unix.Statfs_t
		if err := unix.Fstatfs(s.wdFD, &st); err == nil {
			bs := uint64(st.Bsize)
			h.HasFS = true
			h.FS = Filesystem{
				Path:     s.wdPath,
				Total:    st.Blocks * bs,
				Used:     (st.Blocks - st.Bfree) * bs,
				Free:     st.Bavail * bs,
				Reserved: (st.Bfree - st.Bavail) * bs,
			}
		} else {
			*errs = append(*errs, &os.PathError{Op: "statfs", Path: s.wdPath, Err: err})
		}
	}
	for _, r := range [...]struct {
		res procfs.PressureResource
		out *Pressure
	}{
		{procfs.PressureCPU, &h.Pressure.CPU},
		{procfs.PressureMemory, &h.Pressure.Memory},
		{procfs.PressureIO, &h.Pressure.IO},
	} {
		*r.out = Pressure{}
		s.psi = procfs.Pressure{}
		if note(errs, s.fs.Pressure(r.res, &s.psi)) {
			*r.out = linuxPressure(&s.psi)
		}
	}
}

func (s *linuxSource) readJob(out *Sample, errs *[]error) {
	j := &out.Job
	// Until the job's pid is known, any child may be the job: none is
	// reaped, or its exit status would be taken from os/exec.
	job, known, exited := s.current(s.gone)

	j.HasCgroup = false
	if s.cg != nil {
		err := s.cg.Read(&s.cgst)
		j.Cgroup = linuxCgroup(&s.cgst)
		switch {
		case err == nil:
			j.HasCgroup = true
		case errors.Is(err, fs.ErrNotExist):
		default:
			j.HasCgroup = true
			*errs = append(*errs, err)
		}
		j.CgroupOwn = s.own
		j.CgroupDir = s.cg.Dir()
	}

	// The roots of the tree are the agent's children: the job, and the
	// orphans that re-parented to the agent as a subreaper.
	var err error
	s.roots = s.roots[:0]
	if s.reap {
		if s.roots, err = s.tree.OwnChildren(s.roots, job); err != nil {
			*errs = append(*errs, err)
		}
		if s.notJob != nil {
			s.roots = slices.DeleteFunc(s.roots, s.notJob)
		}
	} else if job > 0 {
		s.roots = append(s.roots, job)
	}
	// The orphans that have exited are reaped before the tree is walked,
	// not after: walked as zombies and then reaped, their usage would be
	// counted twice in that sample, and the tree's figures, held at their
	// highest, would hide as much of what the job does next.
	if s.reap && known {
		s.reapChildren(job)
	}

	// A cgroup of the job's own that has the memory controller gives the
	// whole tree's CPU and memory in a few files: the tree is not walked,
	// so a sample costs the same whatever the number of processes.
	if s.own && j.HasCgroup && j.Cgroup.HasCPU && j.Cgroup.HasMemory {
		j.HasTree = false
		s.pacer.walked = false
		return
	}

	if !s.pacer.due(out.Reason, out.Time) {
		// Too soon for this tree: the figures of the last walk stand.
		return
	}
	began := s.pacer.start()
	u, err := s.sampleTree(j.HasCgroup, out.Time)
	if err != nil {
		*errs = append(*errs, err)
	}
	exited = s.exitedAfterWalk(job, s.tree.Saw(job), exited, s.gone)
	if s.reap && s.orphan != nil {
		s.tellOrphans(job)
	}
	s.pacer.done(began, out.Time, u.Processes)

	s.mu.Lock()
	w := walkSum{
		Processes: u.Processes, Threads: u.Threads, Roots: len(s.roots), RSS: u.RSS,
		User:   u.CPUUser + u.ChildUser + exited.User + s.reaped.User,
		System: u.CPUSystem + u.ChildSystem + exited.System + s.reaped.System,
		IO:     true, IOAbsent: u.IOAbsent,
		ReadBytes:  u.ReadBytes + exited.ReadBytes + s.reaped.ReadBytes,
		WriteBytes: u.WriteBytes + exited.WriteBytes + s.reaped.WriteBytes,
	}
	s.mu.Unlock()
	j.HasTree = true
	j.Tree = s.totals.tree(&w, out.Time)
}

// sampleTree reads the job's processes: from the roots down through the
// children files of every thread of every process, or, when the job was
// started in a cgroup of its own that could be read, the roots and the
// cgroup's members, each read once without its threads' children files.
// A cgroup whose members cannot be listed is walked. With no root (jobtrace
// has no child) and no process in the cgroup nor below it, as its
// cgroup.events says before the job starts and once it has exited, there
// is no member to list: no cgroup.procs nor directory is read.
func (s *linuxSource) sampleTree(cgroupRead bool, now time.Time) (proctree.Usage, error) {
	if s.own && cgroupRead && !s.outsideCgroup() {
		if populated, ok := s.cg.Populated(); ok && !populated && len(s.roots) == 0 {
			return s.tree.Sample(nil, now)
		}
		u, err := s.tree.SampleCgroup(s.roots, s.cg.Dir(), now)
		if !errors.Is(err, proctree.ErrNoMembers) {
			return u, err
		}
	}
	return s.tree.Sample(s.roots, now)
}

// reapChildren reaps the roots that have exited other than the job (which
// supervise waits for), adding their usage to the tree's, and leaves them
// out of the roots: wait4 with WNOHANG returns at once for a child still
// running.
func (s *linuxSource) reapChildren(job int) {
	s.roots = slices.DeleteFunc(s.roots, func(pid int) bool { return pid != job && s.wait(pid) })
}

// wait reaps the agent's child pid if it has exited, and reports whether
// it did.
func (s *linuxSource) wait(pid int) bool {
	var ru syscall.Rusage
	var ws syscall.WaitStatus
	got, err := syscall.Wait4(pid, &ws, syscall.WNOHANG, &ru)
	if err != nil || got != pid {
		return false
	}
	s.mu.Lock()
	s.reaped.add(ExitUsageOfRusage(&ru))
	s.mu.Unlock()
	return true
}

// tellOrphans passes the agent's running children other than the job to
// the Orphan callback.
func (s *linuxSource) tellOrphans(job int) {
	for _, p := range s.tree.Procs() {
		if p.PPID == s.self && p.PID != job && p.State != 'Z' && p.State != 'X' {
			s.orphan(p.PID, p.StartTime)
		}
	}
}

// SetSubreaper makes the calling process a child subreaper
// (PR_SET_CHILD_SUBREAPER): the orphans of its descendants re-parent to it
// instead of init, so they stay in the job's tree.
func SetSubreaper() error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("prctl(PR_SET_CHILD_SUBREAPER): %w", err)
	}
	return nil
}

// IsSubreaper reports whether the calling process is a child subreaper.
func IsSubreaper() (bool, error) {
	var v int32
	if err := unix.Prctl(unix.PR_GET_CHILD_SUBREAPER, uintptr(unsafe.Pointer(&v)), 0, 0, 0); err != nil {
		return false, fmt.Errorf("prctl(PR_GET_CHILD_SUBREAPER): %w", err)
	}
	return v != 0, nil
}
