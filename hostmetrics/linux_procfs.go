package hostmetrics

import (
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics/cgroup"
	"github.com/jobtrace/jobtrace/hostmetrics/procfs"
)

// This file turns what the Linux readers (packages procfs and cgroup) give
// into a Sample's fields. The calls that read the files are in
// source_linux.go; the conversions are here, untagged, so that they are
// tested everywhere.

// linuxCPUTimes converts the "cpu" line of /proc/stat.
func linuxCPUTimes(c *procfs.CPUTimes) CPUTimes {
	return CPUTimes{
		User: c.User, Nice: c.Nice, System: c.System, Idle: c.Idle,
		IOWait: c.IOWait, IRQ: c.IRQ, SoftIRQ: c.SoftIRQ, Steal: c.Steal,
	}
}

// linuxDisks converts /proc/diskstats into dst (reused), in file order,
// and the totals of its whole, non-virtual disks.
func linuxDisks(ds *procfs.Diskstats, dst []Disk) ([]Disk, DiskIO) {
	dst = dst[:0]
	for i := range ds.Devices {
		d := &ds.Devices[i]
		dst = append(dst, Disk{
			Name: d.Name,
			DiskIO: DiskIO{
				Reads: d.Reads, Writes: d.Writes,
				ReadBytes: d.ReadBytes(), WrittenBytes: d.WrittenBytes(),
				IOTime: d.IOTime,
			},
			Whole: d.Whole, Virtual: d.Virtual,
		})
	}
	return dst, hostDiskIO(dst)
}

// linuxIfaces converts /proc/net/dev into dst (reused), in file order,
// and the sum of every interface but the loopback.
func linuxIfaces(nd *procfs.NetDev, dst []Iface) ([]Iface, NetIO) {
	dst = dst[:0]
	for i := range nd.Interfaces {
		n := &nd.Interfaces[i]
		dst = append(dst, Iface{Name: n.Name, NetIO: linuxNetIO(n)})
	}
	return dst, hostNetIO(dst)
}

func linuxNetIO(n *procfs.NetDevStat) NetIO {
	return NetIO{
		RxBytes: n.RxBytes, RxPackets: n.RxPackets, RxErrors: n.RxErrors, RxDrops: n.RxDrops,
		TxBytes: n.TxBytes, TxPackets: n.TxPackets, TxErrors: n.TxErrors, TxDrops: n.TxDrops,
	}
}

// linuxLoad converts /proc/loadavg; its task counts are of threads.
func linuxLoad(l *procfs.Loadavg) Load {
	return Load{Load1: l.Load1, Load5: l.Load5, Load15: l.Load15, Running: l.Running, Total: l.Total}
}

// linuxPressure converts a pressure file, the host's or a cgroup's.
func linuxPressure(p *procfs.Pressure) Pressure {
	return Pressure{Some: p.Some.Total, Full: p.Full.Total, HasSome: p.HasSome, HasFull: p.HasFull}
}

// usec converts a cgroup file's microseconds.
func usec(o cgroup.Opt[uint64]) time.Duration { return time.Duration(o.Value) * time.Microsecond }

// linuxCgroup converts one reading of a cgroup v2 directory.
func linuxCgroup(st *cgroup.Stats) Cgroup {
	c := st.CPU
	return Cgroup{
		HasCPU: c.UsageUsec.Present && c.UserUsec.Present && c.SystemUsec.Present,
		CPU:    usec(c.UsageUsec), CPUUser: usec(c.UserUsec), CPUSystem: usec(c.SystemUsec),

		HasThrottled: c.ThrottledUsec.Present,
		Throttled:    usec(c.ThrottledUsec),

		HasMemory:     st.MemoryCurrent.Present,
		Memory:        st.MemoryCurrent.Value,
		HasMemoryPeak: st.MemoryPeak.Present,
		MemoryPeak:    st.MemoryPeak.Value,
		HasOOMKills:   st.MemoryEvents.OOMKill.Present,
		OOMKills:      st.MemoryEvents.OOMKill.Value,

		HasIO:      st.IO.ReadBytes.Present && st.IO.WriteBytes.Present,
		ReadBytes:  st.IO.ReadBytes.Value,
		WriteBytes: st.IO.WriteBytes.Value,

		Pressure: PressureSet{
			CPU:    linuxPressure(&st.CPUPressure),
			Memory: linuxPressure(&st.MemoryPressure),
			IO:     linuxPressure(&st.IOPressure),
		},
	}
}
