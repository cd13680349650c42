package hostmetrics

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jobtrace/jobtrace/kstat"
)

// This file turns illumos kstats into a Sample's host fields. The calls that
// read them are in source_illumos.go, built on illumos only; the mapping is
// here, untagged, so that it is tested everywhere with values made by hand.
// A kstat value that is missing makes its figure absent, never zero: the
// functions say which one in their error.

// The kstats read, module:instance:name as kstat(1) writes them.
const (
	ksModCPU       = "cpu"          // cpu:<n>:sys and cpu:<n>:vm, one pair per CPU
	ksNameCPUSys   = "sys"          // CPU time per mode
	ksNameCPUVM    = "vm"           // paging
	ksModUnix      = "unix"         // unix:0:...
	ksNamePages    = "system_pages" // physical memory
	ksNameMisc     = "system_misc"  // load average, process count
	ksModZFS       = "zfs"          // zfs:0:arcstats
	ksNameARC      = "arcstats"     // the ZFS cache
	ksClassDisk    = "disk"         // class of the IO kstats of whole disks
	ksModLink      = "link"         // link:0:<datalink>, one per datalink
	illumosFScale  = 256            // FSCALE: avenrun_* are fixed point with 8 fraction bits
	illumosNoValue = "%s has no %s"
)

// ksUint returns the value called name as an unsigned number, whatever its
// integer type; false when it is missing, negative or not a number.
func ksUint(ns []kstat.Named, name string) (uint64, bool) {
	n, ok := kstat.Value(ns, name)
	if !ok {
		return 0, false
	}
	switch n.Type {
	case kstat.DataUint32, kstat.DataUint64:
		return n.Uint, true
	case kstat.DataInt32, kstat.DataInt64:
		if n.Int >= 0 {
			return uint64(n.Int), true
		}
	}
	return 0, false
}

// ksValues reads the values called names from ns into out, in order; on the
// first one missing it returns its name.
func ksValues(ns []kstat.Named, names []string, out []uint64) (missing string) {
	for i, name := range names {
		v, ok := ksUint(ns, name)
		if !ok {
			return name
		}
		out[i] = v
	}
	return ""
}

// illumosNamed is one named kstat and its values.
type illumosNamed struct {
	KStat  kstat.KStat
	Values []kstat.Named
}

var cpuSysNames = []string{"cpu_nsec_user", "cpu_nsec_kernel", "cpu_nsec_idle"}

// illumosCPU sums the cpu:<n>:sys kstats, one per CPU, into CPU time per
// mode in seconds. The kernel counts nanoseconds in user, kernel and idle
// state (cpu_nsec_user, cpu_nsec_kernel, cpu_nsec_idle), and moves the time
// spent handling interrupts into kernel time; cpu_nsec_intr is that
// interrupt time, so it is taken out of System into IRQ. The kernel brings
// cpu_nsec_intr up to date once a second, from its clock: over less than
// that, system time can be over-counted by interrupt time not yet moved.
// Without cpu_nsec_intr, System is the kernel time whole and IRQ zero.
// illumos counts no iowait (its cpu_ticks_wait has been zero since Solaris
// 10) and no steal time.
func illumosCPU(cpus []illumosNamed) (CPUTimes, error) {
	var t CPUTimes
	if len(cpus) == 0 {
		return t, fmt.Errorf("no %s:<n>:%s kstat", ksModCPU, ksNameCPUSys)
	}
	var v [3]uint64
	for _, c := range cpus {
		if m := ksValues(c.Values, cpuSysNames, v[:]); m != "" {
			return CPUTimes{}, fmt.Errorf(illumosNoValue, c.KStat, m)
		}
		user, kernel, idle := v[0], v[1], v[2]
		intr, _ := ksUint(c.Values, "cpu_nsec_intr")
		intr = min(intr, kernel)
		t.User += nsSeconds(user)
		t.System += nsSeconds(kernel - intr)
		t.IRQ += nsSeconds(intr)
		t.Idle += nsSeconds(idle)
	}
	return t, nil
}

func nsSeconds(ns uint64) float64 { return float64(ns) / 1e9 }

// illumosMemory converts unix:0:system_pages (pages of pageSize bytes) and,
// when the ZFS module is loaded, zfs:0:arcstats (bytes; nil without ZFS).
//
// Total is physmem and Free freemem. The ZFS cache (the ARC) is memory the
// kernel gives back when programs need it, down to its floor c_min: as
// Linux counts the page cache in MemAvailable, Available is freemem plus
// the ARC above its floor, so that Used (Total − Available) does not grow
// with the cache. Cached is the ARC's size. Without arcstats, Available is
// freemem and Cached is zero. illumos has no buffer figure, and its swap
// figures are not in a named kstat: Buffers, SwapTotal and SwapUsed stay
// zero, and Unavailable says so.
func illumosMemory(pages illumosNamed, arc []kstat.Named, pageSize uint64) (Memory, error) {
	var v [2]uint64
	if m := ksValues(pages.Values, []string{"physmem", "freemem"}, v[:]); m != "" {
		return Memory{}, fmt.Errorf(illumosNoValue, pages.KStat, m)
	}
	m := Memory{Total: v[0] * pageSize, Free: min(v[1], v[0]) * pageSize}
	m.Available = m.Free
	if size, ok := ksUint(arc, "size"); ok {
		m.Cached = size
		if floor, ok := ksUint(arc, "c_min"); ok && size > floor {
			m.Available = min(m.Total, m.Free+size-floor)
		}
	}
	m.Used = m.Total - m.Available
	return m, nil
}

