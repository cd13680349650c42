package runmodel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/verdict"
)

// fixture holds the artifacts of a real run of a job with nested phases,
// one of them named <script>alert(1)</script> and failed.
const fixture = "testdata/run"

// record runs a job's spans through a real tracer provider that writes
// the spool in dir, as a run does, with a Recorder beside it, and gives
// the Recorder's Tee the lines of csv as the usagecsv.Writer writes them.
func record(t *testing.T, dir string, csv []byte, body func(tr trace.Tracer)) *Recorder {
	t.Helper()
	rec := NewRecorder()
	client := spool.NewTraceClient(filepath.Join(dir, spool.TracesFile))
	res := sdkresource.NewSchemaless(attribute.String("service.name", "svc"), attribute.String("host.name", "h\x1b[2J"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(res),
		sdktrace.WithSpanProcessor(spool.NewSpanProcessor(client)), sdktrace.WithSpanProcessor(rec))
	body(tp.Tracer("jobtrace"))
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if csv != nil {
		if err := os.WriteFile(filepath.Join(dir, usagecsv.FileName), csv, 0o644); err != nil {
			t.Fatal(err)
		}
		for line := range bytes.Lines(csv) {
			rec.Tee().Write(line)
		}
	}
	return rec
}

var t0 = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

func at(ms int) trace.SpanStartEventOption {
	return trace.WithTimestamp(t0.Add(time.Duration(ms) * time.Millisecond))
}

// job records a job with nested phases, a failed one, events, usage, a
// name that needs cleaning and attributes of every kind.
func job(tr trace.Tracer) {
	u := usage.Usage{HasCPU: true, CPUUser: 1500 * time.Millisecond, CPUSystem: 250 * time.Millisecond, CPUAvg: 0.4375, CPUPeak: 1,
		HasMemory: true, MemoryPeak: 3 << 20, HasIO: true, ReadBytes: 10, WriteBytes: 20, Samples: 4}
	ctx, root := tr.Start(context.Background(), "job", at(0), trace.WithAttributes(AttrTaskName.String("job")))
	bctx, build := tr.Start(ctx, "build", at(10))
	_, comp := tr.Start(bctx, "compile\x1b[31m", at(10), trace.WithAttributes(
		attribute.StringSlice("args", []string{"-o", "x"}), attribute.Int64Slice("n", []int64{1, 2}),
		attribute.Bool("b", true), attribute.Float64("f", 0.5)))
	comp.AddEvent("cache miss", trace.WithTimestamp(t0.Add(20*time.Millisecond)), trace.WithAttributes(attribute.String("key", "deps")))
	comp.SetAttributes(u.Attributes()...)
	comp.End(trace.WithTimestamp(t0.Add(30 * time.Millisecond)))
	_, test := tr.Start(bctx, "test", at(30))
	test.SetStatus(codes.Error, "exit 2")
	test.SetAttributes(AttrResult.String("failure"), AttrExitCode.Int(2))
	test.End(trace.WithTimestamp(t0.Add(40 * time.Millisecond)))
	build.End(trace.WithTimestamp(t0.Add(45 * time.Millisecond)))
	root.SetAttributes(u.Attributes()...)
	root.SetAttributes(AttrResult.String("failure"), AttrExitCode.Int(2))
	root.End(trace.WithTimestamp(t0.Add(50 * time.Millisecond)))
}

// The model built from what a run holds is the model read back from the
// artifacts it wrote: one model, whichever door it came in by.
func TestMemoryAndArtifactsGiveOneModel(t *testing.T) {
	dir := t.TempDir()
	csv, err := os.ReadFile(filepath.Join(fixture, usagecsv.FileName))
	if err != nil {
		t.Fatal(err)
	}
	rec := record(t, dir, csv, job)
	mem, err := rec.Run(dir)
	if err != nil {
		t.Fatal(err)
	}
	read, warn, err := ReadDir(dir)
	if err != nil || warn != nil {
		t.Fatalf("ReadDir: %v, warn %v", err, warn)
	}
	if !reflect.DeepEqual(mem, read) {
		t.Errorf("from memory:\n%+v\nread back:\n%+v", mem, read)
	}

	if !mem.HasJob || mem.Job.Name != "job" || len(mem.Phases) != 3 || len(mem.Rows) != 28 {
		t.Fatalf("job %v %q, %d phases, %d rows", mem.HasJob, mem.Job.Name, len(mem.Phases), len(mem.Rows))
	}
	var got []string
	for _, p := range mem.Phases {
		got = append(got, fmt.Sprintf("%s/%d/%v/%s/%d", p.Name, p.Depth, p.InJob, p.ParentName, p.ParentIndex))
	}
	if want := []string{"build/0/true/job/-1", "compile\uFFFD[31m/1/true/build/0", "test/1/true/build/0"}; !reflect.DeepEqual(got, want) {
		t.Errorf("phases %q, want %q", got, want)
	}
	comp := mem.Phases[1]
	if !comp.Usage.HasCPU || comp.Usage.CPU() != 1750*time.Millisecond || comp.Usage.MemoryPeak != 3<<20 {
		t.Errorf("compile's usage %+v", comp.Usage)
	}
	if len(comp.Events) != 1 || comp.Events[0].Name != "cache miss" || Text(comp.Events[0].Attributes[0].Value) != "deps" {
		t.Errorf("events %+v", comp.Events)
	}
	if v, _ := Attr(comp.Attributes, "n"); Text(v) != "[1 2]" {
		t.Errorf("n = %q", Text(v))
	}
	if !mem.Phases[2].Failed || mem.Phases[2].Status != "exit 2" || mem.Phases[2].Text(AttrExitCode) != "2" {
		t.Errorf("test: %+v", mem.Phases[2])
	}
	if v, _ := Attr(mem.Resource, "host.name"); v.AsString() != "h\uFFFD[2J" {
		t.Errorf("host.name %q, not cleaned", v.AsString())
	}
}

// The job's span is the one that names the task and whose parent is not
// in the run (a job may join an outer trace), the earliest of them; a
// span that names no task is not the job, however long.
func TestTheJobSpan(t *testing.T) {
	dir := t.TempDir()
	rec := record(t, dir, nil, func(tr trace.Tracer) {
		outer := trace.ContextWithRemoteSpanContext(context.Background(), trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}, TraceFlags: trace.FlagsSampled, Remote: true}))
		_, long := tr.Start(context.Background(), "long", at(-1000))
		long.End(trace.WithTimestamp(t0.Add(time.Hour)))
		ctx, j := tr.Start(outer, "the job", at(0), trace.WithAttributes(AttrTaskName.String("the job")))
		_, inner := tr.Start(ctx, "inner job", at(1), trace.WithAttributes(AttrTaskName.String("inner")))
		inner.End(trace.WithTimestamp(t0.Add(2 * time.Millisecond)))
		j.End(trace.WithTimestamp(t0.Add(3 * time.Millisecond)))
		_, later := tr.Start(context.Background(), "later job", at(5), trace.WithAttributes(AttrTaskName.String("later")))
		later.End(trace.WithTimestamp(t0.Add(6 * time.Millisecond)))
	})
	for name, r := range map[string]func() (*Run, error){
		"memory": func() (*Run, error) { return rec.Run(dir) },
		"read":   func() (*Run, error) { r, _, err := ReadDir(dir); return r, err },
	} {
		run, err := r()
		if err != nil {
			t.Fatal(err)
		}
		if !run.HasJob || run.Job.Name != "the job" {
			t.Errorf("%s: job %v %q, want the job", name, run.HasJob, run.Job.Name)
		}
		for _, p := range run.Phases {
			if want := p.Name == "inner job"; p.InJob != want {
				t.Errorf("%s: %s in the job: %v", name, p.Name, p.InJob)
			}
		}
	}
}

