package session

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/supervise"
)

// linearSource is a job whose figures are known at every instant, as a
// fixture is: from t0 it uses half a CPU (of two), writes 1000 bytes a
// second, and has 100 bytes of memory in use plus the milliseconds since
// t0 (so the latest sample of a window holds its peak). It records when it
// was read.
type linearSource struct {
	t0 time.Time
	mu sync.Mutex
	at []time.Time
}

func (l *linearSource) Read(s *hostmetrics.Sample) error {
	l.mu.Lock()
	l.at = append(l.at, s.Time)
	l.mu.Unlock()
	d := s.Time.Sub(l.t0)
	s.Host.NumCPU = 2
	s.Job.HasCgroup, s.Job.CgroupOwn = true, true
	c := &s.Job.Cgroup
	c.HasCPU, c.CPUUser, c.CPUSystem = true, d/2, 0
	c.HasMemory, c.Memory = true, 100+uint64(d.Milliseconds())
	c.HasIO, c.WriteBytes = true, uint64(d.Seconds()*1000)
	return nil
}

func (l *linearSource) times() []time.Time {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]time.Time(nil), l.at...)
}

func (*linearSource) SetJob(int)                      {}
func (*linearSource) JobOutsideCgroup()               {}
func (*linearSource) JobExited(hostmetrics.ExitUsage) {}
func (*linearSource) Unavailable() string             { return "" }
func (*linearSource) Close() error                    { return nil }

// A phase added after it ended is a child of the job's span with the times
// and result given, and its usage is that of the samples the session took
// around it: from the last at or before its start to the first at or after
// its end, the times of which the span names.
func TestAddPhaseUsageFromHeldSamples(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	jobStart := time.Now().Add(-10 * time.Second)
	src := &linearSource{t0: jobStart}
	var log syncBuffer
	set := Settings{
		Name: "build", Out: dir, ExportTimeout: time.Second, Start: jobStart,
		Sampling: SamplingOptions{Interval: time.Hour},
		Resource: sdkresource.Empty(), Summary: "off",
		Log: supervise.NewLogger(&log),
	}
	set.hooks.source = src
	s := New(set)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Phases begun and ended as they come take samples at their
	// boundaries; the added phase lies across them.
	var from, to time.Time
	for i, name := range []string{"one", "two", "three"} {
		if err := s.Begin(name); err != nil {
			t.Fatal(err)
		}
		switch i {
		case 0:
			from = time.Now()
		case 2:
			to = time.Now()
		}
		if err := s.End(name, ""); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.AddPhase("tests", from, to, protocol.ResultFailure, attribute.Int("github.step.number", 4)); err != nil {
		t.Fatal(err)
	}
	// A phase that ended before the first sample has no usage, and says so.
	if err := s.AddPhase("set up", jobStart.Add(time.Second), jobStart.Add(2*time.Second), ""); err != nil {
		t.Fatal(err)
	}
	if err := s.AddPhase("backwards", to, from, ""); !errors.Is(err, ErrRefused) {
		t.Errorf("a phase that ends before it starts: %v", err)
	}
	if _, err := s.Shutdown(context.Background(), Outcome{}); err != nil {
		t.Fatal(err)
	}

	// The samples around the phase, by the rule of usage.History.Over.
	var begin, end time.Time
	var n int
	for _, at := range src.times() {
		if !at.After(from) {
			begin = at
		}
		if end.IsZero() && !at.Before(to) {
			end = at
		}
	}
	for _, at := range src.times() {
		if !at.Before(begin) && !at.After(end) {
			n++
		}
	}
	got := readSpool(t, dir)
	sp := got["tests"]
	if sp.Parent != "build" {
		t.Errorf("tests: parent %q, want the job's span", sp.Parent)
	}
	a := sp.Attrs
	if a[string(usage.AttrWindowStart)] != begin.UTC().Format(time.RFC3339Nano) || a[string(usage.AttrWindowEnd)] != end.UTC().Format(time.RFC3339Nano) {
		t.Errorf("usage window %v to %v, want %v to %v", a[string(usage.AttrWindowStart)], a[string(usage.AttrWindowEnd)],
			begin.UTC().Format(time.RFC3339Nano), end.UTC().Format(time.RFC3339Nano))
	}
	wantCPU := end.Sub(jobStart)/2 - begin.Sub(jobStart)/2
	if cpu, ok := a[string(usage.AttrCPUUser)].(float64); !ok || time.Duration(math.Round(cpu*1e9)) != wantCPU {
		t.Errorf("cpu %v s, want %v (half a CPU from %v to %v)", a[string(usage.AttrCPUUser)], wantCPU, begin, end)
	}
	if mem := a[string(usage.AttrMemoryPeak)]; fmt.Sprint(mem) != fmt.Sprint(100+end.Sub(jobStart).Milliseconds()) {
		t.Errorf("memory peak %v, want %d", mem, 100+end.Sub(jobStart).Milliseconds())
	}
	if w := a[string(usage.AttrDiskWrite)]; fmt.Sprint(w) != fmt.Sprint(uint64(end.Sub(jobStart).Seconds()*1000)-uint64(begin.Sub(jobStart).Seconds()*1000)) {
		t.Errorf("written %v bytes", w)
	}
	if fmt.Sprint(a[string(usage.AttrSamples)]) != fmt.Sprint(n) {
		t.Errorf("%v samples, want %d", a[string(usage.AttrSamples)], n)
	}
	if a["cicd.pipeline.task.run.result"] != "failure" || fmt.Sprint(a["github.step.number"]) != "4" {
		t.Errorf("attributes %v", a)
	}
	if a := got["set up"].Attrs; a[string(usage.AttrNone)] == nil || a[string(usage.AttrCPUUser)] != nil {
		t.Errorf("a phase before the first sample: attributes %v", a)
	}
	// Every span with usage has a verdict judged from it (the source gives
	// the job's CPU, so it is never unknown); one without has none.
	for _, name := range []string{"one", "two", "three", "tests", "build"} {
		v, ok := verdict.FromAttributes(stringAttrs(got[name].Attrs))
		if !ok || v.Kind == verdict.Unknown || v.Reason == "" {
			t.Errorf("%s: verdict %v %v; attributes %v", name, v, ok, got[name].Attrs)
		}
	}
	if v, ok := verdict.FromAttributes(stringAttrs(got["set up"].Attrs)); ok {
		t.Errorf("a phase without usage has a verdict: %v", v)
	}
}

// stringAttrs are the string attributes of a span read back from the spool.
func stringAttrs(m map[string]any) []attribute.KeyValue {
	var a []attribute.KeyValue
	for k, v := range m {
		if s, ok := v.(string); ok {
			a = append(a, attribute.String(k, s))
		}
	}
	return a
}
