package hostmetrics

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/jobtrace/jobtrace/internal/rawfile"
	"github.com/jobtrace/jobtrace/internal/sleeptree"
)

// BenchmarkRead measures one full sample as the agent takes it without a
// cgroup: the host files and the job's process tree of sh and N sleeping
// children. Every iteration walks the tree (ReasonEnd), as every sample of
// a tree within CheapWalkProcs does. bench/ compares it with gopsutil and
// psutil and with the cgroup cases.
func BenchmarkRead(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			cmd := sleeptree.Start(b, n)
			src, err := NewSource(Config{WorkDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer src.Close()
			src.SetJob(cmd.Process.Pid)
			var s Sample
			s.Reason = ReasonEnd
			src.Read(&s)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				s.Time = time.Now()
				if err := src.Read(&s); err != nil || s.Job.Tree.Processes != n+1 {
					b.Fatalf("tree of %d processes, %v", s.Job.Tree.Processes, err)
				}
			}
		})
	}
	b.Run("host", func(b *testing.B) {
		src, err := NewSource(Config{WorkDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		defer src.Close()
		var s Sample
		src.Read(&s)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			s.Time = time.Now()
			src.Read(&s)
		}
	})
}

// ownCgroupFixture is a cgroup v2 directory with every file the cgroup
// reader reads, memory.current among them: the job's own cgroup with the
// memory controller, the case where a sample does not walk the tree. Its
// files are regular files, since a hybrid host cannot give a v2 cgroup that
// controller.
const ownCgroupFixture = "cgroup/testdata/v2/sys/fs/cgroup/ci.slice/job-42"

// BenchmarkOwnCgroup measures one sample when the job has its own cgroup
// (the tree is not walked), side by side with its floor: the same files read
// with bare system calls (openat, read until end of file, close, into one
// buffer, nothing parsed) and fstatfs(2) of the working directory. Each op
// takes one sample and reads the floor once, one after the other, so that
// both see the same machine; it reports the CPU time of each (the thread's,
// which a busy machine does not inflate) and their ratio, the figure the
// budget is about: sampler-cpu-ns/op ÷ floor-cpu-ns/op ≤ 1.3. The elapsed
// time of each is reported too (sampler-ns/op, floor-ns/op, x-floor-wall).
func BenchmarkOwnCgroup(b *testing.B) {
	wd := b.TempDir()
	src, err := NewSource(Config{WorkDir: wd, CgroupDir: ownCgroupFixture, CgroupOwn: true})
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	fl := newSyscallFloor(b, wd, ownCgroupFixture)
	var s Sample
	s.Reason = ReasonInterval
	read := func() {
		s.Time = time.Now()
		if err := src.Read(&s); err != nil || s.Job.HasTree || !s.Job.Cgroup.HasMemory {
			b.Fatalf("the tree was walked, or memory.current not read: %v", err)
		}
	}
	read()
	fl.read()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var sampler, floor, samplerWall, floorWall time.Duration
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		w0, t0 := time.Now(), threadCPU()
		read()
		w1, t1 := time.Now(), threadCPU()
		fl.read()
		w2, t2 := time.Now(), threadCPU()
		sampler += t1 - t0
		floor += t2 - t1
		samplerWall += w1.Sub(w0)
		floorWall += w2.Sub(w1)
	}
	n := float64(b.N)
	b.ReportMetric(float64(sampler)/n, "sampler-cpu-ns/op")
	b.ReportMetric(float64(floor)/n, "floor-cpu-ns/op")
	b.ReportMetric(float64(samplerWall)/n, "sampler-ns/op")
	b.ReportMetric(float64(floorWall)/n, "floor-ns/op")
	if floor > 0 && floorWall > 0 {
		b.ReportMetric(float64(sampler)/float64(floor), "x-floor")
		b.ReportMetric(float64(samplerWall)/float64(floorWall), "x-floor-wall")
	}
}

