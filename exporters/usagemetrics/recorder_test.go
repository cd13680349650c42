package usagemetrics

import (
	"context"
	"go.opentelemetry.io/otel/metric"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/insight/verdict"
)

func TestTableIsComplete(t *testing.T) {
	if len(table) != numMetrics {
		t.Fatalf("table has %d metrics, the constants %d", len(table), numMetrics)
	}
	seen := map[string]bool{}
	for i, m := range table {
		if m.Name == "" || m.Unit == "" || m.Kind == 0 || m.Description == "" {
			t.Errorf("table[%d] (%q) is incomplete: %+v", i, m.Name, m)
		}
		if seen[m.Name] {
			t.Errorf("%s is declared twice", m.Name)
		}
		seen[m.Name] = true
		if (m.Kind == Histogram) != (len(m.Buckets) > 0) {
			t.Errorf("%s: buckets %v for a %s", m.Name, m.Buckets, m.Kind)
		}
		// No convention, no convention-like name.
		if !strings.HasPrefix(m.Name, "jobtrace.") {
			for _, k := range m.Attributes {
				if strings.HasPrefix(string(k), "jobtrace.") {
					t.Errorf("%s has a convention name and a jobtrace attribute %s", m.Name, k)
				}
			}
		}
	}
}

func TestSampleDeltasAndLevels(t *testing.T) {
	r := newRig(t)
	r.rec.Sample(fullSample(0))
	r.rec.Sample(fullSample(1))
	r.rec.Sample(fullSample(3)) // counters: sums are base(3) − base(0)
	ms := r.collect()

	checkValues(t, ms, "system.cpu.time", map[string]float64{
		"cpu.mode=user": 3, "cpu.mode=nice": 0.3, "cpu.mode=system": 1.5, "cpu.mode=idle": 0.6,
		"cpu.mode=iowait": 0.15, "cpu.mode=interrupt": 0.3, "cpu.mode=steal": 0.15,
	})
	// Utilisation over the last interval (k 1 → 3): each mode's step over
	// the sum of the steps per unit of k, 1+0.1+0.5+0.2+0.05+0.1+0.05.
	total := 2.0
	checkValues(t, ms, "system.cpu.utilization", map[string]float64{
		"cpu.mode=user": 1 / total, "cpu.mode=nice": 0.1 / total, "cpu.mode=system": 0.5 / total,
		"cpu.mode=idle": 0.2 / total, "cpu.mode=iowait": 0.05 / total, "cpu.mode=interrupt": 0.1 / total,
		"cpu.mode=steal": 0.05 / total,
	})
	checkValues(t, ms, "system.memory.usage", map[string]float64{
		"system.memory.state=used": 430, "system.memory.state=free": 270,
		"system.memory.state=buffers": 50, "system.memory.state=cached": 215,
	})
	checkValues(t, ms, "system.memory.utilization", map[string]float64{
		"system.memory.state=used": 0.43, "system.memory.state=free": 0.27,
		"system.memory.state=buffers": 0.05, "system.memory.state=cached": 0.215,
	})
	checkValues(t, ms, "system.paging.faults", map[string]float64{
		"system.paging.fault.type=minor": 120, "system.paging.fault.type=major": 6,
	})
	// Whole, non-virtual disks only: no sda1, no loop0.
	checkValues(t, ms, "system.disk.io", map[string]float64{
		"disk.io.direction=read,system.device=sda": 24 * 512, "disk.io.direction=write,system.device=sda": 48 * 512,
		"disk.io.direction=read,system.device=nvme0n1": 24 * 512, "disk.io.direction=write,system.device=nvme0n1": 0,
	})
	checkValues(t, ms, "system.disk.operations", map[string]float64{
		"disk.io.direction=read,system.device=sda": 9, "disk.io.direction=write,system.device=sda": 12,
		"disk.io.direction=read,system.device=nvme0n1": 3, "disk.io.direction=write,system.device=nvme0n1": 0,
	})
	checkValues(t, ms, "system.disk.io_time", map[string]float64{
		"system.device=sda": 0.75, "system.device=nvme0n1": 0,
	})
	checkValues(t, ms, "system.network.io", map[string]float64{
		"network.interface.name=lo,network.io.direction=receive": 300, "network.interface.name=lo,network.io.direction=transmit": 300,
		"network.interface.name=eth0,network.io.direction=receive": 2100, "network.interface.name=eth0,network.io.direction=transmit": 900,
	})
	checkValues(t, ms, "system.network.packet.count", map[string]float64{
		"network.io.direction=receive,system.device=lo": 3, "network.io.direction=transmit,system.device=lo": 3,
		"network.io.direction=receive,system.device=eth0": 21, "network.io.direction=transmit,system.device=eth0": 9,
	})
	checkValues(t, ms, "system.network.errors", map[string]float64{
		"network.interface.name=lo,network.io.direction=receive": 0, "network.interface.name=lo,network.io.direction=transmit": 0,
		"network.interface.name=eth0,network.io.direction=receive": 3, "network.interface.name=eth0,network.io.direction=transmit": 0,
	})
	checkValues(t, ms, "system.filesystem.usage", map[string]float64{
		"system.filesystem.state=used": 630, "system.filesystem.state=free": 270, "system.filesystem.state=reserved": 100,
	})
	checkValues(t, ms, "jobtrace.system.cpu.load_average.1m", map[string]float64{"": 4.5})
	checkValues(t, ms, "jobtrace.system.cpu.load_average.5m", map[string]float64{"": 4})
	checkValues(t, ms, "jobtrace.system.cpu.load_average.15m", map[string]float64{"": 3.5})
	// No cpu/full machine-wide.
	checkValues(t, ms, "jobtrace.system.pressure.stall", map[string]float64{
		"jobtrace.pressure.kind=some,jobtrace.pressure.resource=cpu":    0.3,
		"jobtrace.pressure.kind=some,jobtrace.pressure.resource=memory": 0.6,
		"jobtrace.pressure.kind=full,jobtrace.pressure.resource=memory": 0.15,
		"jobtrace.pressure.kind=some,jobtrace.pressure.resource=io":     0.9,
		"jobtrace.pressure.kind=full,jobtrace.pressure.resource=io":     0.45,
	})

	checkValues(t, ms, "process.cpu.time", map[string]float64{"cpu.mode=user": 1.5, "cpu.mode=system": 0.75})
	checkValues(t, ms, "process.memory.usage", map[string]float64{"": 1<<20 + 3*4096})
	checkValues(t, ms, "process.disk.io", map[string]float64{"disk.io.direction=read": 3 * 4096, "disk.io.direction=write": 3 * 1024})
	checkValues(t, ms, "process.thread.count", map[string]float64{"": 13})
	checkValues(t, ms, "jobtrace.process.count", map[string]float64{"": 6})

	checkValues(t, ms, "container.cpu.time", map[string]float64{"cpu.mode=user": 1.5, "cpu.mode=system": 0.75})
	checkValues(t, ms, "container.memory.usage", map[string]float64{"": 2<<20 + 3*8192})
	checkValues(t, ms, "container.disk.io", map[string]float64{"disk.io.direction=read": 3 * 512, "disk.io.direction=write": 3 * 2048})
	// The cgroup has cpu full; memory only some; no io.pressure.
	checkValues(t, ms, "jobtrace.container.pressure.stall", map[string]float64{
		"jobtrace.pressure.kind=some,jobtrace.pressure.resource=cpu":    0.03,
		"jobtrace.pressure.kind=full,jobtrace.pressure.resource=cpu":    0.015,
		"jobtrace.pressure.kind=some,jobtrace.pressure.resource=memory": 0.06,
	})

	// Per-phase metrics appear only when a phase ends.
	for _, n := range []string{"jobtrace.phase.duration", "jobtrace.phase.cpu.time", "jobtrace.phase.memory.peak", "jobtrace.phase.disk.io"} {
		if _, ok := ms[n]; ok {
			t.Errorf("%s recorded without a phase", n)
		}
	}
	if len(r.warns) > 0 {
		t.Errorf("warnings: %q", r.warns)
	}
}

