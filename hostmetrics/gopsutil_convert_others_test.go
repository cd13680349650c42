//go:build (!linux && !illumos) || gopsutil

package hostmetrics

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
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
)

func TestGopsutilCPUTimes(t *testing.T) {
	got := gopsutilCPUTimes(&cpu.TimesStat{
		CPU: "cpu-total", User: 1, System: 2, Idle: 3, Nice: 4, Iowait: 5,
		Irq: 6, Softirq: 7, Steal: 8, Guest: 9, GuestNice: 10,
	})
	want := CPUTimes{User: 1, Nice: 4, System: 2, Idle: 3, IOWait: 5, IRQ: 6, SoftIRQ: 7, Steal: 8}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestGopsutilMemory(t *testing.T) {
	vm := &mem.VirtualMemoryStat{Total: 1000, Available: 600, Used: 300, Free: 100, Buffers: 10, Cached: 200}
	got := gopsutilMemory(vm, &mem.SwapMemoryStat{Total: 50, Used: 20, Free: 30})
	want := Memory{Total: 1000, Used: 400, Free: 100, Available: 600, Buffers: 10, Cached: 200, SwapTotal: 50, SwapUsed: 20}
	if got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
	// Without Available, gopsutil's Used stands; without swap, no swap.
	got = gopsutilMemory(&mem.VirtualMemoryStat{Total: 1000, Used: 300, Free: 700}, nil)
	want = Memory{Total: 1000, Used: 300, Free: 700}
	if got != want {
		t.Errorf("no Available: got %+v, want %+v", got, want)
	}
}

func TestGopsutilDisks(t *testing.T) {
	m := map[string]disk.IOCountersStat{
		"disk1": {Name: "disk1", ReadCount: 3, WriteCount: 4, ReadBytes: 1000, WriteBytes: 2048, IoTime: 1500},
		"disk0": {Name: "disk0", ReadCount: 1, WriteCount: 2, ReadBytes: 512, WriteBytes: 0, IoTime: 20},
	}
	dst := make([]Disk, 5)
	got, tot := gopsutilDisks(m, false, dst)
	want := []Disk{
		{Name: "disk0", DiskIO: DiskIO{Reads: 1, Writes: 2, ReadBytes: 512}, Whole: true},
		{Name: "disk1", DiskIO: DiskIO{Reads: 3, Writes: 4, ReadBytes: 1000, WrittenBytes: 2048}, Whole: true},
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if &got[0] != &dst[0] {
		t.Error("dst not reused")
	}
	wantTot := DiskIO{Reads: 4, Writes: 6, ReadBytes: 1512, WrittenBytes: 2048}
	if tot != wantTot {
		t.Errorf("totals %+v, want %+v", tot, wantTot)
	}

	got, tot = gopsutilDisks(m, true, got)
	if got[0].IOTime != 20*time.Millisecond || got[1].IOTime != 1500*time.Millisecond || tot.IOTime != 1520*time.Millisecond {
		t.Errorf("busy time: %v %v, total %v", got[0].IOTime, got[1].IOTime, tot.IOTime)
	}
	if got, _ := gopsutilDisks(nil, true, got); len(got) != 0 {
		t.Errorf("no devices gave %+v", got)
	}
}

func TestGopsutilIfaces(t *testing.T) {
	cs := []net.IOCountersStat{
		{Name: "lo0", BytesRecv: 1000, BytesSent: 1000, PacketsRecv: 10, PacketsSent: 10},
		{Name: "en0", BytesRecv: 1, BytesSent: 2, PacketsRecv: 3, PacketsSent: 4, Errin: 5, Errout: 6, Dropin: 7, Dropout: 8},
		{Name: "Loopback Pseudo-Interface 1", BytesRecv: 1000},
		{Name: "Ethernet", BytesRecv: 10, BytesSent: 20, PacketsRecv: 30, PacketsSent: 40, Errin: 50, Errout: 60, Dropin: 70, Dropout: 80},
		{Name: "lo", BytesRecv: 1000},
	}
	got, tot := gopsutilIfaces(cs, nil)
	if len(got) != len(cs) {
		t.Fatalf("%d interfaces, want %d", len(got), len(cs))
	}
	for i := range cs {
		if got[i].Name != cs[i].Name || got[i].RxBytes != cs[i].BytesRecv || got[i].TxBytes != cs[i].BytesSent {
			t.Errorf("interface %d: %+v from %+v", i, got[i], cs[i])
		}
	}
	if got[1] != (Iface{Name: "en0", NetIO: NetIO{RxBytes: 1, TxBytes: 2, RxPackets: 3, TxPackets: 4, RxErrors: 5, TxErrors: 6, RxDrops: 7, TxDrops: 8}}) {
		t.Errorf("en0: %+v", got[1])
	}
	want := NetIO{RxBytes: 11, TxBytes: 22, RxPackets: 33, TxPackets: 44, RxErrors: 55, TxErrors: 66, RxDrops: 77, TxDrops: 88}
	if tot != want {
		t.Errorf("totals %+v, want %+v (loopbacks left out)", tot, want)
	}
}

func TestGopsutilLoad(t *testing.T) {
	got := gopsutilLoad(&load.AvgStat{Load1: 1.5, Load5: 0.5, Load15: 0.25})
	if got != (Load{Load1: 1.5, Load5: 0.5, Load15: 0.25}) {
		t.Errorf("got %+v", got)
	}
}

func TestGopsutilFilesystem(t *testing.T) {
	got := gopsutilFilesystem("/w", &disk.UsageStat{Path: "/", Total: 100, Used: 60, Free: 30})
	if got != (Filesystem{Path: "/w", Total: 100, Used: 60, Free: 30, Reserved: 10}) {
		t.Errorf("got %+v", got)
	}
	// Windows' free bytes may include what a quota keeps from the user.
	got = gopsutilFilesystem(`C:\w`, &disk.UsageStat{Total: 100, Used: 80, Free: 30})
	if got.Reserved != 0 {
		t.Errorf("reserved %d when used + free exceed the total", got.Reserved)
	}
}

func TestGopsutilProcIO(t *testing.T) {
	c := &process.IOCountersStat{ReadBytes: 1, WriteBytes: 2, DiskReadBytes: 3, DiskWriteBytes: 4}
	if r, w := gopsutilProcIO(c, false); r != 3 || w != 4 {
		t.Errorf("storage IO %d, %d", r, w)
	}
	if r, w := gopsutilProcIO(c, true); r != 1 || w != 2 {
		t.Errorf("all IO %d, %d", r, w)
	}
}

func TestUnavailableSentence(t *testing.T) {
	for _, c := range []struct {
		goos string
		more figure
		want string
	}{
		{"darwin", 0, "on darwin: no pressure stall information, no cgroup, no buffer size, no page cache size, no page fault counts, no disk busy time"},
		{"windows", 0, "on windows: no pressure stall information, no cgroup, no buffer size, no page cache size, no page fault counts, no disk busy time, no load average"},
		{"freebsd", 0, "on freebsd: no pressure stall information, no cgroup, no page cache size, no page fault counts, no per-process IO"},
		{"openbsd", figProcIO | figProcThreads, "on openbsd: no pressure stall information, no cgroup, no page fault counts, no per-process IO, no thread counts"},
	} {
		if got := unavailableSentence(c.goos, gopsutilAbsent(c.goos)|c.more); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.goos, got, c.want)
		}
	}
	if got := unavailableSentence("linux", 0); got != "" {
		t.Errorf("nothing absent gave %q", got)
	}
}

