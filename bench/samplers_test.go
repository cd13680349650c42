package bench

import (
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics/procfs"
	"github.com/jobtrace/jobtrace/hostmetrics/proctree"
	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/disk"
	"github.com/shirou/gopsutil/v4/load"
	"github.com/shirou/gopsutil/v4/mem"
	"github.com/shirou/gopsutil/v4/net"
	"github.com/shirou/gopsutil/v4/process"
)

var treeSizes = []int{10, 100, 1000}

func TestMain(m *testing.M) {
	code := m.Run()
	// The trees go first: a cgroup is removed once no process is left in it.
	for _, err := range []error{stopTree(), removeCgroup()} {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			if code == 0 {
				code = 1
			}
		}
	}
	os.Exit(code)
}

func requireLinux(tb testing.TB) {
	tb.Helper()
	if runtime.GOOS != "linux" {
		tb.Skipf("jobtrace's readers need Linux /proc; this is %s", runtime.GOOS)
	}
}

// treeTotals is what both sides compute for a tree, so that the benchmarks
// do the same work and the tests can check they agree.
type treeTotals struct {
	Processes, Threads int
	CPU                time.Duration
	RSS                uint64
	ReadBytes          uint64
}

func jobtraceTree(r *proctree.Reader, root int) (treeTotals, error) {
	u, err := r.Sample([]int{root}, time.Now())
	return treeTotals{
		Processes: u.Processes,
		Threads:   u.Threads,
		CPU:       u.CPUUser + u.CPUSystem,
		RSS:       u.RSS,
		ReadBytes: u.ReadBytes,
	}, err
}

// gopsutilTree lists every process once with process.Processes and builds
// the tree from Ppid. gopsutil has no call that lists a process's
// descendants without rescanning all of /proc for each of them (see
// gopsutilTreeChildren), so this is the fastest fair way it offers.
func gopsutilTree(root int) (treeTotals, error) {
	procs, err := process.Processes()
	if err != nil {
		return treeTotals{}, err
	}
	children := make(map[int32][]*process.Process, len(procs))
	var top *process.Process
	for _, p := range procs {
		if p.Pid == int32(root) {
			top = p
		}
		ppid, err := p.Ppid()
		if err != nil {
			continue
		}
		children[ppid] = append(children[ppid], p)
	}
	if top == nil {
		return treeTotals{}, fmt.Errorf("pid %d not found", root)
	}
	var t treeTotals
	queue := []*process.Process{top}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		addGopsutilProc(&t, p)
		queue = append(queue, children[p.Pid]...)
	}
	return t, nil
}

// gopsutilTreeChildren walks the tree with Process.Children, which scans
// all of /proc at each call: the cost grows with the tree times the host.
func gopsutilTreeChildren(root int) (treeTotals, error) {
	top, err := process.NewProcess(int32(root))
	if err != nil {
		return treeTotals{}, err
	}
	var t treeTotals
	queue := []*process.Process{top}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		addGopsutilProc(&t, p)
		kids, err := p.Children()
		if err != nil {
			continue // ErrorNoChildren for a leaf
		}
		queue = append(queue, kids...)
	}
	return t, nil
}

func addGopsutilProc(t *treeTotals, p *process.Process) {
	t.Processes++
	if ct, err := p.Times(); err == nil {
		t.CPU += time.Duration((ct.User + ct.System) * float64(time.Second))
	}
	if mi, err := p.MemoryInfo(); err == nil {
		t.RSS += mi.RSS
	}
	if io, err := p.IOCounters(); err == nil {
		t.ReadBytes += io.ReadBytes
	}
	if n, err := p.NumThreads(); err == nil {
		t.Threads += int(n)
	}
}

var sink treeTotals

func BenchmarkJobtraceTree(b *testing.B) {
	requireLinux(b)
	for _, n := range treeSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			root := treeRoot(b, n)
			r := proctree.NewReader("/proc")
			if _, err := jobtraceTree(r, root); err != nil { // warm the reused buffers
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				t, err := jobtraceTree(r, root)
				if err != nil {
					b.Fatal(err)
				}
				sink = t
			}
		})
	}
}

