package cgroup

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fixtureDir finds the cgroup of the fixture's /proc/self/cgroup under its
// own mount, the way SelfDir does on a real host, rooted in the fixture.
func fixtureDir(t *testing.T, root string) string {
	t.Helper()
	m, err := FindMount(filepath.Join(root, "proc"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := SelfPath(filepath.Join(root, "proc"))
	if err != nil {
		t.Fatal(err)
	}
	d, err := m.Dir(p)
	if err != nil {
		t.Fatal(err)
	}
	// FindSelf, outside /proc, is mountinfo's answer.
	if fm, fd, err := FindSelf(filepath.Join(root, "proc")); err != nil || fm != m || fd != d {
		t.Errorf("FindSelf: %+v %q, %v; want %+v %q", fm, fd, err, m, d)
	}
	return filepath.Join(root, d)
}

func u(v uint64) Opt[uint64] { return some(v) }

func zeroPressure() Pressure { return Pressure{HasSome: true, HasFull: true} }

// pl is a pressure line with its total in µs, as the files give it.
func pl(avg10, avg60, avg300 float64, totalUsec int64) PressureLine {
	return PressureLine{Avg10: avg10, Avg60: avg60, Avg300: avg300, Total: time.Duration(totalUsec) * time.Microsecond}
}

func TestReadPureV2(t *testing.T) {
	dir := fixtureDir(t, "testdata/v2")
	if want := filepath.FromSlash("testdata/v2/sys/fs/cgroup/system.slice/runner.service"); dir != want {
		t.Fatalf("own cgroup = %s, want %s", dir, want)
	}
	var s Stats
	if err := ReadDir(dir, &s); err != nil {
		t.Fatal(err)
	}
	want := Stats{
		CPU:           CPUStat{u(20000000), u(15000000), u(5000000), u(0)},
		MemoryCurrent: u(104857600),
		MemoryPeak:    u(209715200),
		MemoryEvents:  MemoryEvents{OOM: u(0), OOMKill: u(0)},
		IO:            IOStat{u(0), u(0)},
		CPUPressure:   zeroPressure(), MemoryPressure: zeroPressure(), IOPressure: zeroPressure(),
	}
	if s != want {
		t.Errorf("runner.service:\n got %+v\nwant %+v", s, want)
	}

	job := Open("testdata/v2/sys/fs/cgroup/ci.slice/job-42")
	if err := job.Read(&s); err != nil {
		t.Fatal(err)
	}
	want = Stats{
		CPU:           CPUStat{u(4567890), u(3456789), u(1111101), u(812345)},
		MemoryCurrent: u(536870912),
		MemoryPeak:    u(1073741824),
		MemoryEvents:  MemoryEvents{OOM: u(2), OOMKill: u(1)},
		IO:            IOStat{u(1459200 + 90430464), u(314773504 + 299008000)},
		CPUPressure: Pressure{
			Some:    pl(12.5, 8.33, 2.1, 3456789),
			HasSome: true, HasFull: true,
		},
		MemoryPressure: Pressure{
			Some:    pl(4, 1.2, 0.3, 234567),
			Full:    pl(3.9, 1.1, 0.25, 200001),
			HasSome: true, HasFull: true,
		},
		IOPressure: Pressure{
			Some:    pl(0.75, 0.5, 0.1, 45678),
			Full:    pl(0.7, 0.45, 0.09, 40000),
			HasSome: true, HasFull: true,
		},
	}
	if s != want {
		t.Errorf("job-42:\n got %+v\nwant %+v", s, want)
	}

	// The root cgroup has no memory.* files: absent, not zero.
	if err := ReadDir("testdata/v2/sys/fs/cgroup", &s); err != nil {
		t.Fatal(err)
	}
	if s.MemoryCurrent.Present || s.MemoryPeak.Present || s.MemoryEvents.OOM.Present || s.CPU.ThrottledUsec.Present {
		t.Errorf("root: absent files read as present: %+v", s)
	}
	if s.CPU.UsageUsec != u(9132451230) || s.IO.ReadBytes != u(1073741824) || s.IOPressure.Full.Total != 88776655*time.Microsecond {
		t.Errorf("root: %+v", s)
	}
}

func TestReadHybrid(t *testing.T) {
	dir := fixtureDir(t, "testdata/hybrid")
	if want := filepath.FromSlash("testdata/hybrid/sys/fs/cgroup/unified"); dir != want {
		t.Fatalf("own cgroup = %s, want %s", dir, want)
	}
	var s Stats
	if err := ReadDir(filepath.Join(dir, "jobtrace-fixture"), &s); err != nil {
		t.Fatal(err)
	}
	// Copied from a child of /sys/fs/cgroup/unified on a hybrid host (Linux
	// 6.18) after a shell loop and a 20 MiB fsync'd write: cpu.stat without
	// throttling keys, the three pressure files, nothing else.
	want := Stats{
		CPU: CPUStat{UsageUsec: u(502671), UserUsec: u(482558), SystemUsec: u(20112)},
		CPUPressure: Pressure{
			Some:    pl(0, 0, 0, 297),
			Full:    pl(0, 0, 0, 297),
			HasSome: true, HasFull: true,
		},
		MemoryPressure: zeroPressure(),
		IOPressure: Pressure{
			Some:    pl(0, 0, 0, 8331),
			Full:    pl(0, 0, 0, 8331),
			HasSome: true, HasFull: true,
		},
	}
	if s != want {
		t.Errorf("hybrid child:\n got %+v\nwant %+v", s, want)
	}
	if err := ReadDir(dir, &s); err != nil {
		t.Fatal(err)
	}
	if !s.CPU.UsageUsec.Present || s.CPU.ThrottledUsec.Present || s.MemoryCurrent.Present || s.IO.ReadBytes.Present ||
		!s.CPUPressure.HasSome || s.CPUPressure.Some.Avg10 != 2.95 {
		t.Errorf("hybrid root: %+v", s)
	}
}

// writeFixture writes a file of a fixture cgroup made by a test.
func writeFixture(t *testing.T, dir, name, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// fixtureCgroup makes a fixture cgroup holding files (name: content).
func fixtureCgroup(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range files {
		writeFixture(t, dir, name, data)
	}
	return dir
}

func TestReadDegrades(t *testing.T) {
	// An older kernel (no memory.peak), one malformed file, one good one.
	dir := fixtureCgroup(t, map[string]string{
		"cpu.stat":       "usage_usec 5\nuser_usec 3\nsystem_usec 2\n",
		"memory.current": "banana\n",
		"pids.current":   "3\n",
		"io.pressure":    "some avg10=0.00 avg60=0.00 avg300=0.00 total=9\n",
	})
	r := NewReader(dir)
	s := Stats{MemoryPeak: u(99)} // stale values must not survive a read
	err := r.Read(&s)
	if !errors.Is(err, ErrParse) {
		t.Fatalf("err = %v, want ErrParse", err)
	}
	want := Stats{
		CPU:        CPUStat{UsageUsec: u(5), UserUsec: u(3), SystemUsec: u(2)},
		IOPressure: Pressure{Some: pl(0, 0, 0, 9), HasSome: true},
	}
	if s != want {
		t.Errorf("got %+v\nwant %+v", s, want)
	}

	// A file longer than the buffer is read whole.
	var long []byte
	for range 2000 {
		long = append(long, "8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0\n"...)
	}
	writeFixture(t, dir, "io.stat", string(long))
	_ = r.Read(&s)
	if s.IO.ReadBytes != u(2000) || s.IO.WriteBytes != u(4000) {
		t.Errorf("long io.stat: %+v", s.IO)
	}

	// A directory that is gone: nothing present, and an error that says so.
	err = ReadDir(filepath.Join(dir, "gone"), &s)
	if !errors.Is(err, fs.ErrNotExist) || s != (Stats{}) {
		t.Errorf("gone: %+v, %v", s, err)
	}
}

// The files of a controller that cgroup.controllers does not list are not
// read (the kernel makes them only for the controllers enabled there, and a
// failed open costs as much as a read), and cgroup.controllers is read again
// at every Read: a controller enabled since is read. Without
// cgroup.controllers every file is read.
func TestReadOnlyEnabledControllers(t *testing.T) {
	// Every file of the two controllers is made, whatever the list says.
	files := map[string]string{"cpu.stat": "usage_usec 5\nuser_usec 3\nsystem_usec 2\n"}
	files["memory.current"], files["io.stat"] = "4096\n", "8:0 rbytes=1 wbytes=2 rios=3 wios=4 dbytes=0 dios=0\n"
	dir := fixtureCgroup(t, files)
	r := NewReader(dir)
	defer func() { r.Close() }()
	var s Stats
	for _, c := range []struct {
		controllers string // "-": no cgroup.controllers
		memory, io  bool
	}{
		{"cpu\n", false, false},
		{"cpu memory\n", true, false},
		{"io pids cpuset", false, true},
		{"\n", false, false},
		{"-", true, true},
	} {
		if c.controllers == "-" {
			// A Reader keeps the file open: a new one sees it gone.
			os.Remove(filepath.Join(dir, "cgroup.controllers"))
			r.Close()
			r = NewReader(dir)
		} else {
			writeFixture(t, dir, "cgroup.controllers", c.controllers)
		}
		if err := r.Read(&s); err != nil {
			t.Fatal(err)
		}
		if !s.CPU.UsageUsec.Present || s.MemoryCurrent.Present != c.memory || s.IO.ReadBytes.Present != c.io {
			t.Errorf("cgroup.controllers %q: cpu.stat read %v, memory.current %v, io.stat %v; want true, %v, %v",
				c.controllers, s.CPU.UsageUsec.Present, s.MemoryCurrent.Present, s.IO.ReadBytes.Present,
				c.memory, c.io)
		}
	}
}

// Populated says what cgroup.events says, and cannot tell without it.
func TestPopulated(t *testing.T) {
	dir := t.TempDir()
	r := NewReader(dir)
	defer r.Close()
	if p, ok := r.Populated(); ok {
		t.Errorf("without cgroup.events: Populated = %v, true", p)
	}
	for _, c := range []struct {
		events    string
		populated bool
		ok        bool
	}{
		{"populated 0\nfrozen 0\n", false, true},
		{"populated 1\nfrozen 0\n", true, true},
		{"frozen 0\npopulated 1", true, true},
		{"frozen 0\n", false, false},
	} {
		writeFixture(t, dir, "cgroup.events", c.events)
		if p, ok := r.Populated(); p != c.populated || ok != c.ok {
			t.Errorf("%q: Populated = %v, %v; want %v, %v", c.events, p, ok, c.populated, c.ok)
		}
	}
}

func BenchmarkReadFixture(b *testing.B) {
	r := NewReader("testdata/v2/sys/fs/cgroup/ci.slice/job-42")
	var s Stats
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Read(&s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadPureV2Fixture reads the job cgroup of the pure cgroup v2
// fixture, which has the files of every controller Stats reads.
func BenchmarkReadPureV2Fixture(b *testing.B) {
	r := NewReader("testdata/v2/sys/fs/cgroup/ci.slice/job-42")
	defer r.Close()
	var s Stats
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Read(&s); err != nil {
			b.Fatal(err)
		}
	}
}