func span(id, parent byte, name string, start int) Span {
	return Span{Name: name, ID: trace.SpanID{id}, Parent: trace.SpanID{parent}, Start: t0.Add(time.Duration(start) * time.Millisecond)}
}

// A chain of parents that loops is cut, and every span is placed once;
// a chain deeper than any fixed bound keeps its depths (the report's own
// reader bounded its walk up at 64 hops: in a spool, where the deepest span
// comes first, span 50 of a chain of 100 was at depth 15 and span 99 at 64).
func TestTreeOfADamagedOrDeepRun(t *testing.T) {
	spans := []Span{span(1, 2, "a", 0), span(2, 3, "b", 1), span(3, 1, "c", 2), span(4, 4, "self", 3)}
	// A chain in the order a spool has it: the deepest span ended
	// first.
	const deep = 1000
	for i := deep - 1; i >= 0; i-- {
		s := span(0, 0, fmt.Sprint(i), 10+i)
		s.ID = trace.SpanID{9, byte(i >> 8), byte(i)}
		if i > 0 {
			s.Parent = trace.SpanID{9, byte((i - 1) >> 8), byte(i - 1)}
		}
		spans = append(spans, s)
	}
	run := New(spans, nil)
	if len(run.Phases) != len(spans) {
		t.Fatalf("%d phases of %d spans", len(run.Phases), len(spans))
	}
	depth := map[string]int{}
	for _, p := range run.Phases {
		depth[p.Name] = p.Depth
	}
	if depth["self"] != 0 || depth["a"]+depth["b"]+depth["c"] != 3 {
		t.Errorf("loop depths: a %d b %d c %d self %d", depth["a"], depth["b"], depth["c"], depth["self"])
	}
	for _, i := range []int{50, deep - 1} {
		if depth[fmt.Sprint(i)] != i {
			t.Errorf("depth of span %d: %d", i, depth[fmt.Sprint(i)])
		}
	}
	checkParents(t, run)
}

