package report

import (
	"bytes"
	"encoding/json"
	"html/template"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
	"github.com/jobtrace/jobtrace/rundiff"
	"github.com/jobtrace/jobtrace/runmodel"
)

// referencePage is report.html as an html/template, the page appendPage
// writes by hand: its output, escaping included, is appendPage's
// (TestPageAsHTMLTemplate, FuzzPageAsHTMLTemplate).
var referencePage = sync.OnceValue(parseReference)

func parseReference() *template.Template {
	return template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
{{.Style}}
` + pageCSS + `</style>
</head>
<body>
<main>
<h1>{{.Job.Name}}<span class="badge{{if .Failed}} fail{{end}}">{{.Result}}</span></h1>
<dl class="meta">
<div><dt>Result</dt><dd>{{.Result}}</dd></div>
<div><dt>Exit code</dt><dd>{{if .Job.ExitCode}}{{.Job.ExitCode}}{{else}}–{{end}}</dd></div>
<div><dt>Duration</dt><dd>{{.Duration}}</dd></div>
<div><dt>Started</dt><dd>{{.Start}}</dd></div>
<div><dt>Host</dt><dd>{{if .Job.Host}}{{.Job.Host}}{{else}}–{{end}}</dd></div>
<div><dt>Service</dt><dd>{{if .Job.Service}}{{.Job.Service}}{{else}}–{{end}}</dd></div>
</dl>
{{if or .Verdict.Kind .Advice.Kind}}<div class="insight">
{{with .Verdict}}{{if .Kind}}<p class="verdict"><span class="lbl">Verdict</span><span class="vk {{.Kind}}">{{.Kind}}</span> {{.Reason}}</p>
{{end}}{{end}}{{with .Advice}}{{if .Kind}}<p class="advice"><span class="lbl">Machine</span><span class="ak {{.Kind}}">{{.Kind}}</span> {{.Text}}</p>
{{end}}{{end}}</div>{{end}}
<h2>Timeline</h2>
<div class="card">
{{.Gantt}}
{{.Charts}}
</div>
<p class="note">Times are from the start of the job; <span class="failkey">red</span> bars are failed phases, <span class="evkey">◆</span> marks an event. Hover a bar, an event or a chart for its values. {{.Samples}} samples{{if gt .Samples 1000}}, drawn as at most 1000 points a series (each the highest of the samples it stands for){{end}}.</p>
<h2>Phases</h2>
<div class="tablewrap">
<table>
<thead><tr><th>Phase</th><th>Start</th><th>Duration</th><th>CPU</th><th>Avg CPU</th><th>Peak CPU</th><th>Peak memory</th><th>Disk read</th><th>Disk written</th><th>Result</th><th>Verdict</th></tr></thead>
<tbody>
{{range .Phases}}<tr{{if .Failed}} class="fail"{{end}}><td style="padding-left:{{.Indent}}px">{{.Name}}</td><td>{{.Start}}</td><td>{{.Duration}}</td><td>{{.CPU}}</td><td>{{.CPUAvg}}</td><td>{{.CPUPeak}}</td><td>{{.Memory}}</td><td>{{.Read}}</td><td>{{.Write}}</td><td class="res{{if .Failed}} fail{{end}}">{{.Result}}</td><td class="why">{{with .Verdict}}{{if .Kind}}<span class="vk {{.Kind}}">{{.Kind}}</span> {{.Reason}}{{else}}–{{end}}{{end}}</td></tr>
{{end}}</tbody>
</table>
</div>
{{if .More}}<p class="note">… and {{.More}} more phases, not shown.</p>{{end}}
{{.Diff}}</main>
<script type="application/json" id="xh-data">{{.Cross}}</script>
<script>{{.Script}}</script>
</body>
</html>
`))
}

// referenceView is p as referencePage takes it: its markup typed as
// html/template's trusted content, written as it is.
type referenceView struct {
	*page
	Gantt, Charts, Diff template.HTML
	Style               template.CSS
	Cross, Script       template.JS
}

// referenceHTML is p written by referencePage.
func referenceHTML(tb testing.TB, p *page) []byte {
	tb.Helper()
	v := referenceView{page: p, Gantt: template.HTML(p.Gantt), Charts: template.HTML(p.Charts), Diff: template.HTML(p.Diff),
		Style: template.CSS(p.Style), Cross: template.JS(p.Cross), Script: template.JS(p.Script)}
	var b bytes.Buffer
	if err := referencePage().Execute(&b, v); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
}

// referenceDiff is the diff section as an html/template, the section
// appendDiffTable writes by hand (TestDiffAsHTMLTemplate,
// FuzzDiffAsHTMLTemplate).
var referenceDiff = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("diff").Parse(diffCSS + `<h2 id="diff">Compared with {{.Against}}</h2>
{{if .Job}}<p class="note"><b>Job:</b> {{.Job}}</p>{{end}}
<div class="tablewrap">
<table class="diff">
<thead><tr>{{range .Heads}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr class="{{.Status}}{{if .Outside}} outside{{end}}{{if .Job}} jobrow{{end}}"><td style="padding-left:{{.Indent}}px">{{.Name}}</td>{{range .Figures}}<td>{{.}}</td>{{end}}<td class="why">{{.Why}}</td></tr>
{{end}}</tbody>
</table>
</div>
<p class="note">A change under the noise rule is "same"; the cause is the first rule of jobtrace's table that holds (docs/diff.md).{{if .More}} … and {{.More}} more phases, the least changed, not shown.{{end}}</p>
`))
})

// diffView is what referenceDiff fills in.
type diffView struct {
	Against string
	Job     string
	Heads   []string
	Rows    []diffRow
	More    int
}

type diffRow struct {
	Name    string
	Figures []string // the cells between the name and the cause
	Why     string
	Indent  int
	Job     bool
	Status  string
	Outside bool
}

// sameDiff: appendDiffTable writes what referenceDiff writes.
func sameDiff(tb testing.TB, against, job string, t rundiff.Table) {
	tb.Helper()
	v := diffView{Against: against, Job: job, Heads: t.Heads, More: t.Unlisted}
	for _, r := range t.Rows {
		indent := 10
		if !r.Job {
			indent += 16 * min(r.Depth+1, maxIndent)
		}
		c := r.Cells
		v.Rows = append(v.Rows, diffRow{Name: c[0], Figures: c[1 : len(c)-1], Why: c[len(c)-1], Indent: indent, Job: r.Job, Status: string(r.Status), Outside: r.Outside})
	}
	var want bytes.Buffer
	if err := referenceDiff().Execute(&want, v); err != nil {
		tb.Fatal(err)
	}
	if d := fuzzcheck.FirstDifference(appendDiffTable(nil, against, job, t), want.Bytes()); d != "" {
		tb.Fatalf("the diff section %s (want: html/template's)", d)
	}
}

// The diff section of the fixture compared with itself slowed down, with
// hostile labels, is byte for byte html/template's.
func TestDiffAsHTMLTemplate(t *testing.T) {
	base, run := readRun(t), readRun(t)
	for i := range run.Phases {
		run.Phases[i].End = run.Phases[i].End.Add(time.Duration(i) * time.Second)
	}
	d := rundiff.Compare([]*runmodel.Run{base, base}, run)
	against := d.Against(rundiff.Labels{Base: []string{"<b>base</b>\x1b[31m", "a & 'b'"}, Run: "new"}, func(s string) string { return s })
	tab := d.Table()
	if len(tab.Rows) < 2 {
		t.Fatalf("a table of %d rows", len(tab.Rows))
	}
	sameDiff(t, against, d.JobLine(), tab)
	tab.Unlisted = 4
	sameDiff(t, against, "", tab)
}

// FuzzDiffAsHTMLTemplate: whatever the names, labels, figures and causes
// (invalid UTF-8, NUL, markup, quotes, +), the diff section
// appendDiffTable writes is html/template's.
func FuzzDiffAsHTMLTemplate(f *testing.F) {
	f.Add("base", "job 1.0s", "compile", "+3.0s", "slower", 0, 2, true)
	f.Add(`<script>alert(1)</script>`, `"&'+<>`, "\x00\x01\xff\xfe\ufdd0", "x\" onmouseover=\"y", "", -1, 9, false)
	f.Fuzz(func(t *testing.T, s, u, v, w, status string, depth, more int, job bool) {
		sameDiff(t, s, u, rundiff.Table{
			Heads: []string{s, u, v, w},
			Rows: []rundiff.TableRow{
				{Cells: []string{s, u, v, w}, Depth: depth, Job: job, Status: rundiff.Status(status), Outside: !job},
				{Cells: []string{v, w}, Depth: more, Status: rundiff.Status(w)},
			},
			Unlisted: more,
		})
	})
}

