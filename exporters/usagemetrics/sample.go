package usagemetrics

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/monotonic"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
)

// MaxDevices bounds the disks, and separately the network interfaces, that
// get series of their own. A CI machine that runs containers makes a
// virtual interface for each one; past this many names a new device is not
// recorded (and Warn says so once), which keeps the agent's memory and the
// number of series bounded over a long job.
const MaxDevices = 256

// CPU modes in the order of cpu.mode attribute sets.
const (
	modeUser = iota
	modeNice
	modeSystem
	modeIdle
	modeIOWait
	modeInterrupt
	modeSteal
	numModes
)

var modeNames = [numModes]string{"user", "nice", "system", "idle", "iowait", "interrupt", "steal"}

func modeTimes(c *hostmetrics.CPUTimes) [numModes]float64 {
	return [numModes]float64{c.User, c.Nice, c.System, c.Idle, c.IOWait, c.IRQ + c.SoftIRQ, c.Steal}
}

// Directions: index 0 is read (disks) or receive (networks), 1 is write or
// transmit.
const (
	dirIn = iota
	dirOut
)

// Pressure series, indexed resource*2 + kind.
const (
	psiCPUSome = iota
	psiCPUFull
	psiMemSome
	psiMemFull
	psiIOSome
	psiIOFull
	numPSI
)

// fcounter and icounter are the state of one counter series: its last
// reading, from which the series grows by the change to the next
// (monotonic.Counter). The first reading is the baseline; a reading below
// the last is a reset (a counter that wrapped, a cgroup's io.stat that lost
// a device), whose change is unknown: it adds nothing, and the series grows
// again from it. The figures that dip without a reset (a job tree's CPU
// time, /proc/stat's iowait) are held at their highest where they are read.
type (
	fcounter = monotonic.Counter[float64]
	icounter = monotonic.Counter[uint64]
)

// grow is how much a counter series grows by with the reading v: its
// change since the last reading, 0 when that is unknown.
func grow[T float64 | uint64](c *monotonic.Counter[T], v T) T {
	d, _ := c.Next(v)
	return d
}

// level is the state of one up-down counter series: the value its sum
// holds.
type level struct{ last int64 }

func (l *level) delta(cur int64) int64 {
	d := cur - l.last
	l.last = cur
	return d
}

// devices holds the series of the devices of one kind (disks, network
// interfaces) by name, at most MaxDevices of them, and says once when a
// device is left out. gen counts the samples, to find the devices that
// went away.
type devices[T any] struct {
	kind   string
	newT   func(name string) *T
	reset  func(*T) // a device that went away starts from a new baseline
	byName map[string]*device[T]
	warned bool
}

type device[T any] struct {
	seen   uint64
	series T
}

// get returns the series of device name at sample gen; nil when it is one
// device too many.
func (d *devices[T]) get(name string, gen uint64, warn func(string)) *T {
	e := d.byName[name]
	if e == nil {
		if len(d.byName) >= MaxDevices {
			if !d.warned {
				d.warned = true
				warn(fmt.Sprintf("more than %d %s: %s and later ones are not recorded", MaxDevices, d.kind, name))
			}
			return nil
		}
		e = &device[T]{series: *d.newT(name)}
		d.byName[name] = e
	}
	e.seen = gen
	return &e.series
}

// sweep resets the devices not seen at sample gen: a device that comes
// back may have started its counters again from zero.
func (d *devices[T]) sweep(gen uint64) {
	for _, e := range d.byName {
		if e.seen != gen {
			d.reset(&e.series)
		}
	}
}

// disk holds the series of one disk.
type disk struct {
	io, ops [2]icounter
	ioTime  fcounter
	aDir    [2]attrs // system.device, disk.io.direction
	aDev    attrs    // system.device
}

// iface holds the series of one network interface.
type iface struct {
	bytes, packets, errs [2]icounter
	aName                [2]attrs // network.interface.name, network.io.direction
	aDev                 [2]attrs // system.device, network.io.direction
}

type sampleState struct {
	gen uint64 // samples taken, to find devices that went away
	// covered is the context Options.Active gave at the last sample: the
	// phase the time since then belongs to.
	covered context.Context

	cpu       [numModes]fcounter
	cpuSpans  usage.HostCPU // the spans system.cpu.utilization is taken over
	mem       [4]level
	paging    [2]icounter
	disks     devices[disk]
	ifaces    devices[iface]
	fs        [3]level
	fsDevice  string
	aFS       [3]attrs
	sysPSI    [numPSI]fcounter
	procCPU   [2]fcounter
	procMem   level
	procIO    [2]icounter
	procThr   level
	procCount level
	contCPU   [2]fcounter
	contMem   level
	contIO    [2]icounter
	contPSI   [numPSI]fcounter

	aNone  attrs
	aMode  [numModes]attrs
	aMem   [4]attrs
	aFault [2]attrs
	aDisk  [2]attrs // disk.io.direction
	aPSI   [numPSI]attrs
}

