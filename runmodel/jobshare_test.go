package runmodel_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/render/profile"
	"github.com/jobtrace/jobtrace/render/report"
	"github.com/jobtrace/jobtrace/runmodel"
)

// The job's CPU share of a run without a cgroup of its own (its CPU time
// read from its process tree, which counts it in 10 ms clock ticks) whose
// six phases begin and end a few milliseconds apart, on a 2-CPU machine
// where the job keeps one CPU busy: between two samples 2 to 5 ms apart
// the tree's CPU time moves by no tick or one, 0 % or 100 % of the
// machine. Every row's job_cpu_pct, the hover values of usage.svg's CPU
// chart and of report.html's crosshair, profile.json's CPU samples and
// counter, the statistics' peak and the advice's CPUs busy (in the run and
// from the files) say about 50 %, over the spans of usage.JobCPU; the
// statistics' peak is the highest a row shows, and the advice's peak the
// same share. Before, the rows, the charts and the profile went to 0 % and
// 100 % at the boundaries where the statistics said 50 %.
func TestJobShareOverBoundariesMillisecondsApart(t *testing.T) {
	t0 := time.Date(2026, 7, 8, 9, 10, 11, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	const tick = 10 // ms
	times := boundaryTimes()

	dir := t.TempDir()
	rec, csv, _, _ := machineSinks(t, dir)
	for i, ms := range times {
		s := boundarySample(t0, times, i)
		s.Host.NumCPU = 2
		s.Job.HasTree = true
		s.Job.Tree = hostmetrics.Tree{Processes: 1, Threads: 1, CPUUser: time.Duration(ms/tick*tick) * time.Millisecond, At: s.Time}
		rec.Samples().Sample(&s)
		csv.Sample(&s)
	}
	if err := csv.Close(); err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithIDGenerator(&goldenIDs{}),
		sdktrace.WithSpanProcessor(spool.NewSpanProcessor(spool.NewTraceClient(filepath.Join(dir, spool.TracesFile)))),
		sdktrace.WithSpanProcessor(rec))
	tr := tp.Tracer("jobtrace")
	ctx, job := tr.Start(context.Background(), "build", trace.WithTimestamp(at(0)),
		trace.WithAttributes(runmodel.AttrTaskName.String("build")))
	for c := range 3 {
		for k, ends := range [][2]int{{700, 702}, {706, 711}} {
			_, p := tr.Start(ctx, fmt.Sprintf("phase %d", 2*c+k), trace.WithTimestamp(at(c*1000+ends[0])),
				trace.WithAttributes(attribute.String("jobtrace.phase.source", "socket")))
			p.End(trace.WithTimestamp(at(c*1000 + ends[1])))
		}
	}
	job.End(trace.WithTimestamp(at(3002)))
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	run, err := rec.Run(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Rows) != len(times) {
		t.Fatalf("%d rows, want %d", len(run.Rows), len(times))
	}
	about50 := func(v float64) bool { return v >= 45 && v <= 55 }

	highest := 0.0
	for i, r := range run.Rows[1:] {
		v, ok := r.Get(runmodel.JobCPUPct)
		if !ok || !about50(v) {
			t.Errorf("row at %d ms: job_cpu_pct %v (%v), want about 50", times[i+1], v, ok)
		}
		highest = max(highest, v)
	}
	st := run.Stats.CPU
	if !st.HasPeak || !about50(st.Peak) || math.Abs(st.Peak-highest) > 0.005 {
		t.Errorf("the statistics' CPU peak %v, the highest job_cpu_pct %v: want both about 50 and the same", st.Peak, highest)
	}
	fromFiles, warn, err := runmodel.ReadDir(dir)
	if err != nil || warn != nil {
		t.Fatalf("ReadDir: %v, warn %v", err, warn)
	}
	for name, a := range map[string]float64{"in the run": run.Advice().CPUBusyPeak, "from the files": fromFiles.Advice().CPUBusyPeak} {
		if math.Abs(100*a/2-st.Peak) > 1e-9 {
			t.Errorf("the advice %s: %v of 2 CPUs busy at the peak, the statistics' peak %v %%", name, a, st.Peak)
		}
	}

	var svg strings.Builder
	if err := report.WriteSVG(&svg, run); err != nil {
		t.Fatal(err)
	}
	cpuChart, _, _ := strings.Cut(svg.String(), ">Memory</text>")
	hover := regexp.MustCompile(`\njob: ([^\n<]*)`).FindAllStringSubmatch(cpuChart, -1)
	if len(hover) != len(times) {
		t.Fatalf("%d hover texts of the job's CPU, want %d", len(hover), len(times))
	}
	for i, h := range hover[1:] {
		if v, err := strconv.ParseFloat(strings.TrimSuffix(h[1], "%"), 64); err != nil || !about50(v) {
			t.Errorf("point at %d ms: usage.svg says job %s, want about 50%%", times[i+1], h[1])
		}
	}
	var html strings.Builder
	if err := report.WriteHTML(&html, run); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`<script type="application/json" id="xh-data">(.*?)</script>`).FindStringSubmatch(html.String())
	var x struct {
		Plots []struct {
			Title  string
			Series []struct {
				Name string
				V    []string
			}
		}
	}
	if m == nil || json.Unmarshal([]byte(m[1]), &x) != nil || len(x.Plots) == 0 || x.Plots[0].Title != "CPU" || x.Plots[0].Series[0].Name != "job" {
		t.Fatal("no crosshair values of the job's CPU in report.html")
	}
	for i, s := range x.Plots[0].Series[0].V[1:] {
		if v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64); err != nil || !about50(v) {
			t.Errorf("point at %d ms: the crosshair says job %s, want about 50%%", times[i+1], s)
		}
	}

	p, err := profile.Build(run)
	if err != nil {
		t.Fatal(err)
	}
	// A sample's or a count's CPU ms over the ms since the one before, of
	// 2 CPUs, in percent.
	share := func(cpuMS, ms float64) float64 { return 100 * cpuMS / ms / 2 }
	smp := p.Threads[0].Samples
	if smp.Length != len(times) {
		t.Errorf("%d CPU samples, want one per row, %d", smp.Length, len(times))
	}
	for i := 1; i < smp.Length; i++ {
		if v := share(smp.ThreadCPUDelta[i]/1000, smp.Time[i]-smp.Time[i-1]); !about50(v) {
			t.Errorf("profile.json's CPU sample at %v ms: %.1f %% of the CPUs, want about 50", smp.Time[i], v)
		}
	}
	c := p.Counters[0].Samples
	first := c.Length - len(times) // after the reference samples
	for i := first + 1; i < c.Length; i++ {
		if v := share(c.Count[i], c.Time[i]-c.Time[i-1]); !about50(v) {
			t.Errorf("profile.json's CPU counter at %v ms: %.1f %% of the CPUs, want about 50", c.Time[i], v)
		}
	}
}