func samePage(tb testing.TB, p *page) {
	tb.Helper()
	if d := fuzzcheck.FirstDifference(appendPage(nil, p), referenceHTML(tb, p)); d != "" {
		tb.Fatalf("the page %s (want: html/template's)", d)
	}
}

// The page of the fixture, of TestEscaping's hostile names and of a run
// with a diff, a verdict, advice and more phases than shown is byte for
// byte html/template's.
func TestPageAsHTMLTemplate(t *testing.T) {
	for _, d := range []*Data{loadRun(t), hostileData()} {
		p, err := pageOf(d, drawCharts(d, newAxis(d.Job.Start, d.Job.End)))
		if err != nil {
			t.Fatal(err)
		}
		samePage(t, &p)
		p.More, p.Samples = 3, 1001
		p.Verdict = verdict.Verdict{Kind: verdict.CPUBound, Reason: "<why> & 'how' +1"}
		p.Advice = sizing.Advice{Kind: sizing.NeedsMemory, Text: "more \x00 \"memory\""}
		p.Diff = "<p>diff</p>"
		samePage(t, &p)
	}
}

// FuzzPageAsHTMLTemplate: whatever the strings from the job (invalid
// UTF-8, NUL and other control characters, markup, quotes, +), the page
// appendPage writes is html/template's.
func FuzzPageAsHTMLTemplate(f *testing.F) {
	f.Add("job", "phase", "because", "", 0, false)
	f.Add(`<script>alert(1)</script>`, `"&'+<>`, "\x00\x01\xff\xfe\ufdd0\uffff", "cpu-bound", 1001, true)
	f.Add("\u2028\u2029</title>", "</style><b>", "ctl\x1b[0m", "x\" onmouseover=\"y", -1, true)
	f.Fuzz(func(t *testing.T, s, u, v, k string, n int, failed bool) {
		p := page{
			Title: s, Job: Job{Name: s, ExitCode: v, Host: u, Service: k},
			Result: u, Failed: failed, Duration: v, Start: k, More: n, Samples: n,
			Verdict: verdict.Verdict{Kind: verdict.Kind(k), Reason: v},
			Advice:  sizing.Advice{Kind: sizing.Kind(s), Text: u},
			Gantt:   "<svg></svg>", Charts: "<svg></svg>", Style: "svg{}", Cross: "{}", Script: "var a;",
			Phases: []tableRow{
				{Name: s, Indent: n, Start: u, Duration: v, CPU: k, CPUAvg: s, CPUPeak: u, Memory: v, Read: k, Write: s, Result: u, Failed: failed, Verdict: verdict.Verdict{Kind: verdict.Kind(u), Reason: s}},
				{Name: v, Indent: 26, Result: k, Failed: !failed},
			},
		}
		samePage(t, &p)
	})
}