func TestIsNotImplemented(t *testing.T) {
	// IOnice is not implemented on Linux: this is gopsutil's own sentinel,
	// whose text isNotImplemented relies on.
	_, notImpl := (&process.Process{Pid: int32(os.Getpid())}).IOnice()
	if notImpl == nil {
		t.Skip("IOnice is implemented here")
	}
	for _, err := range []error{
		notImpl,
		fmt.Errorf("disk IO: %w", notImpl),
		errors.Join(errors.New("other"), fmt.Errorf("x: %w", notImpl)),
	} {
		if !isNotImplemented(err) {
			t.Errorf("%q not taken for not implemented", err)
		}
	}
	for _, err := range []error{nil, errors.New("other"), fmt.Errorf("x: %w", fs.ErrNotExist), errors.Join(errors.New("a"), errors.New("b"))} {
		if isNotImplemented(err) {
			t.Errorf("%v taken for not implemented", err)
		}
	}
}

func TestIsGoneIsDenied(t *testing.T) {
	gone := []error{process.ErrorProcessNotRunning, fmt.Errorf("x: %w", process.ErrorProcessNotRunning), &fs.PathError{Op: "open", Path: "/proc/1/stat", Err: syscall.ENOENT}}
	denied := []error{process.ErrorNotPermitted, &fs.PathError{Op: "open", Path: "/proc/1/io", Err: syscall.EACCES}}
	for _, err := range gone {
		if !isGone(err) || isDenied(err) {
			t.Errorf("%v: gone %v, denied %v", err, isGone(err), isDenied(err))
		}
	}
	for _, err := range denied {
		if isGone(err) || !isDenied(err) {
			t.Errorf("%v: gone %v, denied %v", err, isGone(err), isDenied(err))
		}
	}
	if other := errors.New("other"); isGone(other) || isDenied(other) {
		t.Error("any error taken for gone or denied")
	}
}

