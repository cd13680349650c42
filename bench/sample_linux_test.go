package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/shirou/gopsutil/v4/disk"
	"golang.org/x/sys/unix"
)

// BenchmarkSample measures one full sample, the host's figures and the
// job's process tree (a shell and N sleeping children), in several ways on
// the same tree:
//
//   - jobtrace: hostmetrics.NewSource(...).Read, the agent's own path, with
//     the reason of the sample set to ReasonEnd so that every iteration
//     walks the tree;
//   - floor: the same files read with os.ReadFile, and nothing parsed but
//     the children's pids that lead to the next files;
//   - floor-syscall: the same files read with openat, read until end of
//     file and close into one reused buffer: what reading them costs with no
//     allocation and no parsing;
//   - floor-kept: the same files opened once and kept open, each read with
//     pread(2) from its start until end of file at every op, as jobtrace
//     reads the host's files and those of the processes it has seen;
//   - floor-cgroup, floor-cgroup-memory: the same for the host's files and
//     the cgroup's of the two cgroup cases below, with no tree;
//   - gopsutil: the host calls and one process.Processes() scan with a map
//     of parents (gopsutil-children: recursive Process.Children() instead);
//   - psutil: psutil_sample.py, run by the interpreter named in
//     $JOBTRACE_BENCH_PSUTIL (skipped when unset), which times its own loop.
//
// jobtrace-cgroup is the agent's path when the job has a cgroup of its own
// that has no memory controller (a hybrid host: cpu.stat and pressure only):
// the tree is walked only every cost/TreeBudget, and the samples in between
// read the host and the cgroup. jobtrace-cgroup-memory is the path when the
// job's cgroup does have the memory controller, so the tree is never walked;
// it reads the cgroup files of the fixture in hostmetrics/cgroup/testdata,
// regular files rather than cgroupfs, since a hybrid host cannot give a v2
// cgroup that controller.
//
// Besides ns/op each case reports cpu-ns/op, the CPU time (user and system,
// every thread, garbage collection included) the process used per sample:
// on a shared machine it is less noisy than the elapsed time, and it is what
// a sample costs the agent.
func BenchmarkSample(b *testing.B) {
	childrenMax := 100
	if v := os.Getenv("JOBTRACE_BENCH_CHILDREN"); v != "" {
		var err error
		if childrenMax, err = strconv.Atoi(v); err != nil {
			b.Fatalf("JOBTRACE_BENCH_CHILDREN=%q: %v", v, err)
		}
	}
	for _, n := range treeSizes {
		b.Run(fmt.Sprintf("N=%d", n), func(b *testing.B) {
			wd := b.TempDir()
			b.Run("jobtrace", func(b *testing.B) { benchJobtrace(b, n, wd) })
			b.Run("jobtrace-cgroup", func(b *testing.B) { benchJobtraceCgroup(b, n, wd) })
			b.Run("jobtrace-cgroup-memory", func(b *testing.B) { benchJobtraceCgroupMemory(b, n, wd) })
			b.Run("floor", func(b *testing.B) {
				root := treeRoot(b, n)
				f := newFloor(b, wd, "")
				measure(b, n, func() (int, error) { return f.readFile(root) })
			})
			b.Run("floor-syscall", func(b *testing.B) {
				root := treeRoot(b, n)
				f := newFloor(b, wd, "")
				measure(b, n, func() (int, error) { return f.syscalls(root) })
			})
			b.Run("floor-kept", func(b *testing.B) {
				root := treeRoot(b, n)
				f := newFloor(b, wd, "")
				f.keep = make(map[string]int)
				measure(b, n, func() (int, error) { return f.syscalls(root) })
			})
			// The floors of the two cgroup cases between walks: the host's
			// files and the cgroup's, no tree.
			b.Run("floor-cgroup", func(b *testing.B) {
				f := newFloor(b, wd, benchCgroup(b).Dir)
				measure(b, n, func() (int, error) { _, err := f.syscalls(0); return n + 1, err })
			})
			b.Run("floor-cgroup-memory", func(b *testing.B) {
				f := newFloor(b, wd, cgroupFixture)
				measure(b, n, func() (int, error) { _, err := f.syscalls(0); return n + 1, err })
			})
			b.Run("gopsutil", func(b *testing.B) {
				root := treeRoot(b, n)
				measure(b, n, func() (int, error) { return gopsutilSample(wd, root, gopsutilTree) })
			})
			if n <= childrenMax {
				b.Run("gopsutil-children", func(b *testing.B) {
					root := treeRoot(b, n)
					measure(b, n, func() (int, error) { return gopsutilSample(wd, root, gopsutilTreeChildren) })
				})
			}
			b.Run("psutil", func(b *testing.B) { benchPsutil(b, n, wd) })
		})
	}
}