// sameCross: appendCross writes what json.Marshal writes for x, or fails
// where it fails.
func sameCross(tb testing.TB, x *crossData) {
	tb.Helper()
	want, wantErr := json.Marshal(x)
	got, err := appendCross(nil, x)
	if (err != nil) != (wantErr != nil) {
		tb.Fatalf("error %v, encoding/json's %v", err, wantErr)
	}
	if d := fuzzcheck.FirstDifference(got, want); wantErr == nil && d != "" {
		tb.Fatalf("the crosshair's data %s (want: encoding/json's)", d)
	}
}

// The crosshair's data of the fixture and of hostile names is byte for
// byte encoding/json's.
func TestCrossAsEncodingJSON(t *testing.T) {
	for _, d := range []*Data{loadRun(t), hostileData()} {
		c := drawCharts(d, newAxis(d.Job.Start, d.Job.End))
		p, err := pageOf(d, c)
		if err != nil {
			t.Fatal(err)
		}
		var x crossData
		if err := json.Unmarshal([]byte(p.Cross), &x); err != nil {
			t.Fatal(err)
		}
		if len(x.Plots) == 0 || len(x.Phases) == 0 {
			t.Fatalf("no plots or phases: %s", p.Cross)
		}
		sameCross(t, &x)
	}
}

// FuzzCrossAsEncodingJSON: whatever the names and figures, appendCross
// writes what json.Marshal writes (NaN and infinities an error in both).
func FuzzCrossAsEncodingJSON(f *testing.F) {
	f.Add("cpu", "<script>", "\u2028\xff\x00&", 1.5, 1e21, int64(1700000000000), 3, true)
	f.Add("", "", "", math.NaN(), 0.0, int64(-1), 0, false)
	f.Add("a", "b", "c", 1e-7, math.Inf(1), int64(0), -5, false)
	f.Fuzz(func(t *testing.T, s, u, v string, x, y float64, n int64, k int, failed bool) {
		var ys []float64
		if failed {
			ys = []float64{x, -1}
		}
		sameCross(t, &crossData{X0: x, W: y, Span: x, T0: n, GTop: y, T: []float64{x, y}, MaxActive: k,
			Plots: []plotData{{Title: s, Top: x, Bottom: y, Series: []seriesPlot{
				{Name: u, Color: v, V: []string{s, v}, Y: ys}, {Name: s, V: nil}, {Name: v, V: []string{}, Y: []float64{}}}}, {Title: v}},
			Phases: []phaseMark{{N: s, D: k, U: -1, F: failed, V: u}, {N: v, U: k}}, P: []int{k, -1},
		})
	})
}