// The job's CPU spans are timed one way in every sink, to the millisecond
// as resource-usage.csv writes a row's time (usage.CPUReadAt): here the
// job keeps both CPUs busy from a sample at 1000.9 ms to one at 1200.2 ms
// and is idle otherwise, a span of 199.3 ms that is 200 ms in the CSV.
// The statistics' peak, the advice's, the job's usage's (usage.Window)
// and the highest job_cpu_pct are one share of that span. Before, the
// statistics and the job's usage timed it to the nanosecond and joined it
// to the next (20 %) where the advice, timed to the millisecond, took it
// alone (99.65 %).
func TestJobShareTimedAlikeEverywhere(t *testing.T) {
	t0 := time.Date(2026, 7, 8, 9, 10, 11, 0, time.UTC)
	at := func(us int) time.Time { return t0.Add(time.Duration(us) * time.Microsecond) }
	times := []int{0, 1_000_900, 1_200_200, 2_000_000, 3_000_000} // µs
	dir := t.TempDir()
	rec, csv, _, _ := machineSinks(t, dir)
	var w usage.Window
	var job usage.Usage
	for i, us := range times {
		s := hostmetrics.Sample{Time: at(us), Reason: hostmetrics.ReasonInterval}
		s.Host.NumCPU = 2
		s.Job.HasCgroup, s.Job.CgroupOwn, s.Job.Cgroup.HasCPU = true, true, true
		if i >= 2 {
			s.Job.Cgroup.CPUUser = 2 * (1_200_200 - 1_000_900) * time.Microsecond
		}
		switch i {
		case 0:
			s.Reason = hostmetrics.ReasonStart
			w.Begin(&s)
		case len(times) - 1:
			s.Reason = hostmetrics.ReasonEnd
			job = w.EndJob(&s)
		default:
			w.Add(&s)
		}
		rec.Samples().Sample(&s)
		csv.Sample(&s)
	}
	if err := csv.Close(); err != nil {
		t.Fatal(err)
	}
	run, err := rec.Run(dir)
	if err != nil {
		t.Fatal(err)
	}
	const want = 99.65 // 398.6 ms of CPU time over 200 ms of 2 CPUs
	highest := 0.0
	for _, r := range run.Rows {
		v, _ := r.Get(runmodel.JobCPUPct)
		highest = max(highest, v)
	}
	for name, v := range map[string]float64{
		"the statistics' peak":    run.Stats.CPU.Peak,
		"the advice's peak":       100 * run.Advice().CPUBusyPeak / 2,
		"the job's usage's peak":  100 * job.CPUPeak,
		"the highest job_cpu_pct": highest,
	} {
		if math.Abs(v-want) > 0.005 {
			t.Errorf("%s: %v %%, want %v", name, v, want)
		}
	}
}
