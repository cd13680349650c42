package summary

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/runmodel"
)

const (
	kib = 1024
	mib = 1024 * kib
	gib = 1024 * mib
)

var t0 = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func at(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }

// phaseUsage is a usage with every group the phase table shows.
func phaseUsage(cpu time.Duration, avg, peak float64, mem, read, write, rx, tx uint64) usage.Usage {
	return usage.Usage{
		NumCPU: 2, HasCPU: true, CPUUser: cpu * 3 / 4, CPUSystem: cpu / 4, CPUAvg: avg, CPUPeak: peak,
		HasMemory: true, MemoryPeak: mem,
		HasIO: true, ReadBytes: read, WriteBytes: write,
		HasNetwork: true, NetworkReceive: rx, NetworkTransmit: tx,
	}
}

type fixture struct {
	rec    *runmodel.Recorder
	mem    *tracetest.InMemoryExporter
	tracer trace.Tracer
	tp     *sdktrace.TracerProvider
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{rec: runmodel.NewRecorder(), mem: tracetest.NewInMemoryExporter()}
	f.tp = sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(f.rec), sdktrace.WithSyncer(f.mem))
	t.Cleanup(func() { f.tp.Shutdown(context.Background()) })
	f.tracer = f.tp.Tracer("test")
	return f
}

// jobSpan marks the job's span, as the session does.
var jobSpan = trace.WithAttributes(runmodel.AttrTaskName.String("job"))

// run is the model of the spans ended so far.
func (f *fixture) run(t *testing.T) *runmodel.Run {
	t.Helper()
	run, err := f.rec.Run(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// stats are the statistics of four samples a test of runmodel.Series
// feeds it (runmodel/series_test.go, ticks).
var stats = runmodel.JobStats{Samples: 4, NumCPU: 2,
	CPU:     runmodel.Stat{N: 2, Mean: 66.66666666666667, StdDev: 11.785113019775789, Peak: 75, HasPeak: true},
	HostCPU: runmodel.Stat{N: 2, Mean: 66.66666666666667, StdDev: 11.785113019775789, Peak: 75, HasPeak: true},
	Memory:  runmodel.Stat{N: 3, Mean: 2.4494735332037973e+08, StdDev: 5.1558669277749225e+07, Peak: 1.048576e+09, HasPeak: true},
	IOPS:    runmodel.Stat{N: 2, Mean: 166.66666666666669, StdDev: 47.140452079103156, Peak: 200, HasPeak: true},
	IO:      runmodel.Stat{N: 2, Mean: 1.7476266666666668e+07, StdDev: 4.943034667929768e+06, Peak: 2.097152e+07, HasPeak: true},
	Network: runmodel.Stat{N: 2, Mean: 1706.6666666666665, StdDev: 482.71822929001655, Peak: 2048, HasPeak: true},
	// The figures of the advice, as over the job's 92 s; its peak memory
	// is the job span's, 1.5 GiB.
	Sizing: sizing.Figures{Duration: 92 * time.Second, NumCPU: 2, HasCPU: true, CPUBusyP95: 1.6, CPUBusyPeak: 2, AboveOneCPU: 40 * time.Second},
}

// sampled is run with the statistics of samples.
func (f *fixture) sampled(t *testing.T) *runmodel.Run {
	t.Helper()
	run := f.run(t)
	run.SetStats(stats)
	return run
}

// span starts and ends a span under ctx from a to b seconds, with u's
// attributes when u is not nil, and returns its context.
func (f *fixture) span(ctx context.Context, name string, a, b float64, u *usage.Usage, failed string) context.Context {
	ctx, sp := f.tracer.Start(ctx, name, trace.WithTimestamp(at(a)))
	if u != nil {
		sp.SetAttributes(u.Attributes()...)
		sp.SetAttributes(fixtureVerdicts[name].Attributes()...)
	}
	if failed != "" {
		sp.SetStatus(codes.Error, failed)
	}
	sp.End(trace.WithTimestamp(at(b)))
	return ctx
}

// fixtureVerdicts are the verdicts the fixture's spans carry, as the
// session sets them beside the usage.
var fixtureVerdicts = map[string]verdict.Verdict{
	"checkout":       {Kind: verdict.Waiting, Reason: "used 0.25 of 2 CPUs and waited little for CPU, IO or memory"},
	"make":           {Kind: verdict.CPUBound, Reason: "kept 1.7 of 2 CPUs busy"},
	"compile | link": {Kind: verdict.CPUBound, Reason: "kept 1.7 of 2 CPUs busy"},
	"vet":            {Kind: verdict.CPUBound, Reason: "kept 1.5 of 2 CPUs busy"},
	"test":           {Kind: verdict.Starved, Reason: "waited for CPU 41% of the time while the machine was 98% busy, 0.6 CPUs by others, and the job used 1.4 CPUs"},
	"build":          {Kind: verdict.CPUBound, Reason: "kept 1.6 of 2 CPUs busy"},
}

// jobFixture is a job with nested phases, one failed, one without usage,
// one whose name holds a "|", and a job span that ends last.
func jobFixture(t *testing.T) (*fixture, trace.SpanID, usage.Usage) {
	f := newFixture(t)
	ctx, root := f.tracer.Start(context.Background(), "build", jobSpan, trace.WithTimestamp(at(0)))
	u := phaseUsage(500*time.Millisecond, 0.125, 0.3, 50*mib, 10*mib, 80*mib, 40*mib, 100*kib)
	f.span(ctx, "checkout", 0, 2, &u, "")
	bctx, build := f.tracer.Start(ctx, "make", trace.WithTimestamp(at(2)))
	u = phaseUsage(100*time.Second, 0.86, 1, 1536*mib, 300*mib, 900*mib, 2*mib, 1*mib)
	f.span(bctx, "compile | link", 2, 60, &u, "")
	u = phaseUsage(15*time.Second, 0.75, 0.9, 400*mib, 1*mib, 2*mib, 0, 0)
	f.span(bctx, "vet", 60, 70, &u, "")
	u = phaseUsage(115*time.Second, 0.85, 1, 1536*mib, 301*mib, 902*mib, 2*mib, 1*mib)
	build.SetAttributes(u.Attributes()...)
	build.SetAttributes(fixtureVerdicts["make"].Attributes()...)
	build.End(trace.WithTimestamp(at(70)))
	u = phaseUsage(30*time.Second, 0.68, 1, 700*mib, 5*mib, 10*mib, 0, 0)
	f.span(ctx, "test", 70, 92, &u, "exit status 1\nsee the log")
	f.span(ctx, "upload", 80, 81, nil, "")
	ju := phaseUsage(146*time.Second, 0.79, 1, 1536*mib, 316*mib, 992*mib, 42*mib, 1100*kib)
	root.SetAttributes(ju.Attributes()...)
	root.SetAttributes(fixtureVerdicts["build"].Attributes()...)
	root.End(trace.WithTimestamp(at(92)))
	return f, root.SpanContext().SpanID(), ju
}
