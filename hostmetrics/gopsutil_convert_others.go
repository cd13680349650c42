//go:build (!linux && !illumos) || gopsutil

package hostmetrics

import (
	"cmp"
	"errors"
	"io/fs"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/disk"
	"github.com/shirou/gopsutil/v4/load"
	"github.com/shirou/gopsutil/v4/mem"
	"github.com/shirou/gopsutil/v4/net"
	"github.com/shirou/gopsutil/v4/process"
)

// This file turns what gopsutil returns into a Sample's fields. The calls
// that read the figures are in gopsutil_others.go. Both are built only where
// there is no native reader, so that the Linux and illumos binaries link no
// gopsutil; the build tag gopsutil builds the conversions on Linux too, for
// the tests that check them against the native source
// (go test -tags gopsutil ./hostmetrics/).

// gopsutilAbsent returns the figures that gopsutil cannot give on goos, as of
// v4.26: those it has no call for at all, and those whose call answers
// without the figure (zeros) rather than with an error. Figures whose call
// says it is not implemented are found by trying it, not listed here.
func gopsutilAbsent(goos string) figure {
	// Pressure stall information and cgroups are Linux's; gopsutil's swap
	// figures carry page faults only on Linux.
	f := figPressure | figCgroup | figPaging
	switch goos {
	case "darwin":
		// The IOKit statistics give the time spent in reads and in
		// writes, summed over concurrent requests: not the time the
		// disk was busy. Mach's VM statistics have no buffer or cache
		// figure.
		f |= figDiskBusy | figBuffers | figCached
	case "windows":
		// gopsutil emulates a load average on Windows with a goroutine
		// that polls the processor queue every five seconds from the
		// first call on; it gives no busy time for a volume;
		// GlobalMemoryStatusEx has no buffer or cache figure.
		f |= figLoad | figDiskBusy | figBuffers | figCached
	case "freebsd":
		// A process's IO is given as the block operation counts of its
		// rusage, not in bytes. gopsutil reads no page cache count on
		// FreeBSD 11.2 and later, whose VM has no cache queue.
		f |= figProcIO | figCached
	}
	return f
}

// isNotImplemented tells whether err is gopsutil's answer for a figure it
// does not read on this system. gopsutil keeps that sentinel in an internal
// package, so its text is what identifies it.
func isNotImplemented(err error) bool {
	for err != nil {
		if err.Error() == "not implemented yet" {
			return true
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			return slices.ContainsFunc(u.Unwrap(), isNotImplemented)
		default:
			return false
		}
	}
	return false
}

// isGone tells whether err says that the process asked about no longer
// exists, which is no problem: it left the tree between the listing and the
// reading.
func isGone(err error) bool {
	return errors.Is(err, process.ErrorProcessNotRunning) || errors.Is(err, fs.ErrNotExist)
}

// isDenied tells whether err says that the process asked about may not be
// read by the agent (another user's).
func isDenied(err error) bool {
	return errors.Is(err, process.ErrorNotPermitted) || errors.Is(err, fs.ErrPermission)
}

// seconds converts gopsutil's float seconds to the nearest nanosecond:
// truncated, a process's 2.05 s of CPU (205 clock ticks) would be
// 2.049999999 s.
func seconds(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }

// gopsutilCPUTimes converts the host's CPU times. gopsutil gives seconds, as
// CPUTimes does. Guest time is left out, being already counted in
// user and nice where a system reports it (Linux).
func gopsutilCPUTimes(t *cpu.TimesStat) CPUTimes {
	return CPUTimes{
		User: t.User, Nice: t.Nice, System: t.System, Idle: t.Idle,
		IOWait: t.Iowait, IRQ: t.Irq, SoftIRQ: t.Softirq, Steal: t.Steal,
	}
}

// gopsutilMemory converts host memory; sw is nil when swap could not be read.
// Used is Total − Available, the convention of system.memory.usage, when
// the system gives Available.
func gopsutilMemory(vm *mem.VirtualMemoryStat, sw *mem.SwapMemoryStat) Memory {
	m := Memory{
		Total: vm.Total, Used: vm.Used, Free: vm.Free, Available: vm.Available,
		Buffers: vm.Buffers, Cached: vm.Cached,
	}
	if vm.Available > 0 && vm.Available <= vm.Total {
		m.Used = vm.Total - vm.Available
	}
	if sw != nil {
		m.SwapTotal, m.SwapUsed = sw.Total, sw.Used
	}
	return m
}