// checkParents checks that each phase's ParentIndex is the phase above it
// in the tree the model made: an earlier phase, one level up, its parent
// by ID and by name; -1 for a phase at the top.
func checkParents(t *testing.T, run *Run) {
	t.Helper()
	if run.HasJob && run.Job.ParentIndex != -1 {
		t.Errorf("the job's ParentIndex %d", run.Job.ParentIndex)
	}
	for i, s := range run.Phases {
		if s.ParentIndex < 0 {
			if s.ParentIndex != -1 || s.Depth != 0 {
				t.Errorf("%s: ParentIndex %d at depth %d", s.Name, s.ParentIndex, s.Depth)
			}
			continue
		}
		p := &run.Phases[s.ParentIndex]
		if s.ParentIndex >= i || p.Depth != s.Depth-1 || p.ID != s.Parent || p.Name != s.ParentName {
			t.Errorf("%s (%d, depth %d): parent %d %s at depth %d", s.Name, i, s.Depth, s.ParentIndex, p.Name, p.Depth)
		}
	}
}

func TestReadDirMissing(t *testing.T) {
	if _, _, err := ReadDir(t.TempDir()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir of an empty dir: %v, want ErrNotExist", err)
	}
}

// Lines and rows that cannot be read are reported and skipped; the rest
// is read.
func TestReadDirReportsBadLines(t *testing.T) {
	dir := t.TempDir()
	spans := `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"a"}]}]}]}` + "\nnot json\n"
	csv := "time_utc,job_cpu_pct,job_memory_bytes\n2026-01-01T00:00:00.000Z,NaN,5\nnot a time,1,1\n2026-01-01T00:00:01.000Z,x,6\n"
	os.WriteFile(filepath.Join(dir, spool.TracesFile), []byte(spans), 0o644)
	os.WriteFile(filepath.Join(dir, usagecsv.FileName), []byte(csv), 0o644)
	run, warn, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Phases) != 1 || len(run.Rows) != 2 {
		t.Fatalf("%d phases, %d rows", len(run.Phases), len(run.Rows))
	}
	if _, ok := run.Rows[0].Get(JobCPUPct); ok {
		t.Errorf("NaN read as a figure")
	}
	if v, ok := run.Rows[1].Get(JobMemory); !ok || v != 6 {
		t.Errorf("memory of the second row %v %v", v, ok)
	}
	msg := fmt.Sprint(warn)
	for _, want := range []string{"line 2", "NaN", "not a time", "\"x\""} {
		if !strings.Contains(msg, want) {
			t.Errorf("warn %q does not say %q", msg, want)
		}
	}
}

// Past MaxHeldRows the rows are not held: the model has them from the file.
func TestRecorderPastMaxHeldRows(t *testing.T) {
	dir := t.TempDir()
	var csv bytes.Buffer
	csv.WriteString("time_utc,job_memory_bytes\n")
	for i := range MaxHeldRows + 5 {
		fmt.Fprintf(&csv, "%s,%d\n", t0.Add(time.Duration(i)*time.Second).Format("2006-01-02T15:04:05.000Z07:00"), i)
	}
	rec := record(t, dir, csv.Bytes(), func(trace.Tracer) {})
	if rows, _, _ := rec.rows.held(); !rec.RowsPastBound() || rows != nil {
		t.Errorf("held %d rows, past the bound %v", len(rows), rec.RowsPastBound())
	}
	run, err := rec.Run(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Rows) != MaxHeldRows+5 {
		t.Errorf("%d rows, want %d", len(run.Rows), MaxHeldRows+5)
	}
}

