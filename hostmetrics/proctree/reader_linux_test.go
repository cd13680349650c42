package proctree

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/internal/kernfmt"
)

// fixtureReader returns a Reader of testdata/proc-a whose page size is 4 KiB
// and to which pid 202's io file is not permitted.
func fixtureReader(t *testing.T) *Reader {
	t.Helper()
	r := NewReader("testdata/proc-a/")
	r.pageSize = 4096
	r.openHook = func(path string) syscall.Errno {
		if path == "testdata/proc-a/202/io" {
			return syscall.EACCES
		}
		return 0
	}
	return r
}

func TestSampleFixture(t *testing.T) {
	r := fixtureReader(t)
	now := time.Unix(1700000000, 0)
	u, err := r.Sample([]int{100}, now)
	if err != nil {
		t.Fatalf("Sample: %v", err)
	}
	// 100 (two threads, children on both, one of them gone: 400), 200, the
	// zombie 201, 202 (io not permitted) and the grandchild 300; 999 is not
	// in the tree.
	want := Usage{
		Time:      now,
		Processes: 5,
		Counts: Counts{
			Threads:    6,
			CPUUser:    8140 * time.Millisecond,
			CPUSystem:  1010 * time.Millisecond,
			RSS:        3160 * 4096,
			ReadBytes:  4096 + 40960,
			WriteBytes: 8192 + 12288 + 81920,
			IOAbsent:   true,
		},
	}
	if u != want {
		t.Errorf("Sample =\n%+v\nwant\n%+v", u, want)
	}
	var pids []int
	for _, p := range r.Procs() {
		pids = append(pids, p.PID)
	}
	if got := pidsString(pids); got != "100 200 201 202 300" {
		t.Errorf("visited %s, want breadth-first 100 200 201 202 300", got)
	}
	p := r.Procs()[1]
	if p.Comm != "my (weird) prog" || p.PPID != 100 || p.State != 'R' || p.StartTime != 1100 ||
		p.CPUUser != 3*time.Second || p.CPUSystem != 400*time.Millisecond || p.RSS != 1000*4096 {
		t.Errorf("pid 200 = %+v", p)
	}
	if z := r.Procs()[2]; z.State != 'Z' || z.RSS != 0 || z.CPUUser != 10*time.Millisecond {
		t.Errorf("zombie 201 = %+v", z)
	}
	if p := r.Procs()[3]; !p.IOAbsent || p.ReadBytes != 0 {
		t.Errorf("pid 202 = %+v, want IO absent", p)
	}
	if e := r.Exited(); e != (Exited{}) {
		t.Errorf("Exited after the first sample = %+v, want zero", e)
	}

	// Between the two samples 300 exited and was reaped by 200, the zombie
	// 201 was reaped by 100, and 202 exited and its pid went to a new
	// process.
	r.root = "testdata/proc-b"
	r.Close() // the files of proc-a it keeps open are not proc-b's
	u, err = r.Sample([]int{100}, now.Add(time.Second))
	if err != nil {
		t.Fatalf("second Sample: %v", err)
	}
	if u.Processes != 3 || u.Threads != 4 || u.CPUUser != 3330*time.Millisecond ||
		u.CPUSystem != 520*time.Millisecond || u.IOAbsent || u.ReadBytes != 4096+0+3 {
		t.Errorf("second Sample = %+v", u)
	}
	wantExited := Exited{
		Processes:  3,
		CPUUser:    (1 + 500 + 3) * tick,
		CPUSystem:  (2 + 50 + 4) * tick,
		ReadBytes:  40960,
		WriteBytes: 81920,
	}
	if e := r.Exited(); e != wantExited {
		t.Errorf("Exited = %+v, want %+v", e, wantExited)
	}
	if p := r.Procs()[2]; p.PID != 202 || p.Comm != "newprog" || p.StartTime != 2500 || p.CPUUser != tick {
		t.Errorf("reused pid 202 = %+v", p)
	}
	if p := r.Procs()[1]; p.ChildUser != 5100*time.Millisecond || p.ChildSystem != 520*time.Millisecond {
		t.Errorf("pid 200 after reaping 300 = %+v", p)
	}

	u2, err := r.Sample([]int{100}, now.Add(time.Second))
	if err != nil || u2 != u {
		t.Errorf("third Sample = %+v, %v; want %+v", u2, err, u)
	}
	if e := r.Exited(); e != (Exited{}) {
		t.Errorf("Exited of an unchanged tree = %+v, want zero", e)
	}
}

