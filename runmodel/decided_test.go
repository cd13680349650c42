package runmodel_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/render/profile"
	"github.com/jobtrace/jobtrace/render/report"
	"github.com/jobtrace/jobtrace/runmodel"
)

// The figures the model decides once, each shown alike by every renderer.

// spoolOnly is the model read back from a directory holding only the
// spool of the spans that spans starts and ends, as a run writes it.
func spoolOnly(t *testing.T, spans func(tr trace.Tracer)) *runmodel.Run {
	t.Helper()
	dir := t.TempDir()
	tp := sdktrace.NewTracerProvider(sdktrace.WithIDGenerator(&goldenIDs{}),
		sdktrace.WithSpanProcessor(spool.NewSpanProcessor(spool.NewTraceClient(filepath.Join(dir, spool.TracesFile)))))
	spans(tp.Tracer("jobtrace"))
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	run, warn, err := runmodel.ReadDir(dir)
	if err != nil || warn != nil {
		t.Fatalf("ReadDir: %v, warn %v", err, warn)
	}
	return run
}

// jobWith is a job of 20 s with one phase, "hot", whose span carries u.
func jobWith(u usage.Usage) func(tr trace.Tracer) {
	return func(tr trace.Tracer) {
		t0 := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
		ctx, job := tr.Start(context.Background(), "build", trace.WithTimestamp(t0),
			trace.WithAttributes(runmodel.AttrTaskName.String("build")))
		_, p := tr.Start(ctx, "hot", trace.WithTimestamp(t0.Add(time.Second)),
			trace.WithAttributes(attribute.String("jobtrace.phase.source", "socket")))
		p.SetAttributes(u.Attributes()...)
		p.End(trace.WithTimestamp(t0.Add(19 * time.Second)))
		job.End(trace.WithTimestamp(t0.Add(20 * time.Second)))
	}
}

// A share of all CPUs past 1, read back from a spool, is all of them in
// every artifact: 100 %, where the summary bounded it and report.html and
// profile.json showed 150 %.
func TestASharePastAllCPUsReadsAsAllOfThem(t *testing.T) {
	run := spoolOnly(t, jobWith(usage.Usage{HasCPU: true, CPUUser: 27 * time.Second, CPUAvg: 1.5, CPUPeak: 1.5}))
	if u := run.Phases[0].Usage; u.CPUAvg != 1 || u.CPUPeak != 1 {
		t.Errorf("the model's shares %v and %v, want 1", u.CPUAvg, u.CPUPeak)
	}
	for name, b := range artifacts(t, t.TempDir(), run) {
		s := string(b)
		if name == report.SVGName { // the charts of the rows alone
			continue
		}
		if strings.Contains(s, "150%") || !strings.Contains(s, "100%") {
			t.Errorf("%s does not show the share as 100%%", name)
		}
		if name == profile.FileName && !strings.Contains(s, `"cpuAvg":1,`) {
			t.Errorf("%s: cpuAvg is not 1", name)
		}
	}
}

// A phase whose job's IO could not be read shows the host's disks over it,
// marked as such, in every artifact: report.html and profile.json showed
// no disk IO, the summary the host's.
func TestTheHostsDisksStandForTheJobsIO(t *testing.T) {
	run := spoolOnly(t, jobWith(usage.Usage{HasSystemDisk: true, SystemReadBytes: 5 << 20, SystemWriteBytes: 7 << 20}))
	if io, ok := runmodel.DiskIOOf(&run.Phases[0].Usage); !ok || !io.Host || io.Read != 5<<20 || io.Write != 7<<20 {
		t.Errorf("DiskIOOf: %+v %v, want the host's 5 MiB and 7 MiB", io, ok)
	}
	for name, b := range artifacts(t, t.TempDir(), run) {
		s := string(b)
		if name == report.SVGName { // the charts of the rows alone
			continue
		}
		if !strings.Contains(s, "5 MiB") || !strings.Contains(s, "7 MiB") || !strings.Contains(s, "own IO could not be read") {
			t.Errorf("%s does not show the host's disks, marked, for the job's IO", name)
		}
	}
}

// The job's advice is read back from its span, as its usage and verdict
// are: a directory holding only the spool shows the advice the run made,
// where the summary and report.html made it again from no rows and said
// the job ran 0s, too short to size a machine for.
func TestTheSpoolAloneGivesTheJobsAdvice(t *testing.T) {
	dir := t.TempDir()
	rec := goldenRun(t, dir)
	inRun, err := rec.Run(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := inRun.Advice()
	if want.Kind != sizing.Sized {
		t.Fatalf("the run's advice: %+v", want)
	}
	if err := os.Remove(filepath.Join(dir, usagecsv.FileName)); err != nil {
		t.Fatal(err)
	}
	run, _, err := runmodel.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := run.Advice(); got.Kind != want.Kind || got.Text != want.Text {
		t.Errorf("the model's advice %q, want the span's %q", got.Text, want.Text)
	}
	arts := artifacts(t, t.TempDir(), run)
	for _, name := range []string{"summary.txt", "summary.md", report.HTMLName} {
		if s := string(arts[name]); !strings.Contains(s, "a 4-CPU, 8 GiB machine would do") || strings.Contains(s, "too short") {
			t.Errorf("%s does not show the span's advice, %q", name, want.Text)
		}
	}
	if !strings.Contains(string(arts["summary.txt"]), want.Text) {
		t.Errorf("summary.txt does not show the span's advice whole")
	}
}

// profile.json and report.html's crosshair put each sample in the same
// phase, by the spans' times (runmodel.Placer): the profile's sample has
// its phase's stack, the crosshair lists its phase innermost. The
// crosshair listed the phases open at the pointer's time, whatever the
// sample shown.
func TestProfileAndReportPlaceSamplesAlike(t *testing.T) {
	arts := artifacts(t, t.TempDir(), goldenFromFiles(t))
	var p struct {
		Shared struct {
			StackTable  struct{ Frame []int }
			FrameTable  struct{ Func []int }
			FuncTable   struct{ Name []int }
			StringArray []string
		}
		Threads []struct{ Samples struct{ Stack []int } }
	}
	if err := json.Unmarshal(arts[profile.FileName], &p); err != nil {
		t.Fatal(err)
	}
	sh := &p.Shared
	var inProfile []string
	for _, s := range p.Threads[0].Samples.Stack {
		inProfile = append(inProfile, sh.StringArray[sh.FuncTable.Name[sh.FrameTable.Func[sh.StackTable.Frame[s]]]])
	}
	m := regexp.MustCompile(`<script type="application/json" id="xh-data">(.*?)</script>`).FindSubmatch(arts[report.HTMLName])
	var x struct {
		P      []int
		Phases []struct{ N string }
	}
	if m == nil || json.Unmarshal(m[1], &x) != nil {
		t.Fatal("no crosshair data in report.html")
	}
	var inReport []string
	for _, k := range x.P {
		name := "none"
		if k >= 0 {
			name = x.Phases[k].N
		}
		inReport = append(inReport, name)
	}
	if !slices.Equal(inProfile, inReport) || len(inProfile) != 31 {
		t.Errorf("the samples' phases:\nprofile.json %q\nreport.html  %q", inProfile, inReport)
	}
	if !slices.Contains(inReport, "phase 8") || !slices.Contains(inReport, "build") {
		t.Errorf("the samples' phases %q: want a nested phase and the job among them", inReport)
	}
}
