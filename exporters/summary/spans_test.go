package summary

import (
	"context"
	"math"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/hostmetrics/usage"
)

func TestSpansKeepsWhatEnded(t *testing.T) {
	f, root, ju := jobFixture(t)
	phases, dropped := f.spans.Phases()
	if dropped != 0 {
		t.Errorf("dropped = %d", dropped)
	}
	exported := f.mem.GetSpans()
	if len(phases) != len(exported) || len(phases) != 7 {
		t.Fatalf("kept %d spans, the exporter saw %d; want 7", len(phases), len(exported))
	}
	for i, p := range phases {
		e := exported[i]
		if p.Name != e.Name || p.ID != e.SpanContext.SpanID() || p.Parent != e.Parent.SpanID() ||
			!p.Start.Equal(e.StartTime) || !p.End.Equal(e.EndTime) {
			t.Errorf("span %d: kept %+v, exported %q %v parent %v", i, p, e.Name, e.SpanContext.SpanID(), e.Parent.SpanID())
		}
	}
	last := phases[len(phases)-1]
	if last.ID != root || last.Name != "build" {
		t.Fatalf("last span %q, want the job's", last.Name)
	}
	want := FiguresOf(&ju)
	if !sameFigures(last.Usage, want) {
		t.Errorf("job usage read back as %+v, want %+v", last.Usage, want)
	}
	var test Phase
	for _, p := range phases {
		if p.Name == "test" {
			test = p
		}
	}
	if !test.Failed || test.Status != "exit status 1\nsee the log" {
		t.Errorf("failed phase kept as %+v", test)
	}
}

// sameFigures compares figures, utilisations to the four decimals the
// attributes keep.
func sameFigures(a, b Figures) bool {
	pa, pb := a.CPUAvg, a.CPUPeak
	a.CPUAvg, a.CPUPeak = 0, 0
	qa, qb := b.CPUAvg, b.CPUPeak
	b.CPUAvg, b.CPUPeak = 0, 0
	return a == b && math.Abs(pa-qa) < 0.01 && math.Abs(pb-qb) < 0.01
}

func TestFiguresOfAttrs(t *testing.T) {
	full := phaseUsage(3*time.Second, 0.5, 0.75, 2*gib, 10, 20, 30, 40)
	cases := []struct {
		name  string
		attrs []attribute.KeyValue
		want  Figures
	}{
		{"none", nil, Figures{}},
		{"all", full.Attributes(), FiguresOf(&full)},
		{
			"host disks when the job's IO is absent",
			(&usage.Usage{HasSystemDisk: true, SystemReadBytes: 5, SystemWriteBytes: 6}).Attributes(),
			Figures{HasIO: true, IOHost: true, ReadBytes: 5, WriteBytes: 6},
		},
		{
			"the job's IO wins over the host's",
			(&usage.Usage{HasIO: true, ReadBytes: 1, WriteBytes: 2, HasSystemDisk: true, SystemReadBytes: 5, SystemWriteBytes: 6}).Attributes(),
			Figures{HasIO: true, ReadBytes: 1, WriteBytes: 2},
		},
		{
			"numbers in the other type",
			[]attribute.KeyValue{usage.AttrMemoryPeak.Float64(1024), usage.AttrCPUUser.Int(2), usage.AttrCPUSystem.Int(1),
				usage.AttrCPUAvg.Float64(0.25), usage.AttrCPUPeak.Int(1)},
			Figures{HasMemory: true, MemoryPeak: 1024, HasCPU: true, CPU: 3 * time.Second, CPUAvg: 25, CPUPeak: 100},
		},
		{
			"a group with a key missing or of the wrong type is absent",
			[]attribute.KeyValue{usage.AttrDiskRead.Int(1), usage.AttrSysNetReceive.Int(1), usage.AttrSysNetTransmit.String("2"),
				usage.AttrMemoryPeak.Int(-5)},
			Figures{},
		},
	}
	for _, c := range cases {
		if got := figuresOfAttrs(c.attrs); !sameFigures(got, c.want) {
			t.Errorf("%s: got %+v, want %+v", c.name, got, c.want)
		}
	}
}

func TestSpansBound(t *testing.T) {
	f := newFixture(t)
	ctx, root := f.tracer.Start(context.Background(), "job")
	for range MaxPhases + 3 {
		_, sp := f.tracer.Start(ctx, "step")
		sp.End()
	}
	root.End()
	phases, dropped := f.spans.Phases()
	if len(phases) != MaxPhases || dropped != 4 {
		t.Errorf("kept %d, dropped %d; want %d and 4 (3 steps and the job)", len(phases), dropped, MaxPhases)
	}
}

func TestSpansConcurrentEnds(t *testing.T) {
	f := newFixture(t)
	ctx, root := f.tracer.Start(context.Background(), "job")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				_, sp := f.tracer.Start(ctx, "step")
				sp.End()
			}
		})
	}
	wg.Wait()
	root.End()
	if phases, dropped := f.spans.Phases(); len(phases) != 801 || dropped != 0 {
		t.Errorf("kept %d, dropped %d; want 801, 0", len(phases), dropped)
	}
}