// measure runs sample, which returns the number of processes it found in
// the tree, once to warm buffers and caches, then in the benchmark loop.
func measure(b *testing.B, n int, sample func() (int, error)) {
	b.Helper()
	check := func() {
		procs, err := sample()
		if err != nil {
			b.Fatal(err)
		}
		if procs != n+1 {
			b.Fatalf("%d processes in the tree, want %d", procs, n+1)
		}
	}
	check()
	b.ReportAllocs()
	cpu0 := cpuTime()
	for b.Loop() {
		check()
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the user and system time of the whole process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func benchJobtrace(b *testing.B, n int, wd string) {
	root := treeRoot(b, n)
	src, err := hostmetrics.NewSource(hostmetrics.Config{WorkDir: wd})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	src.SetJob(root)
	var s hostmetrics.Sample
	s.Reason = hostmetrics.ReasonEnd
	measure(b, n, func() (int, error) {
		s.Time = time.Now()
		err := src.Read(&s)
		return s.Job.Tree.Processes, err
	})
}

func benchJobtraceCgroup(b *testing.B, n int, wd string) {
	root := treeRoot(b, n)
	g := benchCgroup(b)
	if err := moveTree(g, root); err != nil {
		b.Fatal(err)
	}
	src, err := hostmetrics.NewSource(hostmetrics.Config{WorkDir: wd, CgroupDir: g.Dir, CgroupOwn: true})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	src.SetJob(root)
	// Interval samples a nanosecond apart: after the first one, a tree whose
	// walk costs more than CheapWalk is not walked again, as between two
	// walks in the agent; a cheaper tree is walked every time.
	s := hostmetrics.Sample{Time: time.Now(), Reason: hostmetrics.ReasonInterval}
	walks := 0
	measure(b, n, func() (int, error) {
		at := s.Job.Tree.At
		s.Time = s.Time.Add(time.Nanosecond)
		err := src.Read(&s)
		if !s.Job.HasCgroup || !s.Job.Cgroup.HasCPU {
			return 0, fmt.Errorf("no cpu.stat read in %s", g.Dir)
		}
		if !s.Job.Tree.At.Equal(at) || at.IsZero() {
			walks++
		}
		return s.Job.Tree.Processes, err
	})
	b.ReportMetric(float64(walks-1)/float64(b.N), "walks/op")
}

// cgroupFixture is a cgroup v2 directory with every file jobtrace reads,
// memory.current among them.
const cgroupFixture = "../hostmetrics/cgroup/testdata/v2/sys/fs/cgroup/ci.slice/job-42"

func benchJobtraceCgroupMemory(b *testing.B, n int, wd string) {
	root := treeRoot(b, n)
	src, err := hostmetrics.NewSource(hostmetrics.Config{WorkDir: wd, CgroupDir: cgroupFixture, CgroupOwn: true})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	src.SetJob(root)
	var s hostmetrics.Sample
	s.Reason = hostmetrics.ReasonEnd
	// The tree is not walked, so the check counts the cgroup's pids.
	measure(b, n, func() (int, error) {
		s.Time = time.Now()
		err := src.Read(&s)
		if s.Job.HasTree || !s.Job.Cgroup.HasMemory {
			return 0, errors.New("the tree was walked, or memory.current not read")
		}
		return n + 1, err
	})
}

// floor reads what one jobtrace sample reads, and nothing more: the host
// files, statfs(2) of the working directory, the cgroup's files if it was
// given one, and stat, statm, io and task/<pid>/children of every process
// of the tree. The processes of the benchmark's trees have one thread each,
// so one children file per process lists all its children.
//
// Files that do not exist on this host (PSI, a cgroup's memory files when
// it has no memory controller) are left out: jobtrace tries to open them,
// which costs it a failed open(2) each, and the floor does not.
type floor struct {
	wd        string
	wdFD      int // for fstatfs in floor.syscalls, as jobtrace does
	hostFiles []string
	hostC     [][]byte // NUL-terminated copies for floor.syscalls
	queue     []int
	buf       []byte
	path      []byte
	// keep, when not nil, holds the files read so far open, by path: read
	// then preads them.
	keep map[string]int
}

// cgroupFiles are the files of a cgroup v2 directory that jobtrace reads.
var cgroupFiles = []string{
	"cpu.stat", "memory.current", "memory.peak", "memory.events", "io.stat",
	"cpu.pressure", "memory.pressure", "io.pressure",
}

func newFloor(tb testing.TB, wd, cgroupDir string) *floor {
	tb.Helper()
	fd, err := unix.Open(wd, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		tb.Fatal(err)
	}
	f := &floor{wd: wd, wdFD: fd, buf: make([]byte, 64<<10)}
	tb.Cleanup(func() {
		unix.Close(fd)
		for _, kept := range f.keep {
			unix.Close(kept)
		}
	})
	files := []string{
		"/proc/stat", "/proc/meminfo", "/proc/vmstat", "/proc/diskstats",
		"/proc/net/dev", "/proc/loadavg",
		"/proc/pressure/cpu", "/proc/pressure/memory", "/proc/pressure/io",
	}
	if cgroupDir != "" {
		for _, name := range cgroupFiles {
			files = append(files, filepath.Join(cgroupDir, name))
		}
	}
	for _, p := range files {
		if _, err := os.Stat(p); err == nil {
			f.hostFiles = append(f.hostFiles, p)
			f.hostC = append(f.hostC, append([]byte(p), 0))
		}
	}
	return f
}

var procFiles = [...]string{"stat", "statm", "io"}

// readFile reads the files with os.ReadFile and returns the number of
// processes found.
func (f *floor) readFile(root int) (int, error) {
	for _, p := range f.hostFiles {
		if _, err := os.ReadFile(p); err != nil {
			return 0, err
		}
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(f.wd, &st); err != nil {
		return 0, err
	}
	f.queue = append(f.queue[:0], root)
	for i := 0; i < len(f.queue); i++ {
		pid := strconv.Itoa(f.queue[i])
		dir := "/proc/" + pid + "/"
		for _, name := range procFiles {
			if _, err := os.ReadFile(dir + name); err != nil {
				return 0, err
			}
		}
		data, err := os.ReadFile(dir + "task/" + pid + "/children")
		if err != nil {
			return 0, err
		}
		for _, c := range strings.Fields(string(data)) {
			child, err := strconv.Atoi(c)
			if err != nil {
				return 0, err
			}
			f.queue = append(f.queue, child)
		}
	}
	return len(f.queue), nil
}

// syscalls reads the same files with bare system calls into one buffer.
// A root of 0 reads the host's and the cgroup's files only.
func (f *floor) syscalls(root int) (int, error) {
	for _, p := range f.hostC {
		if _, err := f.read(p); err != nil {
			return 0, err
		}
	}
	var st unix.Statfs_t
	if err := unix.Fstatfs(f.wdFD, &st); err != nil {
		return 0, err
	}
	if root == 0 {
		return 0, nil
	}
	f.queue = append(f.queue[:0], root)
	for i := 0; i < len(f.queue); i++ {
		pid := f.queue[i]
		for _, name := range procFiles {
			if _, err := f.read(f.procPath(pid, false, name)); err != nil {
				return 0, err
			}
		}
		n, err := f.read(f.procPath(pid, true, "children"))
		if err != nil {
			return 0, err
		}
		child := 0
		for _, c := range f.buf[:n] {
			if c >= '0' && c <= '9' {
				child = child*10 + int(c-'0')
			} else if child > 0 {
				f.queue = append(f.queue, child)
				child = 0
			}
		}
		if child > 0 {
			f.queue = append(f.queue, child)
		}
	}
	return len(f.queue), nil
}

// procPath returns /proc/<pid>/<name>, or /proc/<pid>/task/<pid>/<name>,
// NUL-terminated, in f.path.
func (f *floor) procPath(pid int, task bool, name string) []byte {
	p := append(f.path[:0], "/proc/"...)
	p = strconv.AppendInt(p, int64(pid), 10)
	if task {
		p = append(p, "/task/"...)
		p = strconv.AppendInt(p, int64(pid), 10)
	}
	p = append(p, '/')
	p = append(p, name...)
	f.path = append(p, 0)
	return f.path
}

// read reads the file at cpath, which ends in NUL, into f.buf until read(2)
// returns 0.
func (f *floor) read(cpath []byte) (int, error) {
	fd, kept := f.keep[string(cpath)]
	if !kept {
		r, _, errno := syscall.Syscall6(syscall.SYS_OPENAT, uintptr(atFDCWD),
			uintptr(unsafe.Pointer(&cpath[0])), syscall.O_RDONLY|syscall.O_CLOEXEC, 0, 0, 0)
		if errno != 0 {
			return 0, &os.PathError{Op: "open", Path: string(cpath[:len(cpath)-1]), Err: errno}
		}
		fd = int(r)
		if f.keep != nil {
			f.keep[string(cpath)] = fd
		} else {
			defer syscall.Close(fd)
		}
	}
	n := 0
	for {
		m, err := syscall.Pread(fd, f.buf[n:], int64(n))
		if err != nil {
			return 0, &os.PathError{Op: "read", Path: string(cpath[:len(cpath)-1]), Err: err}
		}
		if m == 0 {
			return n, nil
		}
		n += m
		if n == len(f.buf) {
			return 0, fmt.Errorf("%s: larger than %d bytes", cpath[:len(cpath)-1], len(f.buf))
		}
	}
}

// atFDCWD is a variable so that its negative value converts to uintptr.
var atFDCWD = unix.AT_FDCWD

// gopsutilSample does with gopsutil what one jobtrace sample does: the host
// figures (gopsutil has no pressure stall information) and the tree's CPU
// times, RSS, IO and threads.
func gopsutilSample(wd string, root int, tree func(int) (treeTotals, error)) (int, error) {
	if err := gopsutilHost(); err != nil {
		return 0, err
	}
	if _, err := disk.Usage(wd); err != nil {
		return 0, err
	}
	t, err := tree(root)
	return t.Processes, err
}

// benchPsutil runs psutil_sample.py on the tree, which samples for at least
// a second, at least b.N times, and prints the time per sample; that
// replaces this benchmark's ns/op. B/op and allocs/op are the Go side's, not
// psutil's.
func benchPsutil(b *testing.B, n int, wd string) {
	py := os.Getenv("JOBTRACE_BENCH_PSUTIL")
	if py == "" {
		b.Skip("set JOBTRACE_BENCH_PSUTIL to a Python with psutil, such as /usr/bin/python3")
	}
	root := treeRoot(b, n)
	script, err := filepath.Abs("psutil_sample.py")
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(py, script, strconv.Itoa(root), wd, strconv.Itoa(b.N), "1")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("%s %s: %v", py, script, err)
	}
	res, err := parsePsutil(out)
	if err != nil {
		b.Fatal(err)
	}
	if res["processes"] != float64(n+1) {
		b.Fatalf("psutil found %v processes in the tree, want %d", res["processes"], n+1)
	}
	b.ReportMetric(res["ns/op"], "ns/op")
	b.ReportMetric(res["cpu-ns/op"], "cpu-ns/op")
	b.ReportMetric(res["samples"], "samples")
}

// parsePsutil reads the "name value" lines psutil_sample.py prints.
func parsePsutil(out []byte) (map[string]float64, error) {
	res := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("psutil_sample.py: %q: %v", sc.Text(), err)
		}
		res[k] = f
	}
	for _, k := range []string{"processes", "samples", "ns/op", "cpu-ns/op"} {
		if _, ok := res[k]; !ok {
			return nil, fmt.Errorf("psutil_sample.py printed no %s:\n%s", k, out)
		}
	}
	return res, nil
}

