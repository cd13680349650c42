package hostmetrics

import (
	"testing"
	"time"
)

func TestJobFrom(t *testing.T) {
	at := time.Unix(1700000000, 0)
	walked := at.Add(-300 * time.Millisecond)
	tree := Tree{CPUUser: time.Second, CPUSystem: 2 * time.Second, RSS: 100, HasIO: true, ReadBytes: 1, WriteBytes: 2, At: walked}
	cg := Cgroup{HasCPU: true, CPUUser: 3 * time.Second, CPUSystem: 4 * time.Second, HasMemory: true, Memory: 200,
		HasIO: true, ReadBytes: 3, WriteBytes: 4, HasOOMKills: true, OOMKills: 1,
		Pressure: PressureSet{CPU: Pressure{Some: time.Second, HasSome: true}}}
	for _, c := range []struct {
		name          string
		job           Job
		cpu, mem, io  From
		user, rss, rd any
		own, pressure bool
		cpuAt, memAt  time.Time
	}{
		{name: "own cgroup", job: Job{HasTree: true, Tree: tree, HasCgroup: true, CgroupOwn: true, Cgroup: cg},
			cpu: FromCgroup, mem: FromCgroup, io: FromCgroup, user: 3 * time.Second, rss: uint64(200), rd: uint64(3),
			own: true, pressure: true, cpuAt: at, memAt: at},
		{name: "jobtrace's cgroup", job: Job{HasTree: true, Tree: tree, HasCgroup: true, Cgroup: cg},
			cpu: FromTree, mem: FromTree, io: FromTree, user: time.Second, rss: uint64(100), rd: uint64(1),
			cpuAt: walked, memAt: walked},
		{name: "own cgroup without controllers", job: Job{HasTree: true, Tree: tree, HasCgroup: true, CgroupOwn: true, Cgroup: Cgroup{HasCPU: true, CPUUser: 5 * time.Second}},
			cpu: FromCgroup, mem: FromTree, io: FromTree, user: 5 * time.Second, rss: uint64(100), rd: uint64(1),
			own: true, cpuAt: at, memAt: walked},
		{name: "tree without IO", job: Job{HasTree: true, Tree: Tree{RSS: 7}},
			cpu: FromTree, mem: FromTree, io: FromNone, user: time.Duration(0), rss: uint64(7), rd: uint64(0),
			cpuAt: at, memAt: at},
		{name: "nothing", cpu: FromNone, mem: FromNone, io: FromNone, user: time.Duration(0), rss: uint64(0), rd: uint64(0),
			cpuAt: at, memAt: at},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Sample{Time: at, Job: c.job}
			j := &s.Job
			if got := [3]From{j.CPUFrom(), j.MemoryFrom(), j.IOFrom()}; got != [3]From{c.cpu, c.mem, c.io} {
				t.Errorf("from: got %v, want %v", got, [3]From{c.cpu, c.mem, c.io})
			}
			user, _, okCPU := j.CPU()
			rss, okMem := j.Memory()
			rd, _, okIO := j.IO()
			if user != c.user || rss != c.rss || rd != c.rd {
				t.Errorf("figures: got %v %v %v, want %v %v %v", user, rss, rd, c.user, c.rss, c.rd)
			}
			if okCPU != (c.cpu != FromNone) || okMem != (c.mem != FromNone) || okIO != (c.io != FromNone) {
				t.Errorf("present: got %v %v %v for %v", okCPU, okMem, okIO, [3]From{c.cpu, c.mem, c.io})
			}
			if _, own := j.OwnCgroup(); own != c.own {
				t.Errorf("OwnCgroup: got %v, want %v", own, c.own)
			}
			if _, ok := j.Pressure(); ok != c.pressure {
				t.Errorf("Pressure: got %v, want %v", ok, c.pressure)
			}
			if got := s.ReadAt(j.CPUFrom()); !got.Equal(c.cpuAt) {
				t.Errorf("CPU read at %v, want %v", got, c.cpuAt)
			}
			if got := s.ReadAt(j.MemoryFrom()); !got.Equal(c.memAt) {
				t.Errorf("memory read at %v, want %v", got, c.memAt)
			}
		})
	}
}

func TestBusyShare(t *testing.T) {
	a := CPUTimes{User: 10, System: 5, Idle: 80, IOWait: 5}
	b := CPUTimes{User: 16, System: 7, Idle: 90, IOWait: 7, Steal: 2, IRQ: 1}
	// 23 s passed, 12 of them idle or waiting for IO.
	if got, ok := BusyShare(&a, &b); !ok || got != 1-12.0/23 {
		t.Errorf("BusyShare = %v, %v; want %v", got, ok, 1-12.0/23)
	}
	if got, want := b.Busy(), 26.0; got != want {
		t.Errorf("Busy = %v, want %v", got, want)
	}
	if _, ok := BusyShare(&a, &a); ok {
		t.Error("no time passed, and a share was given")
	}
	// Idle that steps back (a counter reset on a CPU going offline) has no
	// known change: the share is of the other modes' changes.
	c := b
	c.Idle, c.User = 0, 200
	if got, ok := BusyShare(&b, &c); !ok || got != 1 {
		t.Errorf("BusyShare = %v, %v; want 1", got, ok)
	}
}

