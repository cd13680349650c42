//go:build !linux && !illumos

package hostmetrics

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/disk"
	"github.com/shirou/gopsutil/v4/load"
	"github.com/shirou/gopsutil/v4/mem"
	"github.com/shirou/gopsutil/v4/net"
	"github.com/shirou/gopsutil/v4/process"
)

// readTimeout bounds one Read. Most of gopsutil's calls are system calls
// that ignore it, but on darwin and the BSDs the network figures come from
// running netstat, and a command that hangs must not stall the sampler:
// half the default interval keeps the next interval sample on time.
const readTimeout = DefaultInterval / 2

// netstatEvery is the shortest time between two runs of netstat. Boundary
// samples can follow each other much faster than the interval, and a
// command per sample would then cost more than the rest of the sample; in
// between, the last figures are given again. Interval samples, a second
// apart, always get fresh ones.
const netstatEvery = DefaultInterval / 2

// gopsutilSource reads the host and the job's process tree through
// gopsutil, on the systems without a native reader (darwin, windows, the
// BSDs). It has no pressure stall information and no cgroup; what else the
// system cannot give is found once, by NewSource, and named by Unavailable.
//
// The job's tree is found from one listing of the system's processes per
// walk, and only the job's descendants are read. Off Linux there is no
// child subreaper, so the processes the job leaves behind are not followed.
type gopsutilSource struct {
	workDir     string
	absent      figure // figures not read: this system does not give them
	unavailable string
	allIO       bool // the per-process IO counts every transfer (Windows)

	netEvery time.Duration
	netAt    time.Time
	hasNet   bool
	net      NetIO
	ifaces   []Iface

	self  *process.Process
	table []procLink
	tree  []procLink
	tally gopsutilTally
	last  Tree
	pacer walkPacer

	jobState
}

// NewSource returns the source for this system. Off Linux and illumos it
// reads through gopsutil; cfg.WorkDir is the only field it uses. It tries
// every figure once, on the host and on the agent's own process, to learn
// which ones gopsutil does not implement here.
func NewSource(cfg Config) (Source, error) {
	s := &gopsutilSource{
		workDir: cfg.WorkDir,
		absent:  gopsutilAbsent(runtime.GOOS),
		allIO:   runtime.GOOS == "windows",
		tally:   newGopsutilTally(),
		self:    &process.Process{Pid: int32(os.Getpid())},
	}
	s.pacer = walkPacer{budget: TreeBudget, cheapCost: CheapWalkCost, cpu: s.agentCPU}
	if slices.Contains([]string{"darwin", "freebsd", "netbsd", "openbsd"}, runtime.GOOS) {
		s.netEvery = netstatEvery
	}
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	var probe Sample
	s.readHost(ctx, &probe.Host, nil)
	s.readProc(ctx, procLink{PID: s.self.Pid, Threads: -1}, nil)
	s.unavailable = unavailableSentence(runtime.GOOS, s.absent)
	if cfg.WorkDir != "" {
		if _, err := os.Stat(cfg.WorkDir); err != nil {
			return s, err
		}
	}
	return s, nil
}

func (s *gopsutilSource) Unavailable() string { return s.unavailable }

func (s *gopsutilSource) Close() error { return nil }

func (s *gopsutilSource) Read(out *Sample) error {
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	defer cancel()
	var errs []error
	s.readHost(ctx, &out.Host, &errs)
	s.readJob(ctx, out, &errs)
	return errors.Join(errs...)
}

// want tells whether figure f is read on this system.
func (s *gopsutilSource) want(f figure) bool { return s.absent&f == 0 }

// got tells whether figure f was read. An error saying that gopsutil does
// not implement f here makes f absent from then on; any other is recorded
// in errs, when errs is not nil.
func (s *gopsutilSource) got(f figure, err error, errs *[]error) bool {
	if err == nil {
		return true
	}
	if isNotImplemented(err) {
		s.absent |= f
	} else if errs != nil {
		*errs = append(*errs, fmt.Errorf("%v: %w", f, err))
	}
	return false
}

var errNoCPUTimes = errors.New("no CPU times returned")