// TestFullSamplesAgree checks that every way of taking a sample finds the
// same tree and that the floors read files that exist.
func TestFullSamplesAgree(t *testing.T) {
	const n = 10
	root := treeRoot(t, n)
	defer func() {
		if err := stopTree(); err != nil {
			t.Error(err)
		}
	}()
	wd := t.TempDir()
	src, err := hostmetrics.NewSource(hostmetrics.Config{WorkDir: wd})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	src.SetJob(root)
	s := hostmetrics.Sample{Time: time.Now(), Reason: hostmetrics.ReasonEnd}
	if err := src.Read(&s); err != nil {
		t.Error(err)
	}
	f := newFloor(t, wd, "")
	got := map[string]func() (int, error){
		"jobtrace":          func() (int, error) { return s.Job.Tree.Processes, nil },
		"floor":             func() (int, error) { return f.readFile(root) },
		"floor-syscall":     func() (int, error) { return f.syscalls(root) },
		"gopsutil":          func() (int, error) { return gopsutilSample(wd, root, gopsutilTree) },
		"gopsutil-children": func() (int, error) { return gopsutilSample(wd, root, gopsutilTreeChildren) },
	}
	for name, sample := range got {
		procs, err := sample()
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if procs != n+1 {
			t.Errorf("%s: %d processes, want %d", name, procs, n+1)
		}
	}
}

func TestParsePsutil(t *testing.T) {
	res, err := parsePsutil([]byte("processes 11\nsamples 40\nns/op 2.5e+07\ncpu-ns/op 2.4e+07\n"))
	if err != nil {
		t.Fatal(err)
	}
	if res["processes"] != 11 || res["samples"] != 40 || res["ns/op"] != 2.5e7 || res["cpu-ns/op"] != 2.4e7 {
		t.Errorf("got %v", res)
	}
	if _, err := parsePsutil([]byte("samples 3\n")); err == nil {
		t.Error("no error for missing figures")
	}
}
