package summary

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/runmodel"
)

// job is the summary of the fixture job: spans with usage, a failed
// phase whose status holds a line break (U+FFFD in the model, as every
// text of it: cleantext), a phase without usage, a "|" in a name, and the
// samples of series_test.go.
func job(t *testing.T) Summary {
	f, _, _ := jobFixture(t)
	return Build(f.sampled(t), JobInfo{Name: "build", ExitCode: 1, Result: "failure", Duration: 92 * time.Second, NumCPU: 2})
}

const wantText = `jobtrace: job "build" failed with exit code 1 after 1m32s; CPU % of 2 CPUs
jobtrace:   phase             duration    CPU  avg%  peak%      mem     read    write  host net  verdict    status
jobtrace:   checkout                2s  500ms   12%    30%   50 MiB   10 MiB   80 MiB  40.1 MiB  waiting
jobtrace:   make                 1m08s  1m55s   85%   100%  1.5 GiB  301 MiB  902 MiB     3 MiB  cpu-bound
jobtrace:     compile | link       58s  1m40s   86%   100%  1.5 GiB  300 MiB  900 MiB     3 MiB  cpu-bound
jobtrace:     vet                  10s    15s   75%    90%  400 MiB    1 MiB    2 MiB       0 B  cpu-bound
jobtrace:   test                   22s    30s   68%   100%  700 MiB    5 MiB   10 MiB       0 B  starved    FAILED: exit status 1�see the log
jobtrace:   upload                  1s      –     –      –        –        –        –         –
jobtrace:   total                1m32s  2m26s   79%   100%  1.5 GiB  316 MiB  992 MiB  43.1 MiB  cpu-bound
jobtrace:   verdict: cpu-bound, kept 1.6 of 2 CPUs busy
jobtrace:   advice: used 1.6 of 2 CPUs (p95; more than one for 40s) and at most 1.5 GiB: a 2-CPU, 4 GiB machine would do
jobtrace:   job statistics (4 samples)         avg      peak      stddev
jobtrace:   job CPU                            67%       75%         12%
jobtrace:   host CPU                           67%       75%         12%
jobtrace:   job memory                     234 MiB  0.98 GiB    49.2 MiB
jobtrace:   host disk IOPS                     167       200          47
jobtrace:   job IO                      16.7 MiB/s  20 MiB/s  4.71 MiB/s
jobtrace:   host network                1.67 KiB/s   2 KiB/s     483 B/s
`

const wantMarkdown = `### jobtrace: job **build** failed with exit code 1 after 1m32s

CPU % of 2 CPUs.

| phase | duration | CPU time | CPU avg | CPU peak | memory peak | disk read | disk write | host net in | host net out | verdict | status |
| :-- | --: | --: | --: | --: | --: | --: | --: | --: | --: | :-- | :-- |
| checkout | 2s | 500ms | 12% | 30% | 50 MiB | 10 MiB | 80 MiB | 40 MiB | 100 KiB | waiting: used 0.25 of 2 CPUs and waited little for CPU, IO or memory |  |
| make | 1m08s | 1m55s | 85% | 100% | 1.5 GiB | 301 MiB | 902 MiB | 2 MiB | 1 MiB | cpu-bound: kept 1.7 of 2 CPUs busy |  |
| &emsp;compile \| link | 58s | 1m40s | 86% | 100% | 1.5 GiB | 300 MiB | 900 MiB | 2 MiB | 1 MiB | cpu-bound: kept 1.7 of 2 CPUs busy |  |
| &emsp;vet | 10s | 15s | 75% | 90% | 400 MiB | 1 MiB | 2 MiB | 0 B | 0 B | cpu-bound: kept 1.5 of 2 CPUs busy |  |
| test | 22s | 30s | 68% | 100% | 700 MiB | 5 MiB | 10 MiB | 0 B | 0 B | starved: waited for CPU 41% of the time while the machine was 98% busy, 0.6 CPUs by others, and the job used 1.4 CPUs | **FAILED**: exit status 1�see the log |
| upload | 1s | – | – | – | – | – | – | – | – |  |  |
| **total** | 1m32s | 2m26s | 79% | 100% | 1.5 GiB | 316 MiB | 992 MiB | 42 MiB | 1.07 MiB | cpu-bound: kept 1.6 of 2 CPUs busy |  |

**Advice:** used 1.6 of 2 CPUs (p95; more than one for 40s) and at most 1.5 GiB: a 2-CPU, 4 GiB machine would do

| job statistics (4 samples) | avg | peak | stddev |
| :-- | --: | --: | --: |
| job CPU | 67% | 75% | 12% |
| host CPU | 67% | 75% | 12% |
| job memory | 234 MiB | 0.98 GiB | 49.2 MiB |
| host disk IOPS | 167 | 200 | 47 |
| job IO | 16.7 MiB/s | 20 MiB/s | 4.71 MiB/s |
| host network | 1.67 KiB/s | 2 KiB/s | 483 B/s |

`