func (s *gopsutilSource) readHost(ctx context.Context, h *Host, errs *[]error) {
	h.HasCPU = false
	if s.want(figCPU) {
		ts, err := cpu.TimesWithContext(ctx, false)
		if err == nil && len(ts) == 0 {
			err = errNoCPUTimes
		}
		if h.HasCPU = s.got(figCPU, err, errs); h.HasCPU {
			h.CPU = gopsutilCPUTimes(&ts[0])
		}
	}
	h.NumCPU = 0
	if s.want(figNumCPU) {
		n, err := cpu.CountsWithContext(ctx, true)
		if s.got(figNumCPU, err, errs) {
			h.NumCPU = n
		}
	}

	h.HasMemory = false
	if s.want(figMemory) {
		vm, err := mem.VirtualMemoryWithContext(ctx)
		if h.HasMemory = s.got(figMemory, err, errs); h.HasMemory {
			var sw *mem.SwapMemoryStat
			if s.want(figSwap) {
				sw, err = mem.SwapMemoryWithContext(ctx)
				if !s.got(figSwap, err, errs) {
					sw = nil
				}
			}
			h.Memory = gopsutilMemory(vm, sw)
		}
	}
	h.HasPaging = false

	h.HasDisk = false
	h.Disks = h.Disks[:0]
	if s.want(figDisk) {
		m, err := disk.IOCountersWithContext(ctx)
		if h.HasDisk = s.got(figDisk, err, errs); h.HasDisk {
			h.Disks, h.Disk = gopsutilDisks(m, s.want(figDiskBusy), h.Disks)
		}
	}

	if s.want(figNet) {
		if now := time.Now(); s.netEvery == 0 || now.Sub(s.netAt) >= s.netEvery {
			cs, err := net.IOCountersWithContext(ctx, true)
			s.netAt = now
			if s.hasNet = s.got(figNet, err, errs); s.hasNet {
				s.ifaces, s.net = gopsutilIfaces(cs, s.ifaces)
			}
		}
	}
	h.HasNet = s.hasNet
	h.Net = s.net
	h.Ifaces = append(h.Ifaces[:0], s.ifaces...)

	h.HasLoad = false
	if s.want(figLoad) {
		a, err := load.AvgWithContext(ctx)
		if h.HasLoad = s.got(figLoad, err, errs); h.HasLoad {
			h.Load = gopsutilLoad(a)
		}
	}

	h.HasFS = false
	if s.workDir != "" && s.want(figFS) {
		u, err := disk.UsageWithContext(ctx, s.workDir)
		if h.HasFS = s.got(figFS, err, errs); h.HasFS {
			h.FS = gopsutilFilesystem(s.workDir, u)
		}
	}
	h.Pressure = PressureSet{}
}

func (s *gopsutilSource) readJob(ctx context.Context, out *Sample, errs *[]error) {
	j := &out.Job
	j.HasCgroup, j.CgroupOwn, j.CgroupDir = false, false, ""
	j.HasTree = s.want(figProcCPU)
	if !j.HasTree {
		j.Tree = Tree{}
		return
	}
	if !s.pacer.due(out.Reason, out.Time) {
		j.Tree = s.last // too soon for this tree: the last walk's figures stand
		return
	}
	pid, _, exited := s.current(nil)
	job := int32(pid)

	began := s.pacer.start()
	s.tally.begin()
	s.tree = s.tree[:0]
	if job > 0 {
		var err error
		s.table, err = processTable(ctx, s.table[:0])
		if err != nil {
			// Without the listing every process would look gone:
			// the last figures stand.
			*errs = append(*errs, fmt.Errorf("process table: %w", err))
			j.Tree = s.last
			return
		}
		s.tree = descendants(job, s.table, s.tree)
	}
	for _, l := range s.tree {
		s.tally.add(s.readProc(ctx, l, errs))
	}
	roots := 0
	if len(s.tree) > 0 {
		roots = 1
	}
	s.last = s.tally.end(roots, exited, s.want(figProcIO))
	s.last.At = out.Time
	s.pacer.done(began, out.Time, s.last.Processes)
	j.Tree = s.last
}

// agentCPU returns the CPU time the agent has used so far: a walk's cost
// is counted in it, so that a busy machine that delays the walk does not
// space it out.
func (s *gopsutilSource) agentCPU() (time.Duration, bool) {
	t, err := s.self.Times()
	if err != nil {
		return 0, false
	}
	return seconds(t.User + t.System), true
}

// readProc reads one process of the tree. A process created just for a
// figure would check that the pid exists and read its start time, two
// more system calls per process and sample: the listing has just seen it.
func (s *gopsutilSource) readProc(ctx context.Context, l procLink, errs *[]error) gopsutilProc {
	p := &process.Process{Pid: l.PID}
	f := gopsutilProc{PID: l.PID, Threads: int(max(l.Threads, 0)), IOAbsent: true}
	if s.want(figProcCPU) {
		t, err := p.TimesWithContext(ctx)
		if f.HasCPU = s.gotProc(ctx, figProcCPU, l.PID, err, errs); f.HasCPU {
			f.User, f.System = seconds(t.User), seconds(t.System)
		}
	}
	if s.want(figProcMemory) {
		m, err := p.MemoryInfoWithContext(ctx)
		if s.gotProc(ctx, figProcMemory, l.PID, err, errs) {
			f.RSS = m.RSS
		}
	}
	if s.want(figProcIO) {
		c, err := p.IOCountersWithContext(ctx)
		if s.gotProc(ctx, figProcIO, l.PID, err, errs) {
			f.ReadBytes, f.WriteBytes = gopsutilProcIO(c, s.allIO)
			f.IOAbsent = false
		}
	}
	if l.Threads < 0 && s.want(figProcThreads) {
		n, err := p.NumThreadsWithContext(ctx)
		if s.gotProc(ctx, figProcThreads, l.PID, err, errs) {
			f.Threads = int(n)
		}
	}
	return f
}

// gotProc is got for a figure of process pid: a process that has exited
// since the listing, or that belongs to another user, is no problem.
func (s *gopsutilSource) gotProc(ctx context.Context, f figure, pid int32, err error, errs *[]error) bool {
	if err == nil {
		return true
	}
	if isGone(err) || isDenied(err) {
		return false
	}
	// Some systems say neither: Windows answers a dead pid with "invalid
	// parameter".
	if ok, perr := process.PidExistsWithContext(ctx, pid); perr == nil && !ok {
		return false
	}
	return s.got(f, err, errs)
}

// SetSubreaper does nothing: only Linux has child subreapers.
func SetSubreaper() error { return nil }

// IsSubreaper is false: only Linux has child subreapers.
func IsSubreaper() (bool, error) { return false, nil }