// The Recorder keeps what a reader of the spool keeps: the first
// spool.MaxReadSpans spans and their ancestors (the job's span, which ends
// last); the others are counted.
func TestRecorderBound(t *testing.T) {
	rec := record(t, t.TempDir(), nil, func(tr trace.Tracer) {
		ctx, root := tr.Start(context.Background(), "job", trace.WithAttributes(AttrTaskName.String("job")))
		for range spool.MaxReadSpans + 3 {
			_, sp := tr.Start(ctx, "step")
			sp.End()
		}
		root.End()
	})
	run, err := rec.Run("")
	if err != nil {
		t.Fatal(err)
	}
	if !run.HasJob || len(run.Phases) != spool.MaxReadSpans || run.SkippedSpans != 3 {
		t.Errorf("job %v, %d phases, %d skipped; want the job, %d and 3", run.HasJob, len(run.Phases), run.SkippedSpans, spool.MaxReadSpans)
	}
}

func TestRecorderConcurrentEnds(t *testing.T) {
	rec := record(t, t.TempDir(), nil, func(tr trace.Tracer) {
		ctx, root := tr.Start(context.Background(), "job", trace.WithAttributes(AttrTaskName.String("job")))
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 100 {
					_, sp := tr.Start(ctx, "step")
					sp.End()
				}
			})
		}
		wg.Wait()
		root.End()
	})
	run, err := rec.Run("")
	if err != nil {
		t.Fatal(err)
	}
	if !run.HasJob || len(run.Phases) != 800 || run.SkippedSpans != 0 {
		t.Errorf("job %v, %d phases, %d skipped; want the job, 800, 0", run.HasJob, len(run.Phases), run.SkippedSpans)
	}
}

// Every figure of a Row is a column of usagecsv's columns.
func TestRowColumnsExist(t *testing.T) {
	for c := range numCols {
		if usagecsv.Index(c.Name()) < 0 {
			t.Errorf("column %s is not in usagecsv's columns", c.Name())
		}
	}
}

// Number and Attr read a figure, and a key set twice, as a span's usage
// and verdict are read back (usage.FromAttributes, verdict.FromAttributes):
// an int or a float from 0 to usage.MaxFigure, the last of a key set
// twice.
func TestNumbersReadAsUsageReadsThem(t *testing.T) {
	k := usage.AttrOOMKills
	for _, v := range []attribute.Value{
		attribute.Int64Value(math.MaxInt64), attribute.Int64Value(0), attribute.Int64Value(-1),
		attribute.Float64Value(usage.MaxFigure), attribute.Float64Value(-usage.MaxFigure),
		attribute.Float64Value(0.5), attribute.Float64Value(-0.5), attribute.Float64Value(math.MaxFloat64),
		attribute.Float64Value(math.Inf(1)), attribute.Float64Value(math.NaN()), attribute.StringValue("1"),
	} {
		attrs := []attribute.KeyValue{{Key: k, Value: v}}
		got, ok := Number(attrs, k)
		u := usage.FromAttributes(attrs)
		if ok != u.HasOOMKills || (ok && math.Trunc(got) != float64(u.OOMKills)) { // a count: its whole part
			t.Errorf("%s: Number %v %v, usage %v %v", v.Emit(), got, ok, u.OOMKills, u.HasOOMKills)
		}
	}
	twice := []attribute.KeyValue{k.Int(1), k.Int(2)}
	if n, _ := Number(twice, k); n != float64(usage.FromAttributes(twice).OOMKills) {
		t.Errorf("a number set twice: Number %v, usage %v", n, usage.FromAttributes(twice).OOMKills)
	}
	kinds := append(verdict.Verdict{Kind: verdict.CPUBound}.Attributes(), verdict.Verdict{Kind: verdict.IOBound}.Attributes()...)
	v, _ := verdict.FromAttributes(kinds)
	if a, _ := Attr(kinds, verdict.AttrKind); a.AsString() != string(v.Kind) {
		t.Errorf("a text set twice: Attr %s, verdict %s", a.AsString(), v.Kind)
	}
}