func pids(ls []procLink) []int32 {
	var out []int32
	for _, l := range ls {
		out = append(out, l.PID)
	}
	return out
}

func TestDescendants(t *testing.T) {
	table := []procLink{
		{PID: 0, PPID: 0},
		{PID: 1, PPID: 0},
		{PID: 20, PPID: 1},
		{PID: 13, PPID: 11, Threads: 3},
		{PID: 10, PPID: 1, Threads: 1},
		{PID: 21, PPID: 20},
		{PID: 11, PPID: 10},
		{PID: 12, PPID: 10},
		{PID: 14, PPID: 13},
	}
	got := descendants(10, slices.Clone(table), []procLink{{PID: 99}})
	if p := pids(got); p[0] != 99 || p[1] != 10 || len(p) != 6 {
		t.Fatalf("got %v, want 99 (kept), 10, then 11 12 13 14", p)
	}
	p := pids(got[2:])
	slices.Sort(p)
	if !slices.Equal(p, []int32{11, 12, 13, 14}) {
		t.Errorf("descendants %v", p)
	}
	for _, l := range got {
		if l.PID == 13 && l.Threads != 3 {
			t.Errorf("row of 13 lost its threads: %+v", l)
		}
	}
	if got := descendants(42, slices.Clone(table), nil); len(got) != 0 {
		t.Errorf("missing root gave %v", pids(got))
	}
	// A loop through the root (a reused pid on Windows) and a process
	// that is its own parent end the walk.
	loop := []procLink{{PID: 5, PPID: 7}, {PID: 6, PPID: 5}, {PID: 7, PPID: 6}, {PID: 0, PPID: 0}}
	if got := pids(descendants(5, loop, nil)); !slices.Equal(got, []int32{5, 6, 7}) {
		t.Errorf("loop gave %v", got)
	}
	if got := pids(descendants(0, loop, nil)); !slices.Equal(got, []int32{0}) {
		t.Errorf("self-parent gave %v", got)
	}
}