// TestFirstSampleIsBaseline: one sample gives counters at 0 and levels and
// gauges at their value; no utilisation yet (it needs two samples).
func TestFirstSampleIsBaseline(t *testing.T) {
	r := newRig(t)
	r.rec.Sample(fullSample(5))
	ms := r.collect()
	for name, m := range ms {
		kind := lookup(t, name).Kind
		for _, p := range pointsOf(m) {
			if kind == Counter && p.value != 0 {
				t.Errorf("%s{%s} = %v after one sample, want 0", name, p.attrs.Encoded(attribute.DefaultEncoder()), p.value)
			}
		}
	}
	if _, ok := ms["system.cpu.utilization"]; ok {
		t.Error("system.cpu.utilization recorded from a single sample")
	}
	checkValues(t, ms, "process.thread.count", map[string]float64{"": 17})
	checkValues(t, ms, "jobtrace.system.cpu.load_average.1m", map[string]float64{"": 6.5})
}

func lookup(t *testing.T, name string) Metric {
	t.Helper()
	for _, m := range table {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("%s is not in table", name)
	return Metric{}
}

// TestKindsUnitsAttributes checks every collected metric against its table
// entry: unit, description, data type, monotonicity, attribute keys, and
// that every data point has an exemplar of the active span.
func TestKindsUnitsAttributes(t *testing.T) {
	r := newRig(t)
	r.rec.Sample(fullSample(0))
	r.rec.Sample(fullSample(1))
	r.rec.Phase(r.ctx, "compile", "success", &fullUsage, verdict.Verdict{Kind: verdict.CPUBound})
	r.rec.Job(r.ctx, "success", &fullUsage)
	dropped, err := NewDropped(r.meter)
	if err != nil {
		t.Fatal(err)
	}
	dropped.Add(r.ctx, 3, metric.WithAttributes(AttrDroppedWhat.String("socket_messages")))
	ms := r.collect()

	for _, m := range table {
		if _, ok := ms[m.Name]; !ok {
			t.Errorf("%s: not recorded from a full sample and a phase", m.Name)
		}
	}
	for name, got := range ms {
		m := lookup(t, name)
		if got.Unit != m.Unit || got.Description != m.Description {
			t.Errorf("%s: unit %q description %q, want %q %q", name, got.Unit, got.Description, m.Unit, m.Description)
		}
		checkKind(t, m, got)
		for _, p := range pointsOf(got) {
			checkKeys(t, m, p.attrs)
			if !hasExemplarOf(p, r.span) {
				t.Errorf("%s{%s}: no exemplar of the active span; exemplars %v", name, p.attrs.Encoded(attribute.DefaultEncoder()), p.exemplars)
			}
			if m.Kind == Histogram && !slices.Equal(p.bounds, m.Buckets) {
				t.Errorf("%s: bounds %v, want %v", name, p.bounds, m.Buckets)
			}
		}
	}
}

func checkKind(t *testing.T, m Metric, got metricdata.Metrics) {
	t.Helper()
	ok := false
	switch d := got.Data.(type) {
	case metricdata.Sum[int64]:
		ok = m.Number == Int64 && (m.Kind == Counter && d.IsMonotonic || m.Kind == UpDownCounter && !d.IsMonotonic)
		ok = ok && d.Temporality == metricdata.CumulativeTemporality
	case metricdata.Sum[float64]:
		ok = m.Number == Float64 && (m.Kind == Counter && d.IsMonotonic || m.Kind == UpDownCounter && !d.IsMonotonic)
		ok = ok && d.Temporality == metricdata.CumulativeTemporality
	case metricdata.Gauge[float64]:
		ok = m.Number == Float64 && m.Kind == Gauge
	case metricdata.Histogram[float64]:
		ok = m.Number == Float64 && m.Kind == Histogram
	case metricdata.Histogram[int64]:
		ok = m.Number == Int64 && m.Kind == Histogram
	}
	if !ok {
		t.Errorf("%s: data %T, want a %s of %v", m.Name, got.Data, m.Kind, m.Number)
	}
}

// checkKeys: a data point carries exactly the table's keys, but
// system.filesystem.usage's system.device, which is there only when known.
func checkKeys(t *testing.T, m Metric, set attribute.Set) {
	t.Helper()
	want := map[attribute.Key]bool{}
	for _, k := range m.Attributes {
		want[k] = true
	}
	for _, kv := range set.ToSlice() {
		if !want[kv.Key] {
			t.Errorf("%s: attribute %s not declared", m.Name, kv.Key)
		}
		delete(want, kv.Key)
	}
	if m.Name == "system.filesystem.usage" {
		delete(want, "system.device")
	}
	for k := range want {
		t.Errorf("%s{%s}: no %s", m.Name, set.Encoded(attribute.DefaultEncoder()), k)
	}
}

// TestAbsentGroups: a group a sample lacks makes no data points, never
// zeros.
func TestAbsentGroups(t *testing.T) {
	t.Run("nothing", func(t *testing.T) {
		r := newRig(t)
		r.rec.Sample(&hostmetrics.Sample{})
		r.rec.Sample(&hostmetrics.Sample{})
		if ms := r.collect(); len(ms) != 0 {
			t.Errorf("metrics from empty samples: %v", names(ms))
		}
	})
	t.Run("cpu only", func(t *testing.T) {
		r := newRig(t)
		for k := range uint64(2) {
			full := fullSample(k)
			s := &hostmetrics.Sample{Time: full.Time}
			s.Host.HasCPU, s.Host.CPU = true, full.Host.CPU
			s.Host.Disks, s.Host.Ifaces = full.Host.Disks, full.Host.Ifaces // present but not flagged
			r.rec.Sample(s)
		}
		got := names(r.collect())
		if strings.Join(got, " ") != "system.cpu.time system.cpu.utilization" {
			t.Errorf("metrics %v, want only system.cpu.time and system.cpu.utilization", got)
		}
	})
	t.Run("no job", func(t *testing.T) {
		r := newRig(t)
		s := fullSample(0)
		s.Job = hostmetrics.Job{}
		s.Host.Pressure = hostmetrics.PressureSet{}
		r.rec.Sample(s)
		for _, n := range names(r.collect()) {
			if strings.HasPrefix(n, "process.") || strings.HasPrefix(n, "container.") ||
				strings.HasPrefix(n, "jobtrace.process") || strings.Contains(n, "pressure") {
				t.Errorf("%s recorded without its group", n)
			}
		}
	})
	t.Run("tree without io, cgroup without memory", func(t *testing.T) {
		r := newRig(t)
		s := fullSample(0)
		s.Job.Tree.HasIO = false
		s.Job.Cgroup.HasMemory = false
		r.rec.Sample(s)
		ms := r.collect()
		for _, n := range []string{"process.disk.io", "container.memory.usage"} {
			if _, ok := ms[n]; ok {
				t.Errorf("%s recorded though absent", n)
			}
		}
		if _, ok := ms["process.cpu.time"]; !ok {
			t.Error("process.cpu.time missing")
		}
	})
}

// TestCountersTakeTheRule: a counter grows by the changes of its readings
// by monotonic's rule. A reading below the last is a reset, which adds
// nothing, and the series grows again from it; a disk that goes away
// starts again from a new baseline.
func TestCountersTakeTheRule(t *testing.T) {
	r := newRig(t)
	cgroupIO := func(read uint64) *hostmetrics.Sample {
		s := &hostmetrics.Sample{}
		s.Job.HasCgroup = true
		s.Job.Cgroup.HasIO = true
		s.Job.Cgroup.ReadBytes = read
		return s
	}
	// io.stat loses a device's line (10 to 5): the change is unknown, and
	// the next counts from 5: 3 + 3. (Held at its highest, the counter
	// would count 1; with the drop taken as a change, 1 too.)
	for _, v := range []uint64{10, 5, 8, 11} {
		r.rec.Sample(cgroupIO(v))
	}
	checkValues(t, r.collect(), "container.disk.io", map[string]float64{"disk.io.direction=read": 6, "disk.io.direction=write": 0})

	r = newRig(t)
	disk := func(sectors uint64, present bool) *hostmetrics.Sample {
		s := &hostmetrics.Sample{}
		s.Host.HasDisk = true
		if present {
			s.Host.Disks = []hostmetrics.Disk{{Name: "sdb", Whole: true, DiskIO: hostmetrics.DiskIO{ReadBytes: 512 * sectors}}}
		}
		return s
	}
	r.rec.Sample(disk(100, true))
	r.rec.Sample(disk(110, true)) // +10
	r.rec.Sample(disk(0, false))  // gone
	r.rec.Sample(disk(4, true))   // back, counting from 0: baseline
	r.rec.Sample(disk(9, true))   // +5
	checkValues(t, r.collect(), "system.disk.io", map[string]float64{
		"disk.io.direction=read,system.device=sdb": 15 * 512, "disk.io.direction=write,system.device=sdb": 0,
	})
}

// TestFilesystemDevice: the device is an attribute when known, and a new
// device moves the sums off the old series.
func TestFilesystemDevice(t *testing.T) {
	r := newRig(t)
	s := fullSample(0)
	r.rec.Sample(s)
	s.Host.FS.Device = "/dev/sda1"
	r.rec.Sample(s)
	checkValues(t, r.collect(), "system.filesystem.usage", map[string]float64{
		"system.filesystem.state=used": 0, "system.filesystem.state=free": 0, "system.filesystem.state=reserved": 0,
		"system.device=/dev/sda1,system.filesystem.state=used":     600,
		"system.device=/dev/sda1,system.filesystem.state=free":     300,
		"system.device=/dev/sda1,system.filesystem.state=reserved": 100,
	})
}

func TestMaxDevices(t *testing.T) {
	r := newRig(t)
	s := &hostmetrics.Sample{}
	s.Host.HasNet = true
	for i := range MaxDevices + 3 {
		s.Host.Ifaces = append(s.Host.Ifaces, hostmetrics.Iface{Name: "veth" + string(rune('a'+i/26/26%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i%26))})
	}
	r.rec.Sample(s)
	r.rec.Sample(s)
	if n := len(values(t, r.collect(), "system.network.io")); n != 2*MaxDevices {
		t.Errorf("%d series, want %d", n, 2*MaxDevices)
	}
	if len(r.warns) != 1 || !strings.Contains(r.warns[0], "network interfaces") {
		t.Errorf("warnings %q, want one about interfaces", r.warns)
	}
}

// TestDisabled: a disabled metric has no instrument and no data.
func TestDisabled(t *testing.T) {
	table[mSysCPUTime].Enabled = false
	defer func() { table[mSysCPUTime].Enabled = true }()
	r := newRig(t)
	r.rec.Sample(fullSample(0))
	r.rec.Sample(fullSample(1))
	ms := r.collect()
	if _, ok := ms["system.cpu.time"]; ok {
		t.Error("system.cpu.time recorded while disabled")
	}
	if _, ok := ms["system.cpu.utilization"]; !ok {
		t.Error("system.cpu.utilization missing")
	}
}

// TestNoActiveSpan: without Active, measurements carry no exemplar of a
// span (the trace-based filter offers none).
func TestNoActiveSpan(t *testing.T) {
	r := newRig(t)
	r.rec.opts.Active = nil
	r.rec.Sample(fullSample(0))
	r.ctx = nil
	r.rec.opts.Active = func() context.Context { return r.ctx }
	r.rec.Sample(fullSample(1)) // nil context: Background
	for name, m := range r.collect() {
		for _, p := range pointsOf(m) {
			if len(p.exemplars) > 0 {
				t.Errorf("%s: exemplars without a span: %v", name, p.exemplars)
			}
		}
	}
}

// TestConcurrentSampleAndPhase: Sample runs in the sampler's goroutine while
// phases end in others (run with -race).
func TestConcurrentSampleAndPhase(t *testing.T) {
	r := newRig(t)
	r.rec.opts.Warn = nil
	done := make(chan struct{})
	go func() {
		defer close(done)
		for k := range uint64(50) {
			r.rec.Sample(fullSample(k))
		}
	}()
	u := fullUsage
	for i := range 50 {
		r.rec.Phase(r.ctx, []string{"compile", "test"}[i%2], "success", &u, verdict.Verdict{})
	}
	<-done
	ms := r.collect()
	checkValues(t, ms, "process.thread.count", map[string]float64{"": 7 + 2*49})
	var n uint64
	for _, p := range pointsOf(ms["jobtrace.phase.duration"]) {
		n += p.count
	}
	if n != 50 {
		t.Errorf("%d phases recorded, want 50", n)
	}
}

// system.disk.io has a series for each disk that counts in the host's
// disk IO (hostmetrics.Disk.InHostTotal), and for no other device: the
// bytes of its series add up to the host's, the figure every artifact
// shows as the machine's disk IO.
func TestDiskSeriesAreTheHostsDisks(t *testing.T) {
	r := newRig(t)
	disks := func(k uint64) []hostmetrics.Disk {
		return []hostmetrics.Disk{
			{Name: "sda", Whole: true, DiskIO: hostmetrics.DiskIO{ReadBytes: 1000 * k}},
			{Name: "sda1", DiskIO: hostmetrics.DiskIO{ReadBytes: 1000 * k}},
			{Name: "loop0", Whole: true, Virtual: true, DiskIO: hostmetrics.DiskIO{ReadBytes: 300 * k}},
			{Name: "dm-0", Virtual: true, DiskIO: hostmetrics.DiskIO{ReadBytes: 70 * k}},
			{Name: "nvme0n1", Whole: true, DiskIO: hostmetrics.DiskIO{ReadBytes: 20 * k}},
		}
	}
	var want float64
	devices := map[string]bool{}
	for k := range uint64(3) {
		s := &hostmetrics.Sample{Time: time.Unix(1000+int64(k), 0), Reason: hostmetrics.ReasonInterval}
		s.Host.HasDisk, s.Host.Disks = true, disks(k)
		r.rec.Sample(s)
		for i, d := range s.Host.Disks {
			if d.InHostTotal() && k > 0 {
				want += float64(d.ReadBytes - disks(k - 1)[i].ReadBytes)
				devices[d.Name] = true
			}
		}
	}
	var got float64
	for _, p := range pointsOf(r.collect()["system.disk.io"]) {
		dev, _ := p.attrs.Value("system.device")
		if !devices[dev.AsString()] {
			t.Errorf("a series of %s, which the host's disk IO leaves out", dev.AsString())
		}
		if dir, _ := p.attrs.Value("disk.io.direction"); dir.AsString() == "read" {
			got += p.value
		}
	}
	if got != want || len(devices) != 2 {
		t.Errorf("system.disk.io read %v bytes over %v, want the host's %v", got, devices, want)
	}
}

// A sample's measurements carry exemplars of the phase that ran over the
// time its figures cover, the phase active at the sample before: a
// sample at a phase boundary points at the phase that ran up to it, as
// resource-usage.csv gives a boundary row's figures to the phase before
// (docs/csv.md). Before, it pointed at the phase begun at the boundary.
func TestBoundarySampleExemplarIsThePhaseBefore(t *testing.T) {
	r := newRig(t)
	before := r.span
	tp := sdktrace.NewTracerProvider()
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	ctxAfter, sp := tp.Tracer("test").Start(context.Background(), "test")
	after := sp.SpanContext()

	r.rec.Sample(fullSample(0)) // the phase before is active
	r.collect()                 // the next measurements take the reservoirs' first places
	r.ctx = ctxAfter
	s := fullSample(1)
	s.Reason = hostmetrics.ReasonBoundary
	r.rec.Sample(s)
	for name, m := range r.collect() {
		for _, p := range pointsOf(m) {
			if !hasExemplarOf(p, before) || hasExemplarOf(p, after) {
				t.Errorf("boundary sample: %s{%s}: exemplars %v, want the phase before's alone", name, p.attrs.Encoded(attribute.DefaultEncoder()), p.exemplars)
			}
		}
	}
	r.rec.Sample(fullSample(2))
	for name, m := range r.collect() {
		for _, p := range pointsOf(m) {
			if !hasExemplarOf(p, after) {
				t.Errorf("the sample after: %s{%s}: exemplars %v, want the phase begun at the boundary", name, p.attrs.Encoded(attribute.DefaultEncoder()), p.exemplars)
			}
		}
	}
}