// The machine's CPU time is a counter per mode, taken by monotonic's rule
// mode by mode: an idle time that dips (the kernel moved a CPU's idle time
// to iowait) has no known change and counts for none, where taking the
// later reading less the earlier counted it as negative idle time, and the
// sum of the changes between two readings is the change between their
// totals. Before, BusyShare gave 1 - (-2+6)/(6+1-2+6) = 64 % here.
func TestCPUChangeByMode(t *testing.T) {
	a := CPUTimes{User: 10, System: 5, Idle: 80, IOWait: 5}
	b := CPUTimes{User: 16, System: 6, Idle: 78, IOWait: 11}
	d := CPUChange(&a, &b)
	if want := (CPUTimes{User: 6, System: 1, IOWait: 6}); d != want {
		t.Errorf("CPUChange = %+v, want %+v", d, want)
	}
	if got, ok := BusyShare(&a, &b); !ok || got != 7.0/13 {
		t.Errorf("BusyShare = %v, %v; want 7/13 (the dip of idle counts for none)", got, ok)
	}
	// Totals: from the dip on, idle counts again from its lower reading.
	c := CPUTimes{User: 17, System: 6, Idle: 81, IOWait: 11}
	var tot CPUTotals
	ta, tb, tc := tot.Add(&a), tot.Add(&b), tot.Add(&c)
	if tc.Idle != 3 || tc.User != 7 || tc.IOWait != 6 {
		t.Errorf("totals %+v: idle 3 (the dip's change unknown, then 3 more), user 7, iowait 6", tc)
	}
	for _, p := range [][4]*CPUTimes{{&a, &b, &ta, &tb}, {&b, &c, &tb, &tc}} {
		x, _ := BusyShare(p[0], p[1])
		if y, _ := BusyShare(p[2], p[3]); x != y {
			t.Errorf("the share between readings %v, between their totals %v", x, y)
		}
	}
}

func TestHostTotals(t *testing.T) {
	disks := []Disk{
		{Name: "sda", DiskIO: DiskIO{Reads: 1, ReadBytes: 10, IOTime: time.Second}, Whole: true},
		{Name: "sda1", DiskIO: DiskIO{Reads: 1, ReadBytes: 10}},
		{Name: "loop0", DiskIO: DiskIO{Reads: 5, ReadBytes: 50}, Whole: true, Virtual: true},
		{Name: "nvme0n1", DiskIO: DiskIO{Writes: 2, WrittenBytes: 20, IOTime: time.Second}, Whole: true},
	}
	if got, want := hostDiskIO(disks), (DiskIO{Reads: 1, Writes: 2, ReadBytes: 10, WrittenBytes: 20, IOTime: 2 * time.Second}); got != want {
		t.Errorf("hostDiskIO = %+v, want %+v: whole, non-virtual disks alone", got, want)
	}
	ifaces := []Iface{
		{Name: "lo", NetIO: NetIO{RxBytes: 100}},
		{Name: "lo0", NetIO: NetIO{RxBytes: 100}},
		{Name: "Loopback Pseudo-Interface 1", NetIO: NetIO{RxBytes: 100}},
		{Name: "eth0", NetIO: NetIO{RxBytes: 1, TxDrops: 2}},
		{Name: "vioif0", NetIO: NetIO{TxBytes: 3}},
	}
	if got, want := hostNetIO(ifaces), (NetIO{RxBytes: 1, TxBytes: 3, TxDrops: 2}); got != want {
		t.Errorf("hostNetIO = %+v, want %+v: every interface but the loopback", got, want)
	}
}

// A disk counts in the host's disk IO when it is whole and not virtual:
// not a partition, whose IO its disk counts, nor a loop, RAM or ZFS
// device, whose IO is a file's, memory's or the disks' below.
func TestInHostTotal(t *testing.T) {
	for _, c := range []struct {
		whole, virtual, want bool
	}{{true, false, true}, {false, false, false}, {true, true, false}, {false, true, false}} {
		d := Disk{Whole: c.whole, Virtual: c.virtual}
		if got := d.InHostTotal(); got != c.want {
			t.Errorf("whole %v, virtual %v: InHostTotal %v, want %v", c.whole, c.virtual, got, c.want)
		}
	}
}