func TestSampleRootsCountedOnce(t *testing.T) {
	r := fixtureReader(t)
	u1, _ := r.Sample([]int{100}, time.Time{})
	u2, err := r.Sample([]int{200, 100, 0, -1, 100, 300, 12345}, time.Time{})
	if err != nil || u2 != u1 {
		t.Errorf("Sample with overlapping roots = %+v, %v; want %+v", u2, err, u1)
	}
	u3, err := r.Sample(nil, time.Time{})
	if err != nil || u3.Processes != 0 || r.Exited().Processes != 5 {
		t.Errorf("Sample(nil) = %+v, %v, exited %+v", u3, err, r.Exited())
	}
}

func TestSampleErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("testdata/proc-a")); err != nil {
		t.Fatal(err)
	}
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("300/stat", "300 (cc1) R garbage\n")
	write("202/statm", "600\n")
	write("201/io", "rchar: lots\n")
	r := NewReader(dir)
	r.openHook = func(path string) syscall.Errno {
		if strings.HasSuffix(path, "/202/task/202/children") {
			return syscall.EIO
		}
		return 0
	}
	u, err := r.Sample([]int{100}, time.Time{})
	if !errors.Is(err, ErrParse) || !errors.Is(err, syscall.EIO) {
		t.Fatalf("Sample error = %v, want ErrParse and EIO", err)
	}
	for _, s := range []string{"300/stat", "202/statm", "201/io", "202/children"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not name %s", err, s)
		}
	}
	// 300's stat is garbage: 100, 200, 201 (without IO) and 202 (without
	// RSS) remain.
	if u.Processes != 4 || !u.IOAbsent {
		t.Errorf("Sample = %+v, want the 4 readable processes", u)
	}
}

// A process reaped between the reading of its stat and of its statm or io
// is not counted at all: counted with its CPU and without its IO (or with
// its RSS and without its IO), it would be taken for read while its IO is
// in no figure the sample read, its parent's having been read before the
// reap.
func TestSampleProcessReapedWhileRead(t *testing.T) {
	for _, file := range []string{"statm", "io"} {
		dir := t.TempDir()
		if err := os.CopyFS(dir, os.DirFS("testdata/proc-a")); err != nil {
			t.Fatal(err)
		}
		r := NewReader(dir)
		// No file is kept open: a kept file of /proc fails once its
		// process is reaped, a fixture's does not.
		r.keepMax = -1
		// 300, the grandchild, is reaped by 200 as its file is opened.
		r.openHook = func(path string) syscall.Errno {
			if path == filepath.Join(dir, "300", file) {
				if err := os.RemoveAll(filepath.Join(dir, "300")); err != nil {
					t.Fatal(err)
				}
				return syscall.ENOENT
			}
			return 0
		}
		u, err := r.Sample([]int{100}, time.Time{})
		if err != nil {
			t.Fatalf("reaped as its %s was read: Sample: %v", file, err)
		}
		// 100, 200, 201, 202, without 300 (500 and 50 ticks, 2000 pages,
		// 40960 and 81920 bytes).
		if u.Processes != 4 || u.CPUUser != 3140*time.Millisecond || u.CPUSystem != 510*time.Millisecond ||
			u.RSS != 1160*uint64(os.Getpagesize()) || u.ReadBytes != 8192 || u.WriteBytes != 20480 || u.IOAbsent {
			t.Errorf("reaped as its %s was read: Sample = %+v, want 4 processes without 300", file, u)
		}
		if r.Saw(300) || !r.Saw(200) {
			t.Errorf("reaped as its %s was read: Saw(300) %v, Saw(200) %v", file, r.Saw(300), r.Saw(200))
		}
	}
}

func TestSampleFixtureAllocs(t *testing.T) {
	r := NewReader("testdata/proc-a")
	r.Sample([]int{100}, time.Time{})
	if n := testing.AllocsPerRun(100, func() { r.Sample([]int{100}, time.Time{}) }); n != 0 {
		t.Errorf("Sample of a stable tree allocates %v times, want 0", n)
	}
}

func pidsString(pids []int) string {
	var b []byte
	for i, p := range pids {
		if i > 0 {
			b = append(b, ' ')
		}
		b = kernfmt.AppendUint(b, uint64(p))
	}
	return string(b)
}