func BenchmarkGopsutilTree(b *testing.B) {
	requireLinux(b)
	for _, n := range treeSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			root := treeRoot(b, n)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				t, err := gopsutilTree(root)
				if err != nil {
					b.Fatal(err)
				}
				sink = t
			}
		})
	}
}

// BenchmarkGopsutilTreeChildren runs only at N=10: at N=1000 one sample
// takes over a minute.
func BenchmarkGopsutilTreeChildren(b *testing.B) {
	requireLinux(b)
	b.Run("10", func(b *testing.B) {
		root := treeRoot(b, 10)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			t, err := gopsutilTreeChildren(root)
			if err != nil {
				b.Fatal(err)
			}
			sink = t
		}
	})
}

type jobtraceHost struct {
	fs    procfs.FS
	stat  procfs.Stat
	mem   procfs.Meminfo
	vm    procfs.Vmstat
	disks procfs.Diskstats
	net   procfs.NetDev
	load  procfs.Loadavg
}

func (h *jobtraceHost) read() error {
	if err := h.fs.Stat(&h.stat); err != nil {
		return err
	}
	if err := h.fs.Meminfo(&h.mem); err != nil {
		return err
	}
	if err := h.fs.Vmstat(&h.vm); err != nil {
		return err
	}
	if err := h.fs.Diskstats(&h.disks); err != nil {
		return err
	}
	if err := h.fs.NetDev(&h.net); err != nil {
		return err
	}
	return h.fs.Loadavg(&h.load)
}

func gopsutilHost() error {
	if _, err := cpu.Times(false); err != nil {
		return err
	}
	if _, err := mem.VirtualMemory(); err != nil {
		return err
	}
	if _, err := mem.SwapMemory(); err != nil {
		return err
	}
	if _, err := disk.IOCounters(); err != nil {
		return err
	}
	if _, err := net.IOCounters(true); err != nil {
		return err
	}
	_, err := load.Avg()
	return err
}

func BenchmarkJobtraceHost(b *testing.B) {
	requireLinux(b)
	h := &jobtraceHost{fs: procfs.NewFS("/proc", "/sys")}
	if err := h.read(); err != nil { // warm the buffer and the disk cache
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if err := h.read(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGopsutilHost(b *testing.B) {
	requireLinux(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := gopsutilHost(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSamplersAgree checks that both sides find the same tree, so that the
// benchmarks compare the same work.
func TestSamplersAgree(t *testing.T) {
	requireLinux(t)
	const n = 10
	root := treeRoot(t, n)
	defer func() {
		if err := stopTree(); err != nil {
			t.Error(err)
		}
	}()

	jt, err := jobtraceTree(proctree.NewReader("/proc"), root)
	if err != nil {
		t.Fatal(err)
	}
	gp, err := gopsutilTree(root)
	if err != nil {
		t.Fatal(err)
	}
	gc, err := gopsutilTreeChildren(root)
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string]treeTotals{"jobtrace": jt, "gopsutil": gp, "gopsutil Children": gc} {
		if got.Processes != n+1 {
			t.Errorf("%s: %d processes, want %d (sh and %d sleeps)", name, got.Processes, n+1, n)
		}
		if got.Threads != n+1 {
			t.Errorf("%s: %d threads, want %d", name, got.Threads, n+1)
		}
		if got.RSS == 0 {
			t.Errorf("%s: RSS 0", name)
		}
	}
}

func TestHostReadersWork(t *testing.T) {
	requireLinux(t)
	h := &jobtraceHost{fs: procfs.NewFS("/proc", "/sys")}
	if err := h.read(); err != nil {
		t.Fatal(err)
	}
	if err := gopsutilHost(); err != nil {
		t.Fatal(err)
	}
}
