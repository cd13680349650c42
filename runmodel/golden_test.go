package runmodel_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/render/profile"
	"github.com/jobtrace/jobtrace/render/report"
	"github.com/jobtrace/jobtrace/render/summary"
	"github.com/jobtrace/jobtrace/runmodel"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/artifacts.sums from the artifacts rendered now")

// goldenSums holds the SHA-256 of every artifact rendered from the model
// of goldenRun, made in the run and read back from its files, as they
// were rendered when it was written.
const goldenSums = "testdata/artifacts.sums"

// goldenIDs gives the spans IDs in a fixed sequence, so that the spool is
// the same at every run of the test.
type goldenIDs struct{ n uint64 }

func (g *goldenIDs) NewIDs(context.Context) (trace.TraceID, trace.SpanID) {
	return trace.TraceID{1, 2, 3}, g.NewSpanID(context.Background(), trace.TraceID{})
}

func (g *goldenIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	g.n++
	var id trace.SpanID
	binary.BigEndian.PutUint64(id[:], g.n)
	return id
}

// goldenRun records a run of ten phases as a session does: the job's
// samples, 31 over 30 s on a 4-CPU machine, go to the Recorder's
// statistics and to a real usagecsv.Writer whose Tee is the Recorder's;
// each phase carries its usage, its verdict and an event, one is failed
// and two nest in a third; the job's span carries its duration (29.8 s,
// to its exit: its span ends 200 ms later, after jobtrace's shutdown
// span), its usage, its verdict and the advice the Recorder gives for
// them. The spool and the CSV are written in dir.
func goldenRun(t *testing.T, dir string) *runmodel.Recorder {
	t.Helper()
	t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	rec := runmodel.NewRecorder()
	w, err := usagecsv.Create(filepath.Join(dir, usagecsv.FileName), usagecsv.Options{Tee: rec.Tee()})
	if err != nil {
		t.Fatal(err)
	}
	var cpu time.Duration
	for i := range 31 {
		s := hostmetrics.Sample{Time: at(i * 1000), Reason: hostmetrics.ReasonInterval}
		switch i {
		case 0:
			s.Reason = hostmetrics.ReasonStart
		case 30:
			s.Reason = hostmetrics.ReasonEnd
		}
		s.Host.NumCPU = 4
		s.Host.HasMemory = true
		s.Host.Memory = hostmetrics.Memory{Total: 16 << 30, Used: 6 << 30, Available: 10 << 30, SwapTotal: 2 << 30, SwapUsed: 1 << 20}
		s.Host.Pressure.Memory = hostmetrics.Pressure{Some: time.Duration(i) * time.Millisecond, HasSome: true}
		s.Job.HasCgroup, s.Job.CgroupOwn = true, true
		cg := &s.Job.Cgroup
		cpu += time.Duration(1+i%3) * 700 * time.Millisecond
		cg.HasCPU, cg.CPUUser, cg.CPUSystem = true, cpu*3/4, cpu-cpu*3/4
		cg.HasMemory, cg.Memory = true, uint64(i)*(97<<20)
		cg.HasOOMKills = true
		rec.Samples().Sample(&s)
		w.Sample(&s)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}

	res := sdkresource.NewSchemaless(attribute.String("service.name", "jobtrace"), attribute.String("host.name", "runner-7"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithResource(res), sdktrace.WithIDGenerator(&goldenIDs{}),
		sdktrace.WithSpanProcessor(spool.NewSpanProcessor(spool.NewTraceClient(filepath.Join(dir, spool.TracesFile)))),
		sdktrace.WithSpanProcessor(rec))
	tr := tp.Tracer("jobtrace")
	ctx, job := tr.Start(context.Background(), "build", trace.WithTimestamp(at(0)),
		trace.WithAttributes(runmodel.AttrTaskName.String("build"), runmodel.AttrSamplingInterval.Float64(1)))
	kinds := []verdict.Kind{verdict.CPUBound, verdict.Waiting, verdict.Starved, verdict.IOBound, verdict.CPUBound}
	phase := func(ctx context.Context, i, from, to int) context.Context {
		ctx, p := tr.Start(ctx, fmt.Sprintf("phase %d", i), trace.WithTimestamp(at(from)),
			trace.WithAttributes(attribute.String("jobtrace.phase.source", "socket"), attribute.Int("step", i)))
		p.AddEvent("cache-miss", trace.WithTimestamp(at(from+1)), trace.WithAttributes(attribute.String("key", fmt.Sprint("k", i))))
		u := usage.Usage{NumCPU: 4, HasCPU: true, CPUUser: time.Duration(i+1) * 900 * time.Millisecond, CPUSystem: 200 * time.Millisecond,
			CPUAvg: 0.1 * float64(i%5+1), CPUPeak: 0.2 * float64(i%5+1), HasMemory: true, MemoryPeak: uint64(i+1) * (300 << 20),
			HasIO: true, ReadBytes: uint64(i) << 20, WriteBytes: uint64(i) << 21, Samples: 3}
		// Its average is its CPUs busy over its span, as a session
		// sets it: a window's is over its samples.
		u.SetSpan(at(from), at(to))
		p.SetAttributes(u.Attributes()...)
		p.SetAttributes(verdict.Verdict{Kind: kinds[i%len(kinds)], Reason: fmt.Sprintf("reason of phase %d", i)}.Attributes()...)
		if i == 6 {
			p.SetAttributes(runmodel.AttrResult.String("failure"), runmodel.AttrExitCode.Int(2))
			p.SetStatus(codes.Error, "exit status 2")
		}
		p.End(trace.WithTimestamp(at(to)))
		return ctx
	}
	for i := range 8 {
		from := i * 3600
		pctx := phase(ctx, i, from, from+3500)
		if i == 2 {
			phase(pctx, 8, from+100, from+1500)
			phase(pctx, 9, from+1500, from+3400)
		}
	}
	// The job exits at 29.8 s; its span ends at 30 s, once jobtrace's
	// shutdown work, a span of its own, is done. Its duration is from its
	// start to its exit, as a session sets it.
	exit := at(29800)
	_, shutdown := tr.Start(ctx, "jobtrace shutdown", trace.WithTimestamp(exit))
	shutdown.End(trace.WithTimestamp(at(29990)))
	ju := usage.Usage{NumCPU: 4, HasCPU: true, CPUUser: 31 * time.Second, CPUSystem: 10 * time.Second, CPUAvg: 0.34, CPUPeak: 0.5,
		HasMemory: true, MemoryPeak: 3100 << 20, HasIO: true, ReadBytes: 45 << 20, WriteBytes: 90 << 20, Samples: 31}
	ju.SetSpan(at(0), exit)
	job.SetAttributes(runmodel.AttrJobDuration.Float64(ju.Duration.Seconds()))
	jv := verdict.Verdict{Kind: verdict.CPUBound, Reason: "kept 1.4 of 4 CPUs busy"}
	job.SetAttributes(ju.Attributes()...)
	job.SetAttributes(jv.Attributes()...)
	advice := rec.Advice(&ju, jv)
	job.SetAttributes(advice.Attributes()...)
	job.SetAttributes(runmodel.AttrResult.String("failure"), runmodel.AttrExitCode.Int(2))
	job.End(trace.WithTimestamp(at(30000)))
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	return rec
}

// goldenFromFiles is the model of goldenRun read back from its files.
func goldenFromFiles(t *testing.T) *runmodel.Run {
	t.Helper()
	dir := t.TempDir()
	goldenRun(t, dir)
	run, _, err := runmodel.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// artifacts renders every artifact of run: profile.json, report.html and
// usage.svg in dir, and the summary as text and Markdown, returned by
// file name.
func artifacts(t *testing.T, dir string, run *runmodel.Run) map[string][]byte {
	t.Helper()
	if err := profile.Write(dir, run); err != nil {
		t.Fatal(err)
	}
	if err := report.Write(dir, run); err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, name := range []string{profile.FileName, report.HTMLName, report.SVGName} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		out[name] = b
	}
	s := summary.Build(run, summary.JobInfo{Name: "build", ExitCode: 2, Result: "failure"})
	var b bytes.Buffer
	if err := summary.WriteText(&b, s); err != nil {
		t.Fatal(err)
	}
	out["summary.txt"] = bytes.Clone(b.Bytes())
	b.Reset()
	if err := summary.WriteMarkdown(&b, s); err != nil {
		t.Fatal(err)
	}
	out["summary.md"] = b.Bytes()
	return out
}

// Every artifact of a run of ten phases, rendered from the model made in
// the run and from the model read back from its files, is byte for byte
// what it was when testdata/artifacts.sums was written: a change of any
// is seen, and the sums written again on purpose (-update-golden).
func TestGoldenArtifacts(t *testing.T) {
	dir := t.TempDir()
	rec := goldenRun(t, dir)
	inRun, err := rec.Run(dir)
	if err != nil {
		t.Fatal(err)
	}
	fromFiles, warn, err := runmodel.ReadDir(dir)
	if err != nil || warn != nil {
		t.Fatalf("ReadDir: %v, warn %v", err, warn)
	}
	var lines []string
	for _, c := range []struct {
		name string
		run  *runmodel.Run
	}{{"in-run", inRun}, {"from-files", fromFiles}} {
		got := artifacts(t, t.TempDir(), c.run)
		for _, name := range []string{profile.FileName, report.HTMLName, report.SVGName, "summary.txt", "summary.md"} {
			lines = append(lines, fmt.Sprintf("%s %s %x", c.name, name, sha256.Sum256(got[name])))
		}
	}
	sums := strings.Join(lines, "\n") + "\n"
	if *updateGolden {
		if err := os.WriteFile(goldenSums, []byte(sums), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(goldenSums)
	if err != nil {
		t.Fatal(err)
	}
	if sums != string(want) {
		t.Errorf("the artifacts differ from %s:\n%s", goldenSums, sums)
	}
}

// Every renderer shows the verdicts the model holds, read from the spans
// once when it was made (runmodel.Span.Verdict): attributes changed
// afterwards are not read again.
func TestRenderersShowTheModelsVerdicts(t *testing.T) {
	run := goldenFromFiles(t)
	const changed = "changed after the model was made"
	spans := []*runmodel.Span{&run.Job}
	for i := range run.Phases {
		spans = append(spans, &run.Phases[i])
	}
	for _, s := range spans {
		s.Attributes = append(s.Attributes, verdict.Verdict{Kind: verdict.MemoryPressured, Reason: changed}.Attributes()...)
	}
	for name, b := range artifacts(t, t.TempDir(), run) {
		if name == report.SVGName { // the charts alone: no verdict
			continue
		}
		if bytes.Contains(b, []byte(changed)) || !bytes.Contains(b, []byte("kept 1.4 of 4")) {
			t.Errorf("%s does not show the model's verdicts", name)
		}
	}
}
