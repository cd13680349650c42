package usagemetrics

import (
	"context"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/insight/verdict"
)

// BenchmarkSample measures one Sample call in steady state: a full sample
// (4 disk lines of which 2 are recorded, 2 interfaces, host and cgroup
// pressure, tree and cgroup) whose counters move at every call, recorded
// with a sampled span in the context ("exemplars") or none.
//
//	go test -run - -bench Sample -benchmem ./exporters/usagemetrics
func BenchmarkSample(b *testing.B) {
	for _, tc := range []struct {
		name   string
		active bool
	}{{"exemplars", true}, {"no-span", false}} {
		b.Run(tc.name, func(b *testing.B) {
			ctx := context.Background()
			if tc.active {
				tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tracetest.NewSpanRecorder()))
				defer func() { _ = tp.Shutdown(context.Background()) }()
				c, sp := tp.Tracer("bench").Start(ctx, "compile")
				defer sp.End()
				ctx = c
			}
			reader := sdkmetric.NewManualReader()
			mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
			defer func() { _ = mp.Shutdown(context.Background()) }()
			rec, err := New(mp.Meter("bench"), Options{Active: func() context.Context { return ctx }})
			if err != nil {
				b.Fatal(err)
			}
			s := fullSample(0)
			rec.Sample(s)
			advance(s)
			rec.Sample(s) // every series exists from here on
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				advance(s)
				rec.Sample(s)
			}
			b.StopTimer()
			var rm metricdata.ResourceMetrics
			if err := reader.Collect(context.Background(), &rm); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// advance moves the counters of s forward, in place.
func advance(s *hostmetrics.Sample) {
	s.Time = s.Time.Add(time.Second)
	h := &s.Host
	h.CPU.User += 0.5
	h.CPU.System += 0.25
	h.CPU.Idle += 1.2
	h.Memory.Used += 4096
	h.Memory.Free -= 4096
	h.Paging.Minor += 100
	for i := range h.Disks {
		h.Disks[i].ReadBytes += 4096
		h.Disks[i].Reads++
		h.Disks[i].IOTime += time.Millisecond
	}
	for i := range h.Ifaces {
		h.Ifaces[i].RxBytes += 1500
		h.Ifaces[i].RxPackets++
	}
	h.Pressure.IO.Some += time.Millisecond
	h.Load.Load1 += 0.01
	j := &s.Job
	j.Tree.CPUUser += 10 * time.Millisecond
	j.Tree.RSS += 4096
	j.Tree.ReadBytes += 4096
	j.Cgroup.CPUUser += 10 * time.Millisecond
	j.Cgroup.Memory += 4096
	j.Cgroup.ReadBytes += 4096
}

// BenchmarkPhase measures Phase for a name seen before.
func BenchmarkPhase(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(tracetest.NewSpanRecorder()))
	defer func() { _ = tp.Shutdown(context.Background()) }()
	ctx, sp := tp.Tracer("bench").Start(context.Background(), "compile")
	defer sp.End()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader()))
	defer func() { _ = mp.Shutdown(context.Background()) }()
	rec, err := New(mp.Meter("bench"), Options{})
	if err != nil {
		b.Fatal(err)
	}
	u := fullUsage
	rec.Phase(ctx, "compile", "success", &u, verdict.Verdict{Kind: verdict.CPUBound})
	b.ReportAllocs()
	for b.Loop() {
		rec.Phase(ctx, "compile", "success", &u, verdict.Verdict{Kind: verdict.CPUBound})
	}
}