func TestWriteText(t *testing.T) {
	var b bytes.Buffer
	if err := WriteText(&b, job(t)); err != nil {
		t.Fatal(err)
	}
	if b.String() != wantText {
		t.Errorf("got\n%s\nwant\n%s", b.String(), wantText)
	}
}

func TestWriteMarkdown(t *testing.T) {
	var b bytes.Buffer
	if err := WriteMarkdown(&b, job(t)); err != nil {
		t.Fatal(err)
	}
	if b.String() != wantMarkdown {
		t.Errorf("got\n%s\nwant\n%s", b.String(), wantMarkdown)
	}
}

func TestBuildNesting(t *testing.T) {
	r := job(t)
	var got []string
	for _, row := range r.Phases {
		got = append(got, fmt.Sprintf("%d %s", row.Depth, row.Name))
	}
	want := []string{"0 checkout", "0 make", "1 compile | link", "1 vet", "0 test", "0 upload"}
	if strings.Join(got, ", ") != strings.Join(want, ", ") {
		t.Errorf("rows %q, want %q", got, want)
	}
	if r.Result != "failure" || r.Total.Duration != 92*time.Second || r.NumCPU != 2 {
		t.Errorf("job: result %q, duration %v, CPUs %d", r.Result, r.Total.Duration, r.NumCPU)
	}
}

func TestBuildFromSpansAlone(t *testing.T) {
	// Without the job's usage, duration and CPU count from the agent, the
	// job's span and the samples give them.
	f, _, ju := jobFixture(t)
	r := Build(f.sampled(t), JobInfo{Name: "build"})
	if r.Result != "success" || r.Duration != 92*time.Second || r.NumCPU != 2 {
		t.Errorf("result %q, duration %v, CPUs %d", r.Result, r.Duration, r.NumCPU)
	}
	if want := FiguresOf(&ju); !sameFigures(r.Total.Figures, want) {
		t.Errorf("total %+v, want %+v", r.Total.Figures, want)
	}
}

func TestBuildListsOrphans(t *testing.T) {
	// A span whose parent was not kept (it ended past the bound) is listed
	// at the top level, not lost; spans of another root are too, the job's
	// own span is not.
	f := newFixture(t)
	ctx, root := f.tracer.Start(context.Background(), "job", jobSpan, trace.WithTimestamp(at(0)))
	pctx, parent := f.tracer.Start(ctx, "lost parent", trace.WithTimestamp(at(1)))
	f.span(pctx, "orphan", 2, 3, nil, "")
	f.span(ctx, "first", 0.5, 1, nil, "")
	root.End(trace.WithTimestamp(at(4)))
	_ = parent // never ended: the processor never sees it
	r := Build(f.run(t), JobInfo{Name: "job"})
	if len(r.Phases) != 2 || r.Phases[0].Name != "first" || r.Phases[1].Name != "orphan" || r.Phases[1].Depth != 0 {
		t.Errorf("rows %+v", r.Phases)
	}
}