// gopsutilDisks converts per-device disk counters into dst (reused), sorted by
// name, and their totals. Every device gopsutil lists off Linux is taken as
// a whole disk: darwin lists disks, not partitions; FreeBSD lists devstat
// devices, which are disks; Windows lists fixed volumes by drive letter.
// The devices' IOTime is set only when busy says that gopsutil's IoTime is
// the time the device was busy.
func gopsutilDisks(m map[string]disk.IOCountersStat, busy bool, dst []Disk) ([]Disk, DiskIO) {
	dst = dst[:0]
	for name, c := range m {
		io := DiskIO{
			Reads: c.ReadCount, Writes: c.WriteCount,
			ReadBytes: c.ReadBytes, WrittenBytes: c.WriteBytes,
		}
		if busy {
			io.IOTime = time.Duration(c.IoTime) * time.Millisecond
		}
		dst = append(dst, Disk{Name: name, DiskIO: io, Whole: true})
	}
	slices.SortFunc(dst, func(a, b Disk) int { return strings.Compare(a.Name, b.Name) })
	return dst, hostDiskIO(dst)
}

// gopsutilIfaces converts per-interface counters into dst (reused), in gopsutil's
// order, and their sum over every interface but the loopback.
func gopsutilIfaces(cs []net.IOCountersStat, dst []Iface) ([]Iface, NetIO) {
	dst = dst[:0]
	for i := range cs {
		c := &cs[i]
		n := NetIO{
			RxBytes: c.BytesRecv, RxPackets: c.PacketsRecv, RxErrors: c.Errin, RxDrops: c.Dropin,
			TxBytes: c.BytesSent, TxPackets: c.PacketsSent, TxErrors: c.Errout, TxDrops: c.Dropout,
		}
		dst = append(dst, Iface{Name: c.Name, NetIO: n})
	}
	return dst, hostNetIO(dst)
}

// gopsutilLoad converts the load average. gopsutil gives no task counts with it:
// they stay zero.
func gopsutilLoad(a *load.AvgStat) Load {
	return Load{Load1: a.Load1, Load5: a.Load5, Load15: a.Load15}
}

// gopsutilFilesystem converts the usage of the file system holding path. Free is
// what unprivileged users may use where the system says so (statfs's
// f_bavail); what is left is reserved.
func gopsutilFilesystem(path string, u *disk.UsageStat) Filesystem {
	f := Filesystem{Path: path, Total: u.Total, Used: u.Used, Free: u.Free}
	if u.Used+u.Free < u.Total {
		f.Reserved = u.Total - u.Used - u.Free
	}
	return f
}

// gopsutilProcIO returns a process's storage IO in bytes. allIO says that the
// system gives only the bytes of every read and write the process made
// (Windows' GetProcessIoCounters: files, pipes and network alike), which
// then stand for storage IO as they do in the Collector's process scraper;
// elsewhere the disk figures are taken.
func gopsutilProcIO(c *process.IOCountersStat, allIO bool) (read, write uint64) {
	if allIO {
		return c.ReadBytes, c.WriteBytes
	}
	return c.DiskReadBytes, c.DiskWriteBytes
}

// procLink is one row of the process table: a process, its parent, and its
// thread count when the table gives it (-1 when it does not).
type procLink struct {
	PID, PPID int32
	Threads   int32
}

// descendants appends to dst the row of root and those of every process
// below it, breadth first. It sorts table by parent, which lets a whole
// tree be found in one pass over one listing of the system's processes;
// gopsutil's Children lists every process again for each process it is
// asked about. A process whose parent link leads back to root (Windows
// does not re-parent, so a reused pid can make a loop) is not followed
// twice.
func descendants(root int32, table []procLink, dst []procLink) []procLink {
	i := slices.IndexFunc(table, func(l procLink) bool { return l.PID == root })
	if i < 0 {
		return dst
	}
	start := len(dst)
	dst = append(dst, table[i])
	slices.SortFunc(table, func(a, b procLink) int { return cmp.Compare(a.PPID, b.PPID) })
	for k := start; k < len(dst); k++ {
		pid := dst[k].PID
		j, _ := slices.BinarySearchFunc(table, pid, func(l procLink, p int32) int { return cmp.Compare(l.PPID, p) })
		for ; j < len(table) && table[j].PPID == pid; j++ {
			if c := table[j]; c.PID != pid && c.PID != root {
				dst = append(dst, c)
			}
		}
	}
	return dst
}

