package usagemetrics

import (
	"bytes"
	"context"
	"go.opentelemetry.io/otel/metric"
	"sort"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/hostmetrics"
)

// rig is a Recorder on a MeterProvider with a manual reader, and a sampled
// span standing for the active phase.
type rig struct {
	t      *testing.T
	rec    *Recorder
	reader *sdkmetric.ManualReader
	ctx    context.Context // holds span
	span   trace.SpanContext
	warns  []string
	meter  metric.Meter
}

func newRig(t *testing.T) *rig {
	t.Helper()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tracetest.NewSpanRecorder()))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	ctx, span := tp.Tracer("test").Start(context.Background(), "compile")
	if !span.SpanContext().IsSampled() {
		t.Fatal("the test span is not sampled")
	}
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	r := &rig{t: t, reader: reader, ctx: ctx, span: span.SpanContext(), meter: mp.Meter("usagemetrics-test")}
	rec, err := New(mp.Meter("usagemetrics-test"), Options{
		Active: func() context.Context { return r.ctx },
		Warn:   func(s string) { r.warns = append(r.warns, s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	r.rec = rec
	return r
}

// collect returns the metrics by name.
func (r *rig) collect() map[string]metricdata.Metrics {
	r.t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		r.t.Fatal(err)
	}
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}

// point is one data point, whatever its type: value is the sum of a
// histogram.
type point struct {
	attrs     attribute.Set
	value     float64
	count     uint64 // histograms
	bounds    []float64
	exemplars []exemplar
}

type exemplar struct{ traceID, spanID []byte }

func exemplarsOf[N int64 | float64](es []metricdata.Exemplar[N]) []exemplar {
	var out []exemplar
	for _, e := range es {
		out = append(out, exemplar{e.TraceID, e.SpanID})
	}
	return out
}

func pointsOf(m metricdata.Metrics) []point {
	var out []point
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			out = append(out, point{attrs: p.Attributes, value: float64(p.Value), exemplars: exemplarsOf(p.Exemplars)})
		}
	case metricdata.Sum[float64]:
		for _, p := range d.DataPoints {
			out = append(out, point{attrs: p.Attributes, value: p.Value, exemplars: exemplarsOf(p.Exemplars)})
		}
	case metricdata.Gauge[float64]:
		for _, p := range d.DataPoints {
			out = append(out, point{attrs: p.Attributes, value: p.Value, exemplars: exemplarsOf(p.Exemplars)})
		}
	case metricdata.Histogram[float64]:
		for _, p := range d.DataPoints {
			out = append(out, point{attrs: p.Attributes, value: p.Sum, count: p.Count, bounds: p.Bounds, exemplars: exemplarsOf(p.Exemplars)})
		}
	case metricdata.Histogram[int64]:
		for _, p := range d.DataPoints {
			out = append(out, point{attrs: p.Attributes, value: float64(p.Sum), count: p.Count, bounds: p.Bounds, exemplars: exemplarsOf(p.Exemplars)})
		}
	}
	return out
}

// values returns a metric's points by their encoded attributes
// ("k=v,k2=v2", keys sorted).
func values(t *testing.T, ms map[string]metricdata.Metrics, name string) map[string]float64 {
	t.Helper()
	m, ok := ms[name]
	if !ok {
		t.Fatalf("no metric %s; have %v", name, names(ms))
	}
	out := map[string]float64{}
	for _, p := range pointsOf(m) {
		out[p.attrs.Encoded(attribute.DefaultEncoder())] = p.value
	}
	return out
}