func (s *sampleState) init() {
	s.disks = devices[disk]{kind: "disks", newT: newDisk, byName: map[string]*device[disk]{},
		reset: func(e *disk) { e.io, e.ops, e.ioTime = [2]icounter{}, [2]icounter{}, fcounter{} }}
	s.ifaces = devices[iface]{kind: "network interfaces", newT: newIface, byName: map[string]*device[iface]{},
		reset: func(e *iface) { e.bytes, e.packets, e.errs = [2]icounter{}, [2]icounter{}, [2]icounter{} }}
	s.aNone = newAttrs()
	for i, m := range modeNames {
		s.aMode[i] = newAttrs(semconv.CPUModeKey.String(m))
	}
	for i, st := range [4]string{"used", "free", "buffers", "cached"} {
		s.aMem[i] = newAttrs(semconv.SystemMemoryStateKey.String(st))
	}
	s.aFault[0] = newAttrs(semconv.SystemPagingFaultTypeKey.String("minor"))
	s.aFault[1] = newAttrs(semconv.SystemPagingFaultTypeKey.String("major"))
	s.aDisk[dirIn] = newAttrs(semconv.DiskIODirectionRead)
	s.aDisk[dirOut] = newAttrs(semconv.DiskIODirectionWrite)
	for i := range s.aPSI {
		res := [...]string{"cpu", "memory", "io"}[i/2]
		kind := [...]string{"some", "full"}[i%2]
		s.aPSI[i] = newAttrs(AttrPressureResource.String(res), AttrPressureKind.String(kind))
	}
	s.setFSDevice("")
}

func (s *sampleState) setFSDevice(dev string) {
	s.fsDevice = dev
	for i, st := range [3]string{"used", "free", "reserved"} {
		kv := []attribute.KeyValue{semconv.SystemFilesystemStateKey.String(st)}
		if dev != "" {
			kv = append(kv, semconv.SystemDeviceKey.String(dev))
		}
		s.aFS[i] = newAttrs(kv...)
	}
}

