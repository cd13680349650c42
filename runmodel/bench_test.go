//go:build unix

package runmodel_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/internal/timingtest"
	"github.com/jobtrace/jobtrace/render/profile"
	"github.com/jobtrace/jobtrace/render/report"
	"github.com/jobtrace/jobtrace/render/summary"
	"github.com/jobtrace/jobtrace/runmodel"
)

// tenPhaseRun records a run of ten phases, each with its usage and an
// event, through a real tracer provider that writes the spool in dir, with
// a Recorder beside it; the rows are those of a real run (testdata/run),
// given to the Recorder's Tee as the CSV writer gives them.
func tenPhaseRun(b *testing.B, dir string) *runmodel.Recorder {
	b.Helper()
	rec := runmodel.NewRecorder()
	client := spool.NewTraceClient(filepath.Join(dir, spool.TracesFile))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spool.NewSpanProcessor(client)), sdktrace.WithSpanProcessor(rec))
	tr := tp.Tracer("jobtrace")
	u := usage.Usage{HasCPU: true, CPUUser: time.Second, CPUSystem: time.Second / 4, CPUAvg: 0.5, CPUPeak: 1,
		HasMemory: true, MemoryPeak: 64 << 20, HasIO: true, ReadBytes: 1 << 20, WriteBytes: 2 << 20, Samples: 3}
	t0 := time.Now()
	ctx, job := tr.Start(context.Background(), "job", trace.WithTimestamp(t0), trace.WithAttributes(runmodel.AttrTaskName.String("job")))
	for i := range 10 {
		_, p := tr.Start(ctx, fmt.Sprintf("phase %d", i), trace.WithTimestamp(t0.Add(time.Duration(i)*time.Second)),
			trace.WithAttributes(attribute.String("jobtrace.phase.source", "socket")))
		p.AddEvent("cache-miss", trace.WithTimestamp(t0.Add(time.Duration(i)*time.Second+time.Millisecond)))
		p.SetAttributes(u.Attributes()...)
		p.End(trace.WithTimestamp(t0.Add(time.Duration(i+1) * time.Second)))
	}
	job.SetAttributes(u.Attributes()...)
	job.End(trace.WithTimestamp(t0.Add(10 * time.Second)))
	if err := tp.Shutdown(context.Background()); err != nil {
		b.Fatal(err)
	}
	csv, err := os.ReadFile(filepath.Join("testdata/run", usagecsv.FileName))
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, usagecsv.FileName), csv, 0o644); err != nil {
		b.Fatal(err)
	}
	for line := range bytes.Lines(csv) {
		rec.Tee().Write(line)
	}
	return rec
}

// renderAll renders every artifact of run as the end of `jobtrace run`
// does: profile.json, report.html and usage.svg in dir, and the summary.
func renderAll(b *testing.B, dir string, run *runmodel.Run) {
	if err := profile.Write(dir, run); err != nil {
		b.Fatal(err)
	}
	if err := report.Write(dir, run); err != nil {
		b.Fatal(err)
	}
	s := summary.Build(run, summary.JobInfo{Name: "job", Duration: 10 * time.Second})
	if err := summary.WriteText(io.Discard, s); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRenderEveryArtifact is the end of a 10-phase run: the model
// built from what the run holds, and every artifact rendered from it.
func BenchmarkRenderEveryArtifact(b *testing.B) {
	dir := b.TempDir()
	rec := tenPhaseRun(b, dir)
	timingtest.LoopCPU(b, func() {
		run, err := rec.Run(dir)
		if err != nil {
			b.Fatal(err)
		}
		renderAll(b, dir, run)
	})
}

// BenchmarkRenderEveryArtifactFromTheArtifacts is the same from the
// artifacts, as `jobtrace report` and `jobtrace profile` do: the model read
// back through the one reader.
func BenchmarkRenderEveryArtifactFromTheArtifacts(b *testing.B) {
	dir := b.TempDir()
	tenPhaseRun(b, dir)
	timingtest.LoopCPU(b, func() {
		run, _, err := runmodel.ReadDir(dir)
		if err != nil {
			b.Fatal(err)
		}
		renderAll(b, dir, run)
	})
}