func names(ms map[string]metricdata.Metrics) []string {
	var out []string
	for n := range ms {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func checkValues(t *testing.T, ms map[string]metricdata.Metrics, name string, want map[string]float64) {
	t.Helper()
	got := values(t, ms, name)
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			t.Errorf("%s{%s}: no data point; have %v", name, k, got)
			continue
		}
		if d := g - w; d > 1e-9 || d < -1e-9 {
			t.Errorf("%s{%s} = %v, want %v", name, k, g, w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s{%s}: unexpected data point %v", name, k, got[k])
		}
	}
}

func hasExemplarOf(p point, sc trace.SpanContext) bool {
	tid, sid := sc.TraceID(), sc.SpanID()
	for _, e := range p.exemplars {
		if bytes.Equal(e.traceID, tid[:]) && bytes.Equal(e.spanID, sid[:]) {
			return true
		}
	}
	return false
}

func psi(some, full time.Duration) hostmetrics.Pressure {
	return hostmetrics.Pressure{Some: some, Full: full, HasSome: true, HasFull: true}
}

// fullSample returns a sample with every group present. Its counters are
// base + step×k, so that two samples k=0 and k=1 differ by known steps.
func fullSample(k uint64) *hostmetrics.Sample {
	f := float64(k)
	d := time.Duration(k)
	s := &hostmetrics.Sample{Time: time.Unix(1000+int64(k), 0), Reason: hostmetrics.ReasonInterval}
	h := &s.Host
	h.NumCPU = 2
	h.HasCPU = true
	h.CPU = hostmetrics.CPUTimes{
		User: 100 + 1.0*f, Nice: 1 + 0.1*f, System: 50 + 0.5*f, Idle: 1000 + 0.2*f,
		IOWait: 10 + 0.05*f, IRQ: 2 + 0.05*f, SoftIRQ: 3 + 0.05*f, Steal: 0.05 * f,
	}
	h.HasMemory = true
	h.Memory = hostmetrics.Memory{
		Total: 1000, Used: 400 + 10*k, Free: 300 - 10*k, Available: 600 - 10*k,
		Buffers: 50, Cached: 200 + 5*k,
	}
	h.HasPaging = true
	h.Paging = hostmetrics.Paging{Minor: 1000 + 40*k, Major: 10 + 2*k}
	h.HasDisk = true
	h.Disks = []hostmetrics.Disk{
		{Name: "sda", Whole: true, DiskIO: hostmetrics.DiskIO{Reads: 10 + 3*k, Writes: 20 + 4*k, ReadBytes: 512 * (100 + 8*k), WrittenBytes: 512 * (200 + 16*k), IOTime: time.Second + 250*time.Millisecond*d}},
		{Name: "sda1", DiskIO: hostmetrics.DiskIO{Reads: 5 + 100*k, ReadBytes: 512 * (50 + 100*k)}},
		{Name: "loop0", Whole: true, Virtual: true, DiskIO: hostmetrics.DiskIO{Reads: 7 + 100*k}},
		{Name: "nvme0n1", Whole: true, DiskIO: hostmetrics.DiskIO{Reads: 1 + k, Writes: 1, ReadBytes: 512 * (8 + 8*k), WrittenBytes: 512 * 8}},
	}
	h.Disk = hostmetrics.DiskIO{} // not used by the recorder
	h.HasNet = true
	h.Ifaces = []hostmetrics.Iface{
		{Name: "lo", NetIO: hostmetrics.NetIO{RxBytes: 1000 + 100*k, TxBytes: 1000 + 100*k, RxPackets: 10 + k, TxPackets: 10 + k}},
		{Name: "eth0", NetIO: hostmetrics.NetIO{RxBytes: 5000 + 700*k, TxBytes: 3000 + 300*k, RxPackets: 50 + 7*k, TxPackets: 30 + 3*k, RxErrors: 1 + k, TxErrors: 2}},
	}
	h.HasLoad = true
	h.Load = hostmetrics.Load{Load1: 1.5 + f, Load5: 1.0 + f, Load15: 0.5 + f}
	h.HasFS = true
	h.FS = hostmetrics.Filesystem{Path: "/work", Total: 1000, Used: 600 + 10*k, Free: 300 - 10*k, Reserved: 100}
	h.Pressure = hostmetrics.PressureSet{
		CPU:    psi(time.Second+100*time.Millisecond*d, 0),
		Memory: psi(2*time.Second+200*time.Millisecond*d, time.Second+50*time.Millisecond*d),
		IO:     psi(3*time.Second+300*time.Millisecond*d, 2*time.Second+150*time.Millisecond*d),
	}
	j := &s.Job
	j.HasTree = true
	j.Tree = hostmetrics.Tree{
		Processes: 3 + int(k), Threads: 7 + 2*int(k),
		CPUUser: 2*time.Second + 500*time.Millisecond*d, CPUSystem: time.Second + 250*time.Millisecond*d,
		RSS: 1<<20 + 4096*k, HasIO: true, ReadBytes: 4096 + 4096*k, WriteBytes: 8192 + 1024*k, Roots: 1,
	}
	j.HasCgroup, j.CgroupOwn = true, true
	j.Cgroup = hostmetrics.Cgroup{
		HasCPU:    true,
		CPU:       3*time.Second + 750*time.Millisecond*d,
		CPUUser:   2*time.Second + 500*time.Millisecond*d,
		CPUSystem: time.Second + 250*time.Millisecond*d,
		HasMemory: true, Memory: 2<<20 + 8192*k,
		HasIO: true, ReadBytes: 4096 + 512*k, WriteBytes: 8192 + 2048*k,
		Pressure: hostmetrics.PressureSet{
			CPU:    psi(time.Second+10*time.Millisecond*d, 500*time.Millisecond+5*time.Millisecond*d),
			Memory: hostmetrics.Pressure{Some: time.Second + 20*time.Millisecond*d, HasSome: true},
		},
	}
	return s
}