var cpuVMNames = []string{"maj_fault", "hat_fault", "as_fault"}

// illumosPaging sums the page faults of the cpu:<n>:vm kstats. Major is
// maj_fault, the faults that waited for IO. Minor is hat_fault plus
// as_fault, the faults handled by the MMU layer and by the address space
// layer: what vmstat(8) shows as minor faults (mf), majors included.
func illumosPaging(vms []illumosNamed) (Paging, error) {
	if len(vms) == 0 {
		return Paging{}, fmt.Errorf("no %s:<n>:%s kstat", ksModCPU, ksNameCPUVM)
	}
	var p Paging
	var v [3]uint64
	for _, c := range vms {
		if m := ksValues(c.Values, cpuVMNames, v[:]); m != "" {
			return Paging{}, fmt.Errorf(illumosNoValue, c.KStat, m)
		}
		p.Major += v[0]
		p.Minor += v[1] + v[2]
	}
	return p, nil
}

// illumosLoad converts unix:0:system_misc. The avenrun_* values are the
// load averages in fixed point, FSCALE (256) being 1; in a non-global
// zone they are the zone's. Total is nproc, the number of processes: not
// threads, which is what Linux counts there. illumos has no count of
// runnable threads in a named kstat: Running stays zero.
func illumosLoad(misc illumosNamed) (Load, error) {
	var v [3]uint64
	if m := ksValues(misc.Values, []string{"avenrun_1min", "avenrun_5min", "avenrun_15min"}, v[:]); m != "" {
		return Load{}, fmt.Errorf(illumosNoValue, misc.KStat, m)
	}
	l := Load{
		Load1:  float64(v[0]) / illumosFScale,
		Load5:  float64(v[1]) / illumosFScale,
		Load15: float64(v[2]) / illumosFScale,
	}
	l.Total, _ = ksUint(misc.Values, "nproc")
	return l, nil
}

// illumosDisk is one IO kstat of class disk: its module (the driver: sd,
// blkdev, zfs, lofi, ...), its name (sd0, blkdev0, a pool's name) and its
// counters.
type illumosDisk struct {
	Module, Name string
	IO           kstat.IO
}

// illumosVirtualDisk tells whether an IO kstat of class disk is a device
// stacked on other disks or on memory, whose traffic is also counted, or
// is not disk traffic at all: ZFS pools (module zfs, or zfs/<pool> in
// newer kernels), lofi(4D) file-backed devices, ramdisk(4D), and Solaris
// Volume Manager metadevices (md). They are listed with Virtual set, which
// keeps them out of the totals and of the metrics, as Linux's loop, ram and
// zram devices are.
func illumosVirtualDisk(module string) bool {
	switch module {
	case "zfs", "lofi", "ramdisk", "md":
		return true
	}
	return strings.HasPrefix(module, "zfs/")
}

// illumosDisks converts the IO kstats of class "disk" into dst (reused),
// sorted by name, and the totals of those that are real disks. Partitions
// have class "partition" and NFS mounts class "nfs", so these are whole
// devices. The counters are in bytes (nread, nwritten) and completed
// operations (reads, writes); rtime is the time the device had requests in
// service, its busy time, which iostat's %b is made of.
func illumosDisks(disks []illumosDisk, dst []Disk) ([]Disk, DiskIO) {
	dst = dst[:0]
	for _, d := range disks {
		io := DiskIO{
			Reads: d.IO.Reads, Writes: d.IO.Writes,
			ReadBytes: d.IO.NRead, WrittenBytes: d.IO.NWritten,
			IOTime: time.Duration(max(d.IO.RTime, 0)),
		}
		dst = append(dst, Disk{Name: d.Name, DiskIO: io, Whole: true, Virtual: illumosVirtualDisk(d.Module)})
	}
	slices.SortFunc(dst, func(a, b Disk) int { return cmp.Compare(a.Name, b.Name) })
	return dst, hostDiskIO(dst)
}

var linkNames = []string{"rbytes64", "ipackets64", "ierrors", "obytes64", "opackets64", "oerrors"}