func TestTreeTally(t *testing.T) {
	s := time.Second
	tt := newGopsutilTally()
	step := func(exited ExitUsage, hasIO bool, ps ...gopsutilProc) Tree {
		tt.begin()
		for _, p := range ps {
			tt.add(p)
		}
		return tt.end(min(len(ps), 1), exited, hasIO)
	}
	p := func(pid int32, user, sys time.Duration, rd uint64) gopsutilProc {
		return gopsutilProc{PID: pid, HasCPU: true, User: user, System: sys, RSS: 100, Threads: 2, ReadBytes: rd, WriteBytes: 2 * rd}
	}

	tr := step(ExitUsage{}, true, p(10, 1*s, 1*s, 10), p(11, 2*s, 0, 5))
	if tr.Processes != 2 || tr.Threads != 4 || tr.RSS != 200 || tr.Roots != 1 ||
		tr.CPUUser != 3*s || tr.CPUSystem != 1*s || tr.ReadBytes != 15 || tr.WriteBytes != 30 || !tr.HasIO || tr.IOPartial {
		t.Fatalf("first sample %+v", tr)
	}
	// 11 exits: its last-seen usage stays. 12 appears.
	tr = step(ExitUsage{}, true, p(10, 1500*time.Millisecond, 1*s, 10), p(12, 500*time.Millisecond, 0, 1))
	if tr.CPUUser != 4*s || tr.CPUSystem != 1*s || tr.ReadBytes != 16 || tr.Processes != 2 {
		t.Errorf("after an exit %+v", tr)
	}
	// 12's pid is reused by a newer process with less CPU: the old one's
	// usage stays. 10 cannot be read: its last figures stand.
	tr = step(ExitUsage{}, true, gopsutilProc{PID: 10, Threads: 1, IOAbsent: true}, p(12, 100*time.Millisecond, 0, 0))
	if tr.CPUUser != 4100*time.Millisecond || tr.CPUSystem != 1*s || tr.ReadBytes != 16 || !tr.IOPartial {
		t.Errorf("after pid reuse %+v", tr)
	}
	// A process whose IO cannot be read keeps its last IO and marks the
	// sums partial.
	q := p(10, 2*s, 1*s, 0)
	q.IOAbsent = true
	tr = step(ExitUsage{}, true, q)
	if !tr.HasIO || !tr.IOPartial || tr.ReadBytes != 16 || tr.CPUUser != 4600*time.Millisecond {
		t.Errorf("IO absent %+v", tr)
	}
	// The job exits; its usage from wait4 is larger than the tally's.
	tr = step(ExitUsage{User: 10 * s, System: 500 * time.Millisecond, ReadBytes: 1 << 20}, true)
	if tr.Processes != 0 || tr.Roots != 0 || tr.CPUUser != 10*s || tr.CPUSystem != 1*s || tr.ReadBytes != 16 || !tr.HasIO || tr.IOPartial {
		t.Errorf("after exit %+v", tr)
	}
	// Totals never go down.
	tr = step(ExitUsage{User: 1 * s}, true)
	if tr.CPUUser != 10*s || tr.CPUSystem != 1*s {
		t.Errorf("went down: %+v", tr)
	}

	// Without per-process IO on the system, no IO at all.
	tt = newGopsutilTally()
	tr = step(ExitUsage{}, false, p(10, 1*s, 1*s, 10))
	if tr.HasIO || tr.IOPartial || tr.ReadBytes != 0 {
		t.Errorf("no IO %+v", tr)
	}
}

// TestGopsutilSeconds checks that gopsutil's float seconds (clock ticks
// over 100: 201 ticks are 2.01) become the nearest nanosecond, not the one
// below.
func TestGopsutilSeconds(t *testing.T) {
	for s, want := range map[float64]time.Duration{2.01: 2010 * time.Millisecond, 2.05: 2050 * time.Millisecond, 0.07: 70 * time.Millisecond, 0: 0} {
		if got := seconds(s); got != want {
			t.Errorf("seconds(%v) = %v, want %v", s, got, want)
		}
	}
}
