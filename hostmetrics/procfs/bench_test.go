package procfs

import (
	"os"
	"runtime"
	"testing"
)

// readers lists one read of each file, as a sampler does it.
func readers(f FS) map[string]func() error {
	var (
		s  Stat
		m  Meminfo
		v  Vmstat
		d  Diskstats
		n  NetDev
		l  Loadavg
		pc Pressure
		pm Pressure
		pi Pressure
	)
	return map[string]func() error{
		"Stat":           func() error { return f.Stat(&s) },
		"Meminfo":        func() error { return f.Meminfo(&m) },
		"Vmstat":         func() error { return f.Vmstat(&v) },
		"Diskstats":      func() error { return f.Diskstats(&d) },
		"NetDev":         func() error { return f.NetDev(&n) },
		"Loadavg":        func() error { return f.Loadavg(&l) },
		"PressureCPU":    func() error { return f.Pressure(PressureCPU, &pc) },
		"PressureMemory": func() error { return f.Pressure(PressureMemory, &pm) },
		"PressureIO":     func() error { return f.Pressure(PressureIO, &pi) },
	}
}

func realFS(tb testing.TB) FS {
	if runtime.GOOS != "linux" {
		tb.Skip("no /proc outside Linux")
	}
	if _, err := os.Stat("/proc/stat"); err != nil {
		tb.Skip("no /proc here:", err)
	}
	return NewFS("/proc", "/sys")
}

// TestRealProc reads this machine's files: they must parse, and a second
// read must not allocate.
func TestRealProc(t *testing.T) {
	f := realFS(t)
	for name, read := range readers(f) {
		if err := read(); err != nil {
			if isNotExist(err) {
				t.Logf("%s: absent here: %v", name, err)
				continue
			}
			t.Errorf("%s: %v", name, err)
			continue
		}
		if allocs := testing.AllocsPerRun(20, func() { _ = read() }); allocs != 0 {
			t.Errorf("%s: %v allocations per read, want 0", name, allocs)
		}
	}
}

// TestFixtureNoAllocs checks steady-state reads of the fixtures on Linux,
// where the syscall layer is the allocation-free one.
func TestFixtureNoAllocs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the allocation-free read is Linux only")
	}
	for name, read := range readers(NewFS("testdata/proc", "testdata/sys")) {
		if err := read(); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if allocs := testing.AllocsPerRun(20, func() { _ = read() }); allocs != 0 {
			t.Errorf("%s: %v allocations per read, want 0", name, allocs)
		}
	}
}

func benchRead(b *testing.B, name string) {
	read := readers(realFS(b))[name]
	if err := read(); err != nil {
		b.Skip(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := read(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStat(b *testing.B)           { benchRead(b, "Stat") }
func BenchmarkMeminfo(b *testing.B)        { benchRead(b, "Meminfo") }
func BenchmarkVmstat(b *testing.B)         { benchRead(b, "Vmstat") }
func BenchmarkDiskstats(b *testing.B)      { benchRead(b, "Diskstats") }
func BenchmarkNetDev(b *testing.B)         { benchRead(b, "NetDev") }
func BenchmarkLoadavg(b *testing.B)        { benchRead(b, "Loadavg") }
func BenchmarkPressureCPU(b *testing.B)    { benchRead(b, "PressureCPU") }
func BenchmarkPressureMemory(b *testing.B) { benchRead(b, "PressureMemory") }
func BenchmarkPressureIO(b *testing.B)     { benchRead(b, "PressureIO") }

// BenchmarkAll is one host sample: every file once.
func BenchmarkAll(b *testing.B) {
	all := readers(realFS(b))
	for _, read := range all {
		_ = read() // grow the buffer to its steady size
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, read := range all {
			_ = read()
		}
	}
}

// BenchmarkReadOnly is the floor: the same files read with the same
// syscalls and no parsing.
func BenchmarkReadOnly(b *testing.B) {
	f := realFS(b)
	p := f.paths
	files := []struct {
		path  string
		whole bool
	}{
		{p.stat, oneShow}, {p.meminfo, oneShow}, {p.vmstat, records}, {p.diskstats, records},
		{p.netDev, records}, {p.loadavg, oneShow},
		{p.pressure[PressureCPU], oneShow}, {p.pressure[PressureMemory], oneShow}, {p.pressure[PressureIO], oneShow},
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, file := range files {
			if _, err := f.r.readFile(file.path, file.whole); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkDiskstatsFirst is a sampler's first read of /proc/diskstats,
// which tells whole disks from partitions in /sys/block.
func BenchmarkDiskstatsFirst(b *testing.B) {
	f := realFS(b)
	var d Diskstats
	if err := f.Diskstats(&d); err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		f := NewFS("/proc", "/sys")
		if err := f.Diskstats(&d); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
}