// illumosIfaces converts the link:0:<datalink> kstats into dst (reused), in
// the order given, and their sum. A datalink is what dladm(8) lists:
// physical links, VNICs, aggregations, etherstubs; traffic that crosses a
// VNIC and the physical link under it is counted on both, as Linux counts a
// bridge and its ports. The loopback has no datalink, so the sum is over
// every link. A link that lacks one of the counters is left out, and the
// error names it.
func illumosIfaces(links []illumosNamed, dst []Iface) ([]Iface, NetIO, error) {
	dst = dst[:0]
	var bad error
	var v [6]uint64
	for _, l := range links {
		if m := ksValues(l.Values, linkNames, v[:]); m != "" {
			if bad == nil {
				bad = fmt.Errorf(illumosNoValue, l.KStat, m)
			}
			continue
		}
		n := NetIO{
			RxBytes: v[0], RxPackets: v[1], RxErrors: v[2],
			TxBytes: v[3], TxPackets: v[4], TxErrors: v[5],
		}
		dst = append(dst, Iface{Name: l.KStat.Name, NetIO: n})
	}
	return dst, hostNetIO(dst), bad
}

// illumosFilesystem converts statvfs(2) figures of the file system holding
// path: blocks, bfree and bavail count fragments of frsize bytes (f_frsize;
// f_bsize is only the preferred IO size). Free is what unprivileged users
// may use (f_bavail); what is left of f_bfree is reserved.
func illumosFilesystem(path string, frsize, blocks, bfree, bavail uint64) Filesystem {
	bfree = min(bfree, blocks)
	bavail = min(bavail, bfree)
	return Filesystem{
		Path:     path,
		Total:    blocks * frsize,
		Used:     (blocks - bfree) * frsize,
		Free:     bavail * frsize,
		Reserved: (bfree - bavail) * frsize,
	}
}

// illumosAlwaysAbsent are the figures illumos never gives: no pressure
// stall information and no cgroups (illumos has neither), no buffer figure,
// no swap figures in a named kstat (they are in unix:0:vminfo, a raw kstat
// of running sums), and no per-process storage IO in bytes (prusage_t
// counts block operations, and not those of ZFS).
const illumosAlwaysAbsent = figPressure | figCgroup | figBuffers | figSwap | figProcIO

// illumosUnavailable says, in one sentence, what the illumos source cannot
// give: the figures in absent, then iowait and steal time, which illumos
// does not count, and the count of runnable threads, which it keeps only in
// a raw kstat. Those last three are written as zeros: a Sample marks
// whole groups (CPU, load) as present, not single figures.
func illumosUnavailable(absent figure) string {
	return unavailableSentence("illumos", absent) + ", no iowait or steal time, no count of runnable threads"
}

// illumosKstats is what the illumos source read from kstats for one sample.
// A field left nil (or Pages and Misc with no Values) is a kstat the
// machine has not, or that could not be read: its figure is absent.
type illumosKstats struct {
	CPUs, VMs   []illumosNamed // cpu:<n>:sys, cpu:<n>:vm
	Pages, Misc illumosNamed   // unix:0:system_pages, unix:0:system_misc
	ARC         []kstat.Named  // zfs:0:arcstats
	Disks       []illumosDisk  // class disk, type IO
	Links       []illumosNamed // link:0:<datalink>
	PageSize    uint64
	FS          *Filesystem // the working directory's file system
}

// illumosHost fills h from k, reusing h's slices. Each figure is present
// when its kstats were read and hold the values it needs; the error joins
// the reasons of those that do not.
func illumosHost(k *illumosKstats, h *Host) error {
	disks, ifaces := h.Disks[:0], h.Ifaces[:0]
	*h = Host{Disks: disks, Ifaces: ifaces}
	var errs []error
	note := func(err error) bool {
		if err != nil {
			errs = append(errs, err)
		}
		return err == nil
	}
	if len(k.CPUs) > 0 {
		var err error
		h.CPU, err = illumosCPU(k.CPUs)
		if h.HasCPU = note(err); h.HasCPU {
			h.NumCPU = len(k.CPUs)
		}
	}
	if k.Pages.Values != nil {
		var err error
		h.Memory, err = illumosMemory(k.Pages, k.ARC, k.PageSize)
		h.HasMemory = note(err)
	}
	if len(k.VMs) > 0 {
		var err error
		h.Paging, err = illumosPaging(k.VMs)
		h.HasPaging = note(err)
	}
	if k.Disks != nil {
		h.HasDisk = true
		h.Disks, h.Disk = illumosDisks(k.Disks, h.Disks)
	}
	if k.Links != nil {
		var err error
		h.Ifaces, h.Net, err = illumosIfaces(k.Links, h.Ifaces)
		note(err)
		h.HasNet = len(h.Ifaces) > 0
	}
	if k.Misc.Values != nil {
		var err error
		h.Load, err = illumosLoad(k.Misc)
		h.HasLoad = note(err)
	}
	if k.FS != nil {
		h.HasFS, h.FS = true, *k.FS
	}
	return errors.Join(errs...)
}
