package hostmetrics

import (
	"github.com/jobtrace/jobtrace/kstat"
	"math"
	"strings"
	"testing"
	"time"
)

// The kstat values below are made by hand with the names and data types
// the illumos kernel gives them (uint64 for the cpu:<n>:sys nanoseconds and
// the link counters, uint32 for the avenrun values and ierrors, ulong,
// which a 64-bit reader gets as uint64, for the page counts).

func u64(name string, v uint64) kstat.Named {
	return kstat.Named{Name: name, Type: kstat.DataUint64, Uint: v}
}

func u32(name string, v uint32) kstat.Named {
	return kstat.Named{Name: name, Type: kstat.DataUint32, Uint: uint64(v)}
}

func i32(name string, v int32) kstat.Named {
	return kstat.Named{Name: name, Type: kstat.DataInt32, Int: int64(v)}
}

func ks(module string, instance int, name string, vs ...kstat.Named) illumosNamed {
	return illumosNamed{KStat: kstat.KStat{Module: module, Instance: instance, Name: name, Type: kstat.TypeNamed}, Values: vs}
}

// without returns vs less the value called name.
func without(vs []kstat.Named, name string) []kstat.Named {
	var out []kstat.Named
	for _, v := range vs {
		if v.Name != name {
			out = append(out, v)
		}
	}
	return out
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestKsUint(t *testing.T) {
	vs := []kstat.Named{
		u64("a", 1<<40), u32("b", 7), i32("c", 9),
		{Name: "d", Type: kstat.DataInt64, Int: -1},
		{Name: "e", Type: kstat.DataString, Str: "12"},
		{Name: "f", Type: kstat.DataChar, Str: "x"},
	}
	for _, c := range []struct {
		name string
		v    uint64
		ok   bool
	}{
		{"a", 1 << 40, true}, {"b", 7, true}, {"c", 9, true},
		{"d", 0, false}, {"e", 0, false}, {"f", 0, false}, {"missing", 0, false},
	} {
		if v, ok := ksUint(vs, c.name); v != c.v || ok != c.ok {
			t.Errorf("%s: %d %v, want %d %v", c.name, v, ok, c.v, c.ok)
		}
	}
}

func cpuSys(n int, user, kernel, idle, intr uint64) illumosNamed {
	return ks("cpu", n, "sys",
		u64("cpu_nsec_idle", idle), u64("cpu_nsec_user", user), u64("cpu_nsec_kernel", kernel),
		u64("cpu_nsec_intr", intr), u64("cpu_nsec_dtrace", 5), u64("cpu_ticks_wait", 0))
}

func TestIllumosCPU(t *testing.T) {
	cpus := []illumosNamed{
		cpuSys(0, 10e9, 4e9, 80e9, 1e9),
		cpuSys(1, 20e9, 6e9, 70e9, 0.5e9),
	}
	got, err := illumosCPU(cpus)
	if err != nil {
		t.Fatal(err)
	}
	// Interrupt time is part of the kernel's: it is moved to IRQ.
	want := CPUTimes{User: 30, System: 8.5, IRQ: 1.5, Idle: 150}
	if !near(got.User, want.User) || !near(got.System, want.System) || !near(got.IRQ, want.IRQ) ||
		!near(got.Idle, want.Idle) || got.IOWait != 0 || got.Steal != 0 || got.Nice != 0 {
		t.Errorf("got %+v, want %+v", got, want)
	}

	// No cpu_nsec_intr: all kernel time is System. More interrupt time
	// than kernel time (the clock's update is late): System is not negative.
	noIntr := ks("cpu", 0, "sys", without(cpuSys(0, 1e9, 2e9, 3e9, 0).Values, "cpu_nsec_intr")...)
	late := cpuSys(1, 1e9, 1e9, 1e9, 3e9)
	got, err = illumosCPU([]illumosNamed{noIntr, late})
	if err != nil || !near(got.System, 2) || !near(got.IRQ, 1) {
		t.Errorf("no intr, late intr: %+v, %v", got, err)
	}

	// A missing value makes the figure absent, and says which.
	bad := ks("cpu", 3, "sys", without(cpuSys(3, 1, 1, 1, 0).Values, "cpu_nsec_idle")...)
	if got, err := illumosCPU([]illumosNamed{cpus[0], bad}); err == nil || got != (CPUTimes{}) ||
		!strings.Contains(err.Error(), "cpu:3:sys has no cpu_nsec_idle") {
		t.Errorf("missing idle: %+v, %v", got, err)
	}
	if _, err := illumosCPU(nil); err == nil {
		t.Error("no CPU: no error")
	}
}

func TestIllumosMemory(t *testing.T) {
	const page = 4096
	pages := ks("unix", 0, "system_pages",
		u64("physmem", 1000), u64("freemem", 200), u64("availrmem", 700), u64("pagestotal", 1010))
	m, err := illumosMemory(pages, nil, page)
	want := Memory{Total: 1000 * page, Free: 200 * page, Available: 200 * page, Used: 800 * page}
	if err != nil || m != want {
		t.Errorf("no ARC: %+v, %v; want %+v", m, err, want)
	}

	// The ARC above its floor is available; its size is the cache.
	arc := []kstat.Named{u64("size", 300*page), u64("c_min", 100*page), u64("c_max", 900*page)}
	m, err = illumosMemory(pages, arc, page)
	want = Memory{Total: 1000 * page, Free: 200 * page, Available: 400 * page, Used: 600 * page, Cached: 300 * page}
	if err != nil || m != want {
		t.Errorf("ARC: %+v, %v; want %+v", m, err, want)
	}
	// Without its floor, none of it is counted as available.
	m, _ = illumosMemory(pages, without(arc, "c_min"), page)
	if m.Available != 200*page || m.Cached != 300*page {
		t.Errorf("ARC without c_min: %+v", m)
	}

	if _, err := illumosMemory(ks("unix", 0, "system_pages", without(pages.Values, "freemem")...), nil, page); err == nil ||
		!strings.Contains(err.Error(), "unix:0:system_pages has no freemem") {
		t.Errorf("missing freemem: %v", err)
	}
}

func TestIllumosPaging(t *testing.T) {
	vm := func(n int, maj, hat, as uint64) illumosNamed {
		return ks("cpu", n, "vm", u64("pgin", 1), u64("maj_fault", maj), u64("hat_fault", hat), u64("as_fault", as), u64("prot_fault", 9))
	}
	p, err := illumosPaging([]illumosNamed{vm(0, 2, 10, 100), vm(1, 3, 20, 200)})
	if err != nil || p != (Paging{Major: 5, Minor: 330}) {
		t.Errorf("%+v, %v", p, err)
	}
	bad := ks("cpu", 1, "vm", without(vm(1, 0, 0, 0).Values, "as_fault")...)
	if _, err := illumosPaging([]illumosNamed{vm(0, 1, 1, 1), bad}); err == nil || !strings.Contains(err.Error(), "cpu:1:vm has no as_fault") {
		t.Errorf("missing as_fault: %v", err)
	}
	if _, err := illumosPaging(nil); err == nil {
		t.Error("no vm kstat: no error")
	}
}

func TestIllumosLoad(t *testing.T) {
	misc := ks("unix", 0, "system_misc",
		u32("ncpus", 2), u32("avenrun_1min", 512), u32("avenrun_5min", 128), u32("avenrun_15min", 64), u32("nproc", 87))
	l, err := illumosLoad(misc)
	if err != nil || l != (Load{Load1: 2, Load5: 0.5, Load15: 0.25, Total: 87}) {
		t.Errorf("%+v, %v", l, err)
	}
	if _, err := illumosLoad(ks("unix", 0, "system_misc", without(misc.Values, "avenrun_15min")...)); err == nil {
		t.Error("missing avenrun_15min: no error")
	}
	l, err = illumosLoad(ks("unix", 0, "system_misc", without(misc.Values, "nproc")...))
	if err != nil || l.Total != 0 || l.Load1 != 2 {
		t.Errorf("no nproc: %+v, %v", l, err)
	}
}

func TestIllumosDisks(t *testing.T) {
	disks := []illumosDisk{
		{Module: "sd", Name: "sd1", IO: kstat.IO{NRead: 1000, NWritten: 5000, Reads: 2, Writes: 3, RTime: int64(2 * time.Second), WTime: 99}},
		{Module: "zfs", Name: "rpool", IO: kstat.IO{NRead: 7 << 20, NWritten: 7 << 20, Reads: 70, Writes: 70, RTime: 7e9}},
		{Module: "blkdev", Name: "blkdev0", IO: kstat.IO{NRead: 1 << 20, NWritten: 512, Reads: 10, Writes: 1, RTime: int64(time.Second)}},
		{Module: "lofi", Name: "lofi1", IO: kstat.IO{NRead: 9, Reads: 9}},
		{Module: "zfs/tank", Name: "io", IO: kstat.IO{NRead: 9, Reads: 9}},
	}
	devs, tot := illumosDisks(disks, nil)
	var names []string
	for _, d := range devs {
		names = append(names, d.Name)
		if d.Virtual != (d.Name == "rpool" || d.Name == "lofi1" || d.Name == "io") {
			t.Errorf("%s: Virtual %v", d.Name, d.Virtual)
		}
	}
	if strings.Join(names, " ") != "blkdev0 io lofi1 rpool sd1" {
		t.Fatalf("devices %v", names)
	}
	want := Disk{Name: "sd1", DiskIO: DiskIO{Reads: 2, Writes: 3, ReadBytes: 1000, WrittenBytes: 5000, IOTime: 2 * time.Second}, Whole: true}
	if devs[4] != want {
		t.Errorf("sd1: %+v, want %+v", devs[4], want)
	}
	// Pools, lofi and ramdisk devices are stacked on the disks: their
	// bytes are not counted again.
	wantTot := DiskIO{Reads: 12, Writes: 4, ReadBytes: 1000 + 1<<20, WrittenBytes: 5512, IOTime: 3 * time.Second}
	if tot != wantTot {
		t.Errorf("totals %+v, want %+v", tot, wantTot)
	}
}

func TestIllumosIfaces(t *testing.T) {
	link := func(name string, rb, ob uint64) illumosNamed {
		return ks("link", 0, name,
			u64("rbytes64", rb), u64("obytes64", ob), u64("ipackets64", rb/100), u64("opackets64", ob/100),
			u32("ierrors", 1), u32("oerrors", 2), u32("rbytes", uint32(rb)), u32("norcvbuf", 4))
	}
	broken := ks("link", 0, "vnic9", without(link("vnic9", 1, 1).Values, "oerrors")...)
	ifs, tot, err := illumosIfaces([]illumosNamed{link("net0", 10000, 2000), broken, link("vnic0", 500, 700)}, nil)
	if err == nil || !strings.Contains(err.Error(), "link:0:vnic9 has no oerrors") {
		t.Errorf("error %v", err)
	}
	if len(ifs) != 2 || ifs[0].Name != "net0" || ifs[1].Name != "vnic0" {
		t.Fatalf("interfaces %+v", ifs)
	}
	want := Iface{Name: "net0", NetIO: NetIO{RxBytes: 10000, RxPackets: 100, RxErrors: 1, TxBytes: 2000, TxPackets: 20, TxErrors: 2}}
	if ifs[0] != want {
		t.Errorf("net0 %+v, want %+v", ifs[0], want)
	}
	wantTot := NetIO{RxBytes: 10500, RxPackets: 105, RxErrors: 2, TxBytes: 2700, TxPackets: 27, TxErrors: 4}
	if tot != wantTot {
		t.Errorf("totals %+v, want %+v", tot, wantTot)
	}
}

func TestIllumosFilesystem(t *testing.T) {
	f := illumosFilesystem("/work", 512, 1000, 300, 250)
	if f != (Filesystem{Path: "/work", Total: 512000, Used: 358400, Free: 128000, Reserved: 25600}) {
		t.Errorf("%+v", f)
	}
	// Figures that do not add up (a file system changing under the call)
	// give no wrapped-around sizes.
	f = illumosFilesystem("/w", 4096, 10, 20, 30)
	if f.Used != 0 || f.Free != 40960 || f.Reserved != 0 || f.Total != 40960 {
		t.Errorf("%+v", f)
	}
}

// illumosInputs is what a machine with two CPUs, ZFS, a disk and a link
// gives, as illumosKstats.
func illumosInputs() *illumosKstats {
	fs := illumosFilesystem("/work", 4096, 100, 50, 40)
	return &illumosKstats{
		CPUs: []illumosNamed{cpuSys(0, 10e9, 4e9, 80e9, 1e9), cpuSys(1, 20e9, 6e9, 70e9, 0.5e9)},
		VMs: []illumosNamed{
			ks("cpu", 0, "vm", u64("maj_fault", 1), u64("hat_fault", 2), u64("as_fault", 3)),
			ks("cpu", 1, "vm", u64("maj_fault", 1), u64("hat_fault", 2), u64("as_fault", 3)),
		},
		Pages: ks("unix", 0, "system_pages", u64("physmem", 1000), u64("freemem", 200)),
		Misc:  ks("unix", 0, "system_misc", u32("avenrun_1min", 256), u32("avenrun_5min", 256), u32("avenrun_15min", 256), u32("nproc", 50)),
		ARC:   []kstat.Named{u64("size", 100*4096), u64("c_min", 50*4096)},
		Disks: []illumosDisk{{Module: "sd", Name: "sd0", IO: kstat.IO{NRead: 4096, NWritten: 8192, Reads: 1, Writes: 2, RTime: 1e6}}},
		Links: []illumosNamed{ks("link", 0, "net0", u64("rbytes64", 1), u64("obytes64", 2), u64("ipackets64", 3),
			u64("opackets64", 4), u32("ierrors", 0), u32("oerrors", 0))},
		PageSize: 4096,
		FS:       &fs,
	}
}

func TestIllumosHost(t *testing.T) {
	var h Host
	if err := illumosHost(illumosInputs(), &h); err != nil {
		t.Fatal(err)
	}
	if !h.HasCPU || h.NumCPU != 2 || !h.HasMemory || !h.HasPaging || !h.HasDisk || !h.HasNet || !h.HasLoad || !h.HasFS {
		t.Errorf("a figure is missing: %+v", h)
	}
	if h.Memory.Available != 250*4096 || h.Paging != (Paging{Major: 2, Minor: 10}) || h.Disk.ReadBytes != 4096 ||
		h.Net.TxBytes != 2 || h.Load.Load1 != 1 || h.FS.Free != 40*4096 || len(h.Disks) != 1 || len(h.Ifaces) != 1 {
		t.Errorf("%+v", h)
	}
	if h.Pressure != (PressureSet{}) {
		t.Errorf("pressure %+v", h.Pressure)
	}

	// What was not read is absent, not zero; a kstat without a value the
	// figure needs makes that figure absent, and says why; the slices are
	// reused.
	k := illumosInputs()
	k.CPUs[1] = ks("cpu", 1, "sys", without(k.CPUs[1].Values, "cpu_nsec_user")...)
	k.Pages = illumosNamed{}
	k.Disks = nil
	k.FS = nil
	disks := h.Disks
	err := illumosHost(k, &h)
	if err == nil || !strings.Contains(err.Error(), "cpu:1:sys has no cpu_nsec_user") {
		t.Errorf("error %v", err)
	}
	if h.HasCPU || h.NumCPU != 0 || h.HasMemory || h.HasDisk || len(h.Disks) != 0 || h.HasFS || !h.HasPaging || !h.HasNet || !h.HasLoad {
		t.Errorf("%+v", h)
	}
	if cap(h.Disks) == 0 || &h.Disks[:1][0] != &disks[:1][0] {
		t.Error("Disks not reused")
	}

	// Nothing read (no /dev/kstat): nothing present.
	if err := illumosHost(&illumosKstats{}, &h); err != nil || h.HasCPU || h.HasMemory || h.HasPaging || h.HasNet || h.HasLoad || h.HasDisk {
		t.Errorf("nothing read: %+v, %v", h, err)
	}
}

func TestIllumosUnavailable(t *testing.T) {
	got := illumosUnavailable(illumosAlwaysAbsent)
	want := "on illumos: no pressure stall information, no cgroup, no buffer size, no swap figures, no per-process IO, no iowait or steal time, no count of runnable threads"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := illumosUnavailable(illumosAlwaysAbsent | figCached | figDisk | figDiskBusy); !strings.Contains(got, "no page cache size") || !strings.Contains(got, "no disk IO, no disk busy time") {
		t.Errorf("%q", got)
	}
}
