//go:build gopsutil

package hostmetrics

import (
	"context"
	"math"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/shirou/gopsutil/v4/cpu"
	"github.com/shirou/gopsutil/v4/disk"
	"github.com/shirou/gopsutil/v4/load"
	"github.com/shirou/gopsutil/v4/mem"
	"github.com/shirou/gopsutil/v4/net"
	"github.com/shirou/gopsutil/v4/process"

	"github.com/jobtrace/jobtrace/hostmetrics/proctree"
	"github.com/jobtrace/jobtrace/internal/timingtest"
)

// The gopsutil mapping, fed with what gopsutil reads on this machine, agrees
// with the native Linux source read just before and just after.
func TestGopsutilMatchesNative(t *testing.T) {
	dir := t.TempDir()
	src, err := NewSource(Config{WorkDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	var before, after Sample
	if err := src.Read(&before); err != nil {
		t.Fatal(err)
	}

	ctx := context.Background()
	ts, err := cpu.TimesWithContext(ctx, false)
	if err != nil || len(ts) == 0 {
		t.Fatal(len(ts), err)
	}
	ncpu, err := cpu.CountsWithContext(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := mem.VirtualMemoryWithContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sw, err := mem.SwapMemoryWithContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dm, err := disk.IOCountersWithContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	nc, err := net.IOCountersWithContext(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	la, err := load.AvgWithContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	us, err := disk.UsageWithContext(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}

	if err := src.Read(&after); err != nil {
		t.Fatal(err)
	}
	b, a := &before.Host, &after.Host

	// Counters lie between the two native reads, give or take a tick.
	const tick = 0.011
	c := gopsutilCPUTimes(&ts[0])
	for _, m := range []struct {
		name      string
		got, b, a float64
	}{
		{"user", c.User, b.CPU.User, a.CPU.User},
		{"nice", c.Nice, b.CPU.Nice, a.CPU.Nice},
		{"system", c.System, b.CPU.System, a.CPU.System},
		{"idle", c.Idle, b.CPU.Idle, a.CPU.Idle},
		{"iowait", c.IOWait, b.CPU.IOWait, a.CPU.IOWait},
		{"irq", c.IRQ, b.CPU.IRQ, a.CPU.IRQ},
		{"softirq", c.SoftIRQ, b.CPU.SoftIRQ, a.CPU.SoftIRQ},
		{"steal", c.Steal, b.CPU.Steal, a.CPU.Steal},
	} {
		if m.got < m.b-tick || m.got > m.a+tick {
			t.Errorf("CPU %s: gopsutil %.2f s, native %.2f then %.2f", m.name, m.got, m.b, m.a)
		}
	}
	if ncpu != a.NumCPU {
		t.Errorf("%d CPUs, native %d", ncpu, a.NumCPU)
	}

	m := gopsutilMemory(vm, sw)
	if m.Total != a.Memory.Total || m.SwapTotal != a.Memory.SwapTotal {
		t.Errorf("memory total %d swap %d, native %d swap %d", m.Total, m.SwapTotal, a.Memory.Total, a.Memory.SwapTotal)
	}
	// Gauges move between reads: they agree within 1 % of memory.
	slack := a.Memory.Total / 100
	for _, g := range []struct {
		name      string
		got, b, a uint64
	}{
		{"used", m.Used, b.Memory.Used, a.Memory.Used},
		{"available", m.Available, b.Memory.Available, a.Memory.Available},
		{"free", m.Free, b.Memory.Free, a.Memory.Free},
		{"buffers", m.Buffers, b.Memory.Buffers, a.Memory.Buffers},
		{"swap used", m.SwapUsed, b.Memory.SwapUsed, a.Memory.SwapUsed},
	} {
		if g.got+slack < min(g.b, g.a) || g.got > max(g.b, g.a)+slack {
			t.Errorf("memory %s: gopsutil %d, native %d then %d", g.name, g.got, g.b, g.a)
		}
	}
	// gopsutil's Cached adds SReclaimable to /proc/meminfo's Cached.
	if m.Cached+slack < min(b.Memory.Cached, a.Memory.Cached) {
		t.Errorf("memory cached: gopsutil %d, native %d then %d", m.Cached, b.Memory.Cached, a.Memory.Cached)
	}

	disks, _ := gopsutilDisks(dm, true, nil)
	byName := func(ds []Disk, name string) (Disk, bool) {
		i := slices.IndexFunc(ds, func(d Disk) bool { return d.Name == name })
		if i < 0 {
			return Disk{}, false
		}
		return ds[i], true
	}
	// gopsutil leaves out the devices that have never had IO.
	for _, d := range b.Disks {
		if _, ok := byName(disks, d.Name); !ok && d.Reads+d.Writes > 0 {
			t.Errorf("disk %s missing from gopsutil's", d.Name)
		}
	}
	for _, d := range disks {
		db, okB := byName(b.Disks, d.Name)
		da, okA := byName(a.Disks, d.Name)
		if !okB || !okA {
			t.Errorf("disk %s not among the native ones", d.Name)
			continue
		}
		if d.Reads < db.Reads || d.Reads > da.Reads || d.ReadBytes < db.ReadBytes || d.ReadBytes > da.ReadBytes ||
			d.Writes < db.Writes || d.Writes > da.Writes || d.WrittenBytes < db.WrittenBytes || d.WrittenBytes > da.WrittenBytes ||
			d.IOTime < db.IOTime || d.IOTime > da.IOTime {
			t.Errorf("disk %s: gopsutil %+v, native %+v then %+v", d.Name, d, db, da)
		}
	}

	ifaces, tot := gopsutilIfaces(nc, nil)
	if len(ifaces) != len(a.Ifaces) {
		t.Errorf("%d interfaces, native %d", len(ifaces), len(a.Ifaces))
	}
	if tot.RxBytes < b.Net.RxBytes || tot.RxBytes > a.Net.RxBytes || tot.TxPackets < b.Net.TxPackets || tot.TxPackets > a.Net.TxPackets {
		t.Errorf("network totals: gopsutil %+v, native %+v then %+v", tot, b.Net, a.Net)
	}

	l := gopsutilLoad(la)
	if math.Abs(l.Load1-a.Load.Load1) > 1 || math.Abs(l.Load15-a.Load.Load15) > 0.5 {
		t.Errorf("load %+v, native %+v", l, a.Load)
	}

	f := gopsutilFilesystem(dir, us)
	if f.Total != a.FS.Total || f.Reserved != a.FS.Reserved || f.Path != a.FS.Path {
		t.Errorf("file system %+v, native %+v", f, a.FS)
	}
	if d := int64(f.Free) - int64(a.FS.Free); d > 64<<20 || d < -64<<20 {
		t.Errorf("file system free %d, native %d", f.Free, a.FS.Free)
	}
}

// The job's tree found from gopsutil's process table is the one the native
// reader walks, and its figures, tallied, agree with the native ones.
func TestGopsutilTreeMatchesNative(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & sleep 30 & (sleep 30; true) & wait")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The whole tree: sleeps left behind would re-parent to this process
	// once a test has made it a subreaper, and be taken for orphans of
	// the jobs of the tests that follow (go test -count=N).
	defer func() {
		syscallKillGroup(cmd)
		cmd.Wait()
	}()
	job := cmd.Process.Pid
	native := proctree.NewReader("/proc")
	ctx := context.Background()

	// The tree is read natively before and after gopsutil; it is compared
	// once the two native reads agree (the shells have forked and the
	// sleeps have started).
	var tr Tree
	var nu proctree.Usage
	deadline := time.Now().Add(timingtest.Patience)
	for {
		if time.Now().After(deadline) {
			t.Fatalf("the job's tree did not settle: %+v", nu)
		}
		time.Sleep(10 * time.Millisecond)
		before, err := native.Sample([]int{job}, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		var want []int32
		for _, p := range native.Procs() {
			want = append(want, int32(p.PID))
		}
		table, err := processTable(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		tree := descendants(int32(job), table, nil)
		tr = tallyOf(t, tree)
		if nu, err = native.Sample([]int{job}, time.Now()); err != nil {
			t.Fatal(err)
		}
		if before.Processes != 5 || nu.Processes != 5 || before.RSS != nu.RSS || before.Threads != nu.Threads {
			continue
		}
		got := pids(tree)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("gopsutil tree %v, native %v", got, want)
		}
		break
	}
	if tr.Processes != nu.Processes || tr.Threads != nu.Threads || tr.RSS != nu.RSS {
		t.Errorf("%d processes, %d threads, RSS %d; native %d, %d, %d", tr.Processes, tr.Threads, tr.RSS, nu.Processes, nu.Threads, nu.RSS)
	}
	// The sleeping tree uses next to no CPU after it has started.
	if d := tr.CPUUser + tr.CPUSystem - nu.CPUUser - nu.CPUSystem; d > 50*time.Millisecond || d < -50*time.Millisecond {
		t.Errorf("CPU %v + %v, native %v + %v", tr.CPUUser, tr.CPUSystem, nu.CPUUser, nu.CPUSystem)
	}
	if tr.IOPartial != nu.IOAbsent || tr.ReadBytes != nu.ReadBytes || tr.WriteBytes != nu.WriteBytes {
		t.Errorf("IO %d/%d, native %d/%d", tr.ReadBytes, tr.WriteBytes, nu.ReadBytes, nu.WriteBytes)
	}
}

// tallyOf reads the processes of tree with gopsutil, as the source does
// off Linux, and tallies them.
func tallyOf(t *testing.T, tree []procLink) Tree {
	t.Helper()
	ctx := context.Background()
	tt := newGopsutilTally()
	tt.begin()
	for _, l := range tree {
		p := &process.Process{Pid: l.PID}
		tm, err := p.TimesWithContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		mi, err := p.MemoryInfoWithContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n, err := p.NumThreadsWithContext(ctx)
		if err != nil {
			t.Fatal(err)
		}
		f := gopsutilProc{PID: l.PID, HasCPU: true, User: seconds(tm.User), System: seconds(tm.System), RSS: mi.RSS, Threads: int(n)}
		if io, err := p.IOCountersWithContext(ctx); err == nil {
			f.ReadBytes, f.WriteBytes = gopsutilProcIO(io, false)
		} else {
			f.IOAbsent = true
		}
		tt.add(f)
	}
	return tt.end(1, ExitUsage{}, true)
}