// BenchmarkShortRun measures the samples of a short job as `jobtrace run`
// takes them: the source made (a child subreaper; with the job's own
// cgroup, made as root, or without one), the first sample before the job
// starts, which opens every file, the last one after the job was reaped,
// and the source closed. BenchmarkRead and BenchmarkOwnCgroup read files
// already open; this is what a run of a few milliseconds pays. It reports
// the CPU time of the thread (cpu-ns/op) beside the elapsed time.
func BenchmarkShortRun(b *testing.B) {
	if err := SetSubreaper(); err != nil {
		b.Skip(err)
	}
	for _, own := range []bool{true, false} {
		name := "own-cgroup"
		if !own {
			name = "no-cgroup"
		}
		b.Run(name, func(b *testing.B) {
			cfg := Config{WorkDir: b.TempDir(), Subreaper: true}
			if own {
				g, _ := sleeptree.Cgroup(b)
				cfg.CgroupDir, cfg.CgroupOwn = g.Dir, true
			}
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var cpu time.Duration
			var s Sample
			b.ReportAllocs()
			for b.Loop() {
				t0 := threadCPU()
				src, err := NewSource(cfg)
				if err != nil {
					b.Fatal(err)
				}
				s.Time, s.Reason = time.Now(), ReasonStart
				src.Read(&s)
				src.SetJob(1 << 30)
				src.JobExited(ExitUsage{})
				s.Time, s.Reason = time.Now(), ReasonEnd
				if err := src.Read(&s); err != nil || !s.Host.HasCPU || s.Job.HasCgroup != own {
					b.Fatalf("last sample: %v, host CPU %v, cgroup %v", err, s.Host.HasCPU, s.Job.HasCgroup)
				}
				src.Close()
				cpu += threadCPU() - t0
			}
			b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// threadCPU is the CPU time of the calling thread.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		panic(err)
	}
	return time.Duration(ts.Nano())
}

// syscallFloor reads the files one sample reads with bare system calls.
// Files that do not exist on this host (PSI) are left out: the sampler
// tries them, a failed open each, and the floor does not.
type syscallFloor struct {
	tb    testing.TB
	wdFD  int
	files [][]byte // NUL-terminated paths
	buf   []byte
}

func newSyscallFloor(tb testing.TB, wd, cgroupDir string) *syscallFloor {
	fd, err := unix.Open(wd, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { unix.Close(fd) })
	f := &syscallFloor{tb: tb, wdFD: fd, buf: make([]byte, 64<<10)}
	var paths []string
	for _, name := range []string{"stat", "meminfo", "vmstat", "diskstats", "net/dev", "loadavg"} {
		paths = append(paths, "/proc/"+name)
	}
	for _, res := range []string{"cpu", "memory", "io"} {
		paths = append(paths, "/proc/pressure/"+res)
	}
	// The fixture holds the files the cgroup reader reads, and only
	// those: cgroup.controllers, which says which of them exist, among
	// them.
	ents, err := os.ReadDir(cgroupDir)
	if err != nil {
		tb.Fatal(err)
	}
	for _, e := range ents {
		paths = append(paths, filepath.Join(cgroupDir, e.Name()))
	}
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			f.files = append(f.files, append([]byte(p), 0))
		}
	}
	return f
}

func (f *syscallFloor) read() {
	for _, p := range f.files {
		fd, errno := rawfile.Open(p, 0)
		if errno != 0 {
			f.tb.Fatalf("open %s: %v", p, errno)
		}
		for {
			n, err := unix.Read(fd, f.buf)
			if err != nil {
				f.tb.Fatalf("read %s: %v", p, err)
			}
			if n == 0 {
				break
			}
		}
		unix.Close(fd)
	}
	var st unix.Statfs_t
	if err := unix.Fstatfs(f.wdFD, &st); err != nil {
		f.tb.Fatal(err)
	}
}