// Sample records s, with the context of the phase the time its figures
// cover belongs to: what Options.Active gave at the sample before. It
// implements hostmetrics.Sink.
func (r *Recorder) Sample(s *hostmetrics.Sample) {
	active := context.Background()
	if r.opts.Active != nil {
		if c := r.opts.Active(); c != nil {
			active = c
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// A sample's figures cover the time since the sample before, which
	// belongs to the phase active then, as resource-usage.csv's rows do
	// (docs/csv.md): a boundary sample's exemplars point at the phase that
	// ran up to the boundary, not at the one active after it. The first
	// sample covers no time.
	ctx := r.covered
	if ctx == nil {
		ctx = active
	}
	r.covered = active
	r.gen++
	r.host(ctx, s)
	r.job(ctx, &s.Job)
}

func (r *Recorder) host(ctx context.Context, s *hostmetrics.Sample) {
	st := &r.sampleState
	h := &s.Host
	if h.HasCPU {
		cur := modeTimes(&h.CPU)
		for i := range cur {
			r.addF(ctx, mSysCPUTime, grow(&st.cpu[i], cur[i]), &st.aMode[i])
		}
	}
	// Each mode's share of the CPU time over the span the sample shows,
	// as resource-usage.csv's host_cpu_pct (usage.HostCPU: the last of at
	// least 200 ms, each mode's change by hostmetrics.CPUChange): the busy
	// modes' shares add up to its share.
	st.cpuSpans.Take(s.Time, &h.CPU, h.HasCPU, s.Reason == hostmetrics.ReasonEnd)
	if sp, ok := st.cpuSpans.Shown(); ok {
		dt := hostmetrics.CPUChange(&sp.From, &sp.To)
		if total := dt.Total(); total > 0 {
			d := modeTimes(&dt)
			for i := range d {
				r.gauge(ctx, mSysCPUUtil, d[i]/total, &st.aMode[i])
			}
		}
	}
	if h.HasMemory {
		m := &h.Memory
		v := [4]uint64{m.Used, m.Free, m.Buffers, m.Cached}
		for i := range v {
			r.addLevel(ctx, mSysMemUsage, &st.mem[i], v[i], &st.aMem[i])
		}
		// A share of the total the machine states (MemTotal), as the
		// semantic conventions define system.memory.utilization (a share
		// of system.memory.limit). The model's machine memory
		// (runmodel's machineMemory) is Used + Available, the two
		// columns of resource-usage.csv, which has none of the total:
		// where the machine tells what is available every source makes
		// Used Total − Available, so the two are one figure; where it
		// does not (Linux before 3.14, a gopsutil system that does not
		// say), the model has no machine memory and this share is still
		// the total's.
		if m.Total > 0 {
			for i := range v {
				r.gauge(ctx, mSysMemUtil, float64(v[i])/float64(m.Total), &st.aMem[i])
			}
		}
	}
	if h.HasPaging {
		r.addI(ctx, mSysPaging, grow(&st.paging[0], h.Paging.Minor), &st.aFault[0])
		r.addI(ctx, mSysPaging, grow(&st.paging[1], h.Paging.Major), &st.aFault[1])
	}
	if h.HasDisk {
		r.recordDisks(ctx, h.Disks)
	}
	if h.HasNet {
		r.recordIfaces(ctx, h.Ifaces)
	}
	if h.HasFS {
		if h.FS.Device != st.fsDevice {
			// Move the sums off the old attribute set, so the old series
			// does not keep its last value next to the new one.
			for i := range st.fs {
				r.addLevel(ctx, mSysFSUsage, &st.fs[i], 0, &st.aFS[i])
			}
			st.setFSDevice(h.FS.Device)
		}
		v := [3]uint64{h.FS.Used, h.FS.Free, h.FS.Reserved}
		for i := range v {
			r.addLevel(ctx, mSysFSUsage, &st.fs[i], v[i], &st.aFS[i])
		}
	}
	if h.HasLoad {
		r.gauge(ctx, mLoad1, h.Load.Load1, &st.aNone)
		r.gauge(ctx, mLoad5, h.Load.Load5, &st.aNone)
		r.gauge(ctx, mLoad15, h.Load.Load15, &st.aNone)
	}
	// Machine-wide CPU "full" is not recorded: the kernel keeps it at zero
	// (Documentation/accounting/psi.rst).
	r.pressure(ctx, mSysPressure, &st.sysPSI, &h.Pressure, false)
}

func (r *Recorder) recordDisks(ctx context.Context, devs []hostmetrics.Disk) {
	st := &r.sampleState
	for i := range devs {
		d := &devs[i]
		if !d.InHostTotal() {
			continue
		}
		e := st.disks.get(d.Name, st.gen, r.warn)
		if e == nil {
			continue
		}
		r.addI(ctx, mSysDiskIO, grow(&e.io[dirIn], d.ReadBytes), &e.aDir[dirIn])
		r.addI(ctx, mSysDiskIO, grow(&e.io[dirOut], d.WrittenBytes), &e.aDir[dirOut])
		r.addI(ctx, mSysDiskOps, grow(&e.ops[dirIn], d.Reads), &e.aDir[dirIn])
		r.addI(ctx, mSysDiskOps, grow(&e.ops[dirOut], d.Writes), &e.aDir[dirOut])
		r.addF(ctx, mSysDiskIOTime, grow(&e.ioTime, d.IOTime.Seconds()), &e.aDev)
	}
	st.disks.sweep(st.gen)
}

func newDisk(name string) *disk {
	e := &disk{aDev: newAttrs(semconv.SystemDeviceKey.String(name))}
	e.aDir[dirIn] = newAttrs(semconv.SystemDeviceKey.String(name), semconv.DiskIODirectionRead)
	e.aDir[dirOut] = newAttrs(semconv.SystemDeviceKey.String(name), semconv.DiskIODirectionWrite)
	return e
}

func (r *Recorder) recordIfaces(ctx context.Context, ifs []hostmetrics.Iface) {
	st := &r.sampleState
	for i := range ifs {
		n := &ifs[i]
		e := st.ifaces.get(n.Name, st.gen, r.warn)
		if e == nil {
			continue
		}
		r.addI(ctx, mSysNetIO, grow(&e.bytes[dirIn], n.RxBytes), &e.aName[dirIn])
		r.addI(ctx, mSysNetIO, grow(&e.bytes[dirOut], n.TxBytes), &e.aName[dirOut])
		r.addI(ctx, mSysNetPackets, grow(&e.packets[dirIn], n.RxPackets), &e.aDev[dirIn])
		r.addI(ctx, mSysNetPackets, grow(&e.packets[dirOut], n.TxPackets), &e.aDev[dirOut])
		r.addI(ctx, mSysNetErrors, grow(&e.errs[dirIn], n.RxErrors), &e.aName[dirIn])
		r.addI(ctx, mSysNetErrors, grow(&e.errs[dirOut], n.TxErrors), &e.aName[dirOut])
	}
	st.ifaces.sweep(st.gen)
}

func newIface(name string) *iface {
	e := &iface{}
	for i, dir := range [2]attribute.KeyValue{semconv.NetworkIODirectionReceive, semconv.NetworkIODirectionTransmit} {
		e.aName[i] = newAttrs(semconv.NetworkInterfaceNameKey.String(name), dir)
		e.aDev[i] = newAttrs(semconv.SystemDeviceKey.String(name), dir)
	}
	return e
}

// pressure records the stall time of each resource and kind present in p.
func (r *Recorder) pressure(ctx context.Context, id int, c *[numPSI]fcounter, p *hostmetrics.PressureSet, cpuFull bool) {
	st := &r.sampleState
	for res, pr := range [3]*hostmetrics.Pressure{&p.CPU, &p.Memory, &p.IO} {
		if pr.HasSome {
			i := res*2 + 0
			r.addF(ctx, id, grow(&c[i], pr.Some.Seconds()), &st.aPSI[i])
		}
		if pr.HasFull && (res != 0 || cpuFull) {
			i := res*2 + 1
			r.addF(ctx, id, grow(&c[i], pr.Full.Seconds()), &st.aPSI[i])
		}
	}
}

func (r *Recorder) job(ctx context.Context, j *hostmetrics.Job) {
	st := &r.sampleState
	if j.HasTree {
		t := &j.Tree
		r.addF(ctx, mProcCPUTime, grow(&st.procCPU[0], t.CPUUser.Seconds()), &st.aMode[modeUser])
		r.addF(ctx, mProcCPUTime, grow(&st.procCPU[1], t.CPUSystem.Seconds()), &st.aMode[modeSystem])
		r.addLevel(ctx, mProcMemory, &st.procMem, t.RSS, &st.aNone)
		if t.HasIO {
			r.addI(ctx, mProcDiskIO, grow(&st.procIO[dirIn], t.ReadBytes), &st.aDisk[dirIn])
			r.addI(ctx, mProcDiskIO, grow(&st.procIO[dirOut], t.WriteBytes), &st.aDisk[dirOut])
		}
		r.addLevel(ctx, mProcThreads, &st.procThr, uint64(max(t.Threads, 0)), &st.aNone)
		r.addLevel(ctx, mProcCount, &st.procCount, uint64(max(t.Processes, 0)), &st.aNone)
	}
	if j.HasCgroup {
		c := &j.Cgroup
		if c.HasCPU {
			r.addF(ctx, mContCPUTime, grow(&st.contCPU[0], c.CPUUser.Seconds()), &st.aMode[modeUser])
			r.addF(ctx, mContCPUTime, grow(&st.contCPU[1], c.CPUSystem.Seconds()), &st.aMode[modeSystem])
		}
		if c.HasMemory {
			r.addLevel(ctx, mContMemory, &st.contMem, c.Memory, &st.aNone)
		}
		if c.HasIO {
			r.addI(ctx, mContDiskIO, grow(&st.contIO[dirIn], c.ReadBytes), &st.aDisk[dirIn])
			r.addI(ctx, mContDiskIO, grow(&st.contIO[dirOut], c.WriteBytes), &st.aDisk[dirOut])
		}
		r.pressure(ctx, mContPressure, &st.contPSI, &c.Pressure, true)
	}
}

func (r *Recorder) addF(ctx context.Context, id int, v float64, a *attrs) {
	if c := r.fc[id]; c != nil {
		c.Add(ctx, v, a.add...)
	}
}

func (r *Recorder) addI(ctx context.Context, id int, v uint64, a *attrs) {
	if c := r.ic[id]; c != nil {
		c.Add(ctx, int64(v), a.add...)
	}
}

// addLevel moves an up-down counter's sum to cur.
func (r *Recorder) addLevel(ctx context.Context, id int, l *level, cur uint64, a *attrs) {
	d := l.delta(int64(cur))
	if c := r.iu[id]; c != nil {
		c.Add(ctx, d, a.add...)
	}
}

func (r *Recorder) gauge(ctx context.Context, id int, v float64, a *attrs) {
	if g := r.fg[id]; g != nil {
		g.Record(ctx, v, a.rec...)
	}
}