func TestBuildDeepNesting(t *testing.T) {
	f := newFixture(t)
	ctx, root := f.tracer.Start(context.Background(), "job", jobSpan)
	var ends []func()
	for i := range 3 * MaxDepth {
		var sp trace.Span
		ctx, sp = f.tracer.Start(ctx, fmt.Sprintf("level %d with a rather long name", i))
		ends = append(ends, func() { sp.End() })
	}
	for i := len(ends) - 1; i >= 0; i-- {
		ends[i]()
	}
	root.End()
	r := Build(f.run(t), JobInfo{Name: "job"})
	if len(r.Phases) != 3*MaxDepth || r.Phases[len(r.Phases)-1].Depth != MaxDepth {
		t.Fatalf("%d rows, last at depth %d", len(r.Phases), r.Phases[len(r.Phases)-1].Depth)
	}
	var b bytes.Buffer
	WriteText(&b, r)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")[1:]
	head := lines[0]
	if col := width(head[len(textPrefix+textIndent):strings.Index(head, "duration")]) - 2; col != maxTextName {
		t.Errorf("name column %d wide, want %d:\n%s", col, maxTextName, b.String())
	}
	for _, l := range lines {
		if width(l) != width(head) {
			t.Errorf("line %q is not aligned with the header %q", l, head)
		}
	}
	deepest := lines[len(lines)-2]
	if !strings.HasPrefix(deepest, textPrefix+textIndent+strings.Repeat("  ", MaxDepth)+"level 23") || !strings.Contains(deepest, "…") {
		t.Errorf("deepest phase printed as %q", deepest)
	}
}

