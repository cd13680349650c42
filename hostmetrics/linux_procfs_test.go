package hostmetrics

import (
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics/cgroup"
	"github.com/jobtrace/jobtrace/hostmetrics/procfs"
)

func TestLinuxCgroup(t *testing.T) {
	st := cgroup.Stats{}
	st.CPU.UsageUsec = cgroup.Opt[uint64]{Value: 3_000_001, Present: true}
	st.CPU.UserUsec = cgroup.Opt[uint64]{Value: 2_000_000, Present: true}
	st.CPU.SystemUsec = cgroup.Opt[uint64]{Value: 1_000_000, Present: true}
	st.MemoryPeak = cgroup.Opt[uint64]{Value: 4096, Present: true}
	st.IO.ReadBytes = cgroup.Opt[uint64]{Value: 7, Present: true} // no wbytes: no IO
	st.CPUPressure = procfs.Pressure{Some: procfs.PressureLine{Avg10: 5, Total: time.Second}, HasSome: true}
	got := linuxCgroup(&st)
	want := Cgroup{
		HasCPU: true, CPU: 3*time.Second + time.Microsecond, CPUUser: 2 * time.Second, CPUSystem: time.Second,
		HasMemoryPeak: true, MemoryPeak: 4096,
		ReadBytes: 7,
		Pressure:  PressureSet{CPU: Pressure{Some: time.Second, HasSome: true}},
	}
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	// A hybrid host's cgroup: cpu.stat and pressure only.
	if c := linuxCgroup(&cgroup.Stats{}); c.HasCPU || c.HasMemory || c.HasIO || c.HasThrottled || c.HasOOMKills {
		t.Errorf("absent files gave %+v", c)
	}
}

func TestLinuxDisksAndIfaces(t *testing.T) {
	ds := procfs.Diskstats{Devices: []procfs.DiskStat{
		{Name: "sda", Reads: 1, Writes: 2, SectorsRead: 3, SectorsWritten: 4, IOTime: time.Second, Whole: true},
		{Name: "sda1", Reads: 1, SectorsRead: 3},
		{Name: "loop0", Reads: 9, SectorsRead: 9, Whole: true, Virtual: true},
	}}
	disks, tot := linuxDisks(&ds, make([]Disk, 5))
	if len(disks) != 3 || disks[0] != (Disk{Name: "sda", DiskIO: DiskIO{Reads: 1, Writes: 2, ReadBytes: 1536, WrittenBytes: 2048, IOTime: time.Second}, Whole: true}) ||
		!disks[2].Virtual || disks[1].Whole {
		t.Errorf("disks %+v", disks)
	}
	if tot != (DiskIO{Reads: 1, Writes: 2, ReadBytes: 1536, WrittenBytes: 2048, IOTime: time.Second}) {
		t.Errorf("totals %+v: only whole, non-virtual disks count", tot)
	}
	nd := procfs.NetDev{Interfaces: []procfs.NetDevStat{{Name: "lo", RxBytes: 100}, {Name: "eth0", RxBytes: 1, TxDrops: 2}}}
	ifaces, net := linuxIfaces(&nd, nil)
	if len(ifaces) != 2 || ifaces[1] != (Iface{Name: "eth0", NetIO: NetIO{RxBytes: 1, TxDrops: 2}}) {
		t.Errorf("interfaces %+v", ifaces)
	}
	if net != (NetIO{RxBytes: 1, TxDrops: 2}) {
		t.Errorf("totals %+v: the loopback counts", net)
	}
}