// gopsutilProc is what one process of the job's tree has used, read at one
// sample.
type gopsutilProc struct {
	PID int32
	// HasCPU is false when the process's CPU could not be read; User and
	// System are then taken from the previous sample.
	HasCPU       bool
	User, System time.Duration
	RSS          uint64
	Threads      int
	// IOAbsent is set when the process's IO could not be read; ReadBytes
	// and WriteBytes are then taken from the previous sample.
	IOAbsent              bool
	ReadBytes, WriteBytes uint64
}

// usageSum is cumulative usage: CPU and storage IO.
type usageSum struct {
	User, System          time.Duration
	ReadBytes, WriteBytes uint64
}

func (u *usageSum) add(p *gopsutilProc) {
	u.User += p.User
	u.System += p.System
	u.ReadBytes += p.ReadBytes
	u.WriteBytes += p.WriteBytes
}

// gopsutilTally sums the job's process tree over the samples. gopsutil gives a
// process's own CPU and IO, never those of the children it has waited for
// (the cutime of Linux's /proc/<pid>/stat), so a process that exits would
// take its usage with it: the tally keeps the figures last seen for every
// process that has left the tree. What a process used after the last
// sample that saw it is lost, until JobExited's usage (which wait4 sums
// over the job and the descendants it waited for) bounds the CPU from
// below.
type gopsutilTally struct {
	last, cur map[int32]gopsutilProc
	gone      usageSum   // last-seen usage of the processes that left
	totals    treeTotals // the totals given: they never go down
	procs     int        // processes, threads and resident memory of this sample
	threads   int
	rss       uint64
	ioAbsent  bool
}

func newGopsutilTally() gopsutilTally {
	return gopsutilTally{last: map[int32]gopsutilProc{}, cur: map[int32]gopsutilProc{}}
}

// begin starts a sample.
func (t *gopsutilTally) begin() {
	clear(t.cur)
	t.procs, t.threads, t.rss = 0, 0, 0
	t.ioAbsent = false
}

// add counts one process of the tree at this sample.
func (t *gopsutilTally) add(p gopsutilProc) {
	l, seen := t.last[p.PID]
	if !p.HasCPU && seen {
		p.User, p.System = l.User, l.System
	}
	if p.IOAbsent {
		t.ioAbsent = true
		if seen {
			p.ReadBytes, p.WriteBytes = l.ReadBytes, l.WriteBytes
		}
	}
	t.cur[p.PID] = p
	t.procs++
	t.threads += p.Threads
	t.rss += p.RSS
}

// end closes the sample and returns the tree. roots is the number of roots
// walked (1 while the job runs); exited is the job's usage once it has been
// reaped; hasIO says that the system gives per-process IO at all.
func (t *gopsutilTally) end(roots int, exited ExitUsage, hasIO bool) Tree {
	for pid, l := range t.last {
		c, ok := t.cur[pid]
		// CPU time never goes down: a process with less than was last
		// seen under its pid is another one, the pid having been reused.
		if !ok || c.User+c.System < l.User+l.System {
			t.gone.add(&l)
		}
	}
	t.last, t.cur = t.cur, t.last
	sum := t.gone
	for _, p := range t.last {
		sum.add(&p)
	}
	// The exited usage and the tally count the same processes (the job
	// and its descendants), so the larger of the two is taken, never
	// their sum. Storage IO from rusage is in block operations on these
	// systems, not bytes, so only the tally gives IO.
	return t.totals.tree(&walkSum{
		Processes: t.procs, Threads: t.threads, Roots: roots, RSS: t.rss,
		User: max(sum.User, exited.User), System: max(sum.System, exited.System),
		IO: hasIO, IOAbsent: t.ioAbsent,
		ReadBytes: sum.ReadBytes, WriteBytes: sum.WriteBytes,
	}, time.Time{})
}
