package session

import (
	"context"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/jobtrace/jobtrace/exporters/usagemetrics"
	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/internal/figure"
	"github.com/jobtrace/jobtrace/internal/metrictest"
	"github.com/jobtrace/jobtrace/runmodel"
	"github.com/jobtrace/jobtrace/spans"
)

// A phase's duration is its span's, whatever the window of samples its
// usage was taken over: a phase added after it ended, 0.5 s long, whose
// usage spans the 10 s between the samples around it, is 0.5 s long in
// the jobtrace.phase.duration metric and too short for the verdict. Before,
// both took the window's 10 s, and the verdict judged it.
func TestPhaseDurationIsItsSpans(t *testing.T) {
	t0 := time.Date(2026, 6, 7, 8, 9, 10, 0, time.UTC)
	var mu sync.Mutex
	now := t0
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	reader := metrictest.New(t)
	rec, err := usagemetrics.New(reader.Meter, usagemetrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := newPhaseUsage()
	var u usage.Usage
	var v verdict.Verdict
	p.onEnd = func(ctx context.Context, name, result string, pu *usage.Usage, pv verdict.Verdict) {
		u, v = *pu, pv
		rec.Phase(ctx, name, result, pu, pv)
	}
	sampler := hostmetrics.NewSampler(&linearSource{t0: t0}, hostmetrics.Options{Interval: -1, Sinks: []hostmetrics.Sink{p}, Now: clock})
	p.sampler = sampler
	sampler.Start() // the first sample, at t0
	defer sampler.Stop()
	mu.Lock()
	now = t0.Add(10 * time.Second)
	mu.Unlock()

	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	ctx, sp := tp.Tracer("test").Start(context.Background(), "tests")
	p.PhaseAdded(spans.Boundary{Ctx: ctx, Span: sp, Name: "tests", Start: t0.Add(4 * time.Second), Time: t0.Add(4500 * time.Millisecond)})()

	if u.Duration != 500*time.Millisecond || u.Samples != 2 {
		t.Errorf("duration %v over %d samples, want the span's 500ms (the window's 10 s between 2 samples)", u.Duration, u.Samples)
	}
	if v.Kind != verdict.TooShort {
		t.Errorf("verdict %s %q, want %s", v.Kind, v.Reason, verdict.TooShort)
	}
	h, _ := reader.Collect(t)["jobtrace.phase.duration"].Data.(metricdata.Histogram[float64])
	if len(h.DataPoints) != 1 || h.DataPoints[0].Sum != 0.5 {
		t.Errorf("jobtrace.phase.duration recorded %+v, want 0.5 s", h.DataPoints)
	}
}

// The job's duration is from its start to its exit, whatever the time
// jobtrace's shutdown takes after it (its span ends after that) and
// whatever time its samples cover: the job's span says it
// (runmodel.AttrJobDuration), so that the model read back from the
// artifacts has the summary's figure, and the advice judges by it. A job
// that exited 12 s after its start, shut down 8 s later and sampled over a
// few milliseconds, ran 12 s in the summary, in the model and in the
// advice. Before, the model took its span's 20 s, and the advice the
// milliseconds of its samples: too short to size.
func TestJobDurationIsToItsExit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	t0 := time.Now().Add(-20 * time.Second)
	var log syncBuffer
	set := boundarySampled(dir, &log)
	set.Start, set.hooks.source = t0, &linearSource{t0: t0}
	s := New(set)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	const took = 12 * time.Second
	if _, err := s.Shutdown(context.Background(), Outcome{Ended: t0.Add(took)}); err != nil {
		t.Fatal(err)
	}
	run, warn, err := runmodel.ReadDir(dir)
	if err != nil || warn != nil || !run.HasJob {
		t.Fatal(err, warn, run.HasJob)
	}
	if d := run.Job.Usage.Duration; d != took {
		t.Errorf("the model's job duration %v, want %v (its span's %v)", d, took, run.Job.End.Sub(run.Job.Start))
	}
	if a := run.Advice(); a.Duration != took || a.Kind == sizing.TooShort {
		t.Errorf("the advice %s %q over %v, want it over the job's %v", a.Kind, a.Text, a.Duration, took)
	}
	if want := " after " + figure.Duration(took); strings.Count(log.String(), want) != 2 {
		t.Errorf("the summary and the last line do not both say %q:\n%s", want, log.String())
	}
}