func TestAbsentColumnsDropped(t *testing.T) {
	// Spans without usage and no samples: only the name and duration are
	// known, so only they are printed, and no figure prints as 0.
	f := newFixture(t)
	ctx, root := f.tracer.Start(context.Background(), "job", jobSpan, trace.WithTimestamp(at(0)))
	f.span(ctx, "compile", 0, 1.5, nil, "")
	root.End(trace.WithTimestamp(at(2)))
	r := Build(f.run(t), JobInfo{Name: "job"})
	var b bytes.Buffer
	WriteText(&b, r)
	want := `jobtrace: job "job" succeeded after 2s
jobtrace:   phase    duration
jobtrace:   compile      1.5s
jobtrace:   total          2s
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	WriteMarkdown(&b, r)
	want = `### jobtrace: job **job** succeeded after 2s

| phase | duration |
| :-- | --: |
| compile | 1.5s |
| **total** | 2s |

`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestAbsentFiguresPrintDash(t *testing.T) {
	// Memory known for one phase only: the other's cell is "–", not "0 B".
	f := newFixture(t)
	ctx, root := f.tracer.Start(context.Background(), "job", jobSpan, trace.WithTimestamp(at(0)))
	f.span(ctx, "a", 0, 1, &usage.Usage{HasMemory: true, MemoryPeak: 3 * mib}, "")
	f.span(ctx, "b", 1, 2, nil, "")
	root.End(trace.WithTimestamp(at(2)))
	r := Build(f.run(t), JobInfo{Name: "job"})
	var b bytes.Buffer
	WriteText(&b, r)
	if !strings.Contains(b.String(), "jobtrace:   b            1s      –\n") || strings.Contains(b.String(), "0 B") {
		t.Errorf("got\n%s", b.String())
	}
	b.Reset()
	WriteMarkdown(&b, r)
	if !strings.Contains(b.String(), "| b | 1s | – |\n") || !strings.Contains(b.String(), "| a | 1s | 3 MiB |\n") {
		t.Errorf("got\n%s", b.String())
	}
}

func TestMarkdownEscapes(t *testing.T) {
	f := newFixture(t)
	ctx, root := f.tracer.Start(context.Background(), "job", jobSpan, trace.WithTimestamp(at(0)))
	f.span(ctx, "a|b\nc *d* <e> `f`", 0, 1, nil, "broke | here\nand here")
	// A verdict read back from a span may carry any text.
	root.SetAttributes(verdict.Verdict{Kind: verdict.Waiting, Reason: "waited | *here*\nlong"}.Attributes()...)
	root.End(trace.WithTimestamp(at(2)))
	r := Build(f.run(t), JobInfo{Name: "job | 1\n#", ExitCode: 3, Result: "failure"})
	var b bytes.Buffer
	WriteMarkdown(&b, r)
	out := b.String()
	for _, want := range []string{
		// A line break is U+FFFD (cleantext), in the job's name as in a
		// span's text, which the model cleans, as the report does.
		"### jobtrace: job **job \\| 1\uFFFD\\#** failed with exit code 3 after 2s\n",
		"| a\\|b\uFFFDc \\*d\\* \\<e\\> \\`f\\` | 1s |  | **FAILED**: broke \\| here\uFFFDand here |\n",
		"| **total** | 2s | waiting: waited \\| \\*here\\*\uFFFDlong |  |\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	// Every row of the table has as many unescaped "|" as the header.
	var pipes []int
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "|") {
			pipes = append(pipes, strings.Count(l, "|")-strings.Count(l, "\\|"))
		}
	}
	if len(pipes) != 4 {
		t.Fatalf("%d table lines in\n%s", len(pipes), out)
	}
	for _, n := range pipes {
		if n != pipes[0] {
			t.Errorf("cells per row %v in\n%s", pipes, out)
			break
		}
	}
}

func TestTextNameOnOneLine(t *testing.T) {
	f := newFixture(t)
	ctx, root := f.tracer.Start(context.Background(), "job", jobSpan, trace.WithTimestamp(at(0)))
	f.span(ctx, "two\nlines\tand a tab", 0, 1, nil, "")
	root.End(trace.WithTimestamp(at(1)))
	var b bytes.Buffer
	WriteText(&b, Build(f.run(t), JobInfo{Name: "job"}))
	if !strings.Contains(b.String(), "jobtrace:   two\uFFFDlines and a tab        1s\n") {
		t.Errorf("got\n%s", b.String())
	}
}

func TestIOOfTheHost(t *testing.T) {
	u := usage.Usage{HasSystemDisk: true, SystemReadBytes: 2 * kib, SystemWriteBytes: 3 * mib}
	r := Summary{Name: "job", Result: "success", Total: Row{Figures: FiguresOf(&u)},
		Stats: runmodel.JobStats{Samples: 2, IO: runmodel.Stat{N: 1, Mean: 10, Peak: 10, HasPeak: true}, IOHost: true}}
	var b bytes.Buffer
	WriteText(&b, r)
	for _, want := range []string{
		"jobtrace:   total  2 KiB*  3 MiB*\n",
		"jobtrace:   * the host's disks: the job's own IO could not be read\n",
		"jobtrace:   host disk IO                10 B/s  10 B/s   0 B/s\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("missing %q in\n%s", want, b.String())
		}
	}
	b.Reset()
	WriteMarkdown(&b, r)
	if !strings.Contains(b.String(), "| **total** | 2 KiB* | 3 MiB* |") ||
		!strings.Contains(b.String(), "\\* the host's disks") {
		t.Errorf("got\n%s", b.String())
	}
}

// Past the model's bound the spans are counted and said; the job's span,
// which ends last, is still the job's.
func TestBoundReported(t *testing.T) {
	f := newFixture(t)
	ctx, root := f.tracer.Start(context.Background(), "job", jobSpan)
	for range spool.MaxReadSpans + 3 {
		_, sp := f.tracer.Start(ctx, "step")
		sp.End()
	}
	root.End()
	run := f.run(t)
	r := Build(run, JobInfo{Name: "job"})
	if !run.HasJob || r.Dropped != 3 || len(r.Phases) != MaxListed || r.Unlisted != spool.MaxReadSpans-MaxListed {
		t.Fatalf("job %v, dropped %d, listed %d, unlisted %d", run.HasJob, r.Dropped, len(r.Phases), r.Unlisted)
	}
	var b bytes.Buffer
	WriteText(&b, r)
	if want := fmt.Sprintf("\njobtrace:   (3 more spans not listed: limit %d)\n", spool.MaxReadSpans); !strings.Contains(b.String(), want) {
		t.Errorf("text does not mention the dropped spans")
	}
	b.Reset()
	WriteMarkdown(&b, r)
	if want := fmt.Sprintf(" 3 more spans not listed (limit %d).\n", spool.MaxReadSpans); !strings.Contains(b.String(), want) {
		t.Errorf("markdown does not mention the dropped spans")
	}
}

func TestTitle(t *testing.T) {
	cases := []struct {
		r    Summary
		want string
	}{
		{Summary{Result: "success", Duration: time.Second}, "job x succeeded after 1s"},
		{Summary{Result: "failure", ExitCode: 2}, "job x failed with exit code 2"},
		{Summary{Result: "timeout", ExitCode: 124}, "job x timed out with exit code 124"},
		{Summary{Result: "cancellation", ExitCode: 143}, "job x was cancelled with exit code 143"},
		{Summary{Result: "error"}, "job x ended in error"},
		{Summary{Result: "skip"}, "job x ended: skip"},
	}
	for _, c := range cases {
		if got := title(&c.r, "x"); got != c.want {
			t.Errorf("title(%+v) = %q, want %q", c.r, got, c.want)
		}
	}
}

type failingWriter struct{ n int }

func (w *failingWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, fmt.Errorf("disk full")
}

func TestWriteOnceAndReportError(t *testing.T) {
	r := job(t)
	for name, write := range map[string]func(*failingWriter) error{
		"text":     func(w *failingWriter) error { return WriteText(w, r) },
		"markdown": func(w *failingWriter) error { return WriteMarkdown(w, r) },
	} {
		w := &failingWriter{}
		if err := write(w); err == nil || w.n != 1 {
			t.Errorf("%s: error %v after %d writes; want the error, once", name, err, w.n)
		}
	}
}

// A job of many phases lists the failed and the longest with their
// ancestors, in tree order, and says how many it left out.
func TestLongListsKeepTheFailedAndTheLongest(t *testing.T) {
	var rows []Row
	var parent []int
	// 50 top-level phases of 1..50 s, each with 3 children of a tenth of
	// that; one short child deep in the first is failed.
	for i := 1; i <= 50; i++ {
		d := time.Duration(i) * time.Second
		top := len(rows)
		rows, parent = append(rows, Row{Name: fmt.Sprintf("p%d", i), Duration: d}), append(parent, -1)
		for k := 0; k < 3; k++ {
			rows, parent = append(rows, Row{Name: fmt.Sprintf("p%d.%d", i, k), Depth: 1, Duration: d / 10}), append(parent, top)
		}
	}
	rows[2].Failed = true // p1.1
	kept, unlisted := limitRows(rows, parent, 10)
	var names []string
	for _, r := range kept {
		names = append(names, r.Name)
	}
	want := "p1 p1.1 p43 p44 p45 p46 p47 p48 p49 p50"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("kept %s\nwant %s", got, want)
	}
	if unlisted != len(rows)-len(kept) {
		t.Errorf("unlisted %d, want %d", unlisted, len(rows)-len(kept))
	}
	if all, n := limitRows(rows[:8], parent[:8], 10); len(all) != 8 || n != 0 {
		t.Errorf("a short list is cut: %d rows, %d unlisted", len(all), n)
	}
	var b bytes.Buffer
	WriteText(&b, Summary{Name: "job", Phases: kept, Unlisted: unlisted})
	if !strings.Contains(b.String(), fmt.Sprintf("(%d shorter phases not listed: limit %d;", unlisted, MaxListed)) {
		t.Errorf("text does not say what it left out:\n%s", b.String())
	}
}

// A phase listed in a long list comes with every phase above it, deeper
// than the tables indent (MaxDepth) too: the model's parents, not the
// nesting the indentation shows. Before, a failed phase at depth 9 was
// listed without its parent at depth 8, both indented to 8.
func TestLongListsKeepEveryAncestor(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	sec := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	job := runmodel.Span{Name: "job", ID: trace.SpanID{1}, Start: sec(0), End: sec(1000),
		Attributes: []attribute.KeyValue{runmodel.AttrTaskName.String("job")}}
	spans := []runmodel.Span{job}
	parent := job.ID
	for k := range MaxDepth + 2 { // depths 0 to MaxDepth+1, the deepest failed
		id := trace.SpanID{2, byte(k)}
		spans = append(spans, runmodel.Span{Name: fmt.Sprintf("c%d", k), ID: id, Parent: parent,
			Start: sec(k), End: sec(100 - k), Failed: k == MaxDepth+1})
		parent = id
	}
	for i := range MaxListed { // shorter failed phases, enough to fill the list
		spans = append(spans, runmodel.Span{Name: fmt.Sprintf("f%d", i), ID: trace.SpanID{3, byte(i)}, Parent: job.ID,
			Start: sec(200 + i), End: sec(201 + i), Failed: true})
	}
	r := Build(runmodel.New(spans, nil), JobInfo{Name: "job"})
	listed := map[string]bool{}
	for _, row := range r.Phases {
		listed[row.Name] = true
	}
	for k := range MaxDepth + 2 {
		if name := fmt.Sprintf("c%d", k); !listed[name] {
			t.Errorf("%s not listed: %d phases listed, %d left out", name, len(r.Phases), r.Unlisted)
		}
	}
}
