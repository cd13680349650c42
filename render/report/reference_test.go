package report

import (
	"bytes"
	"encoding/json"
	"html/template"
	"math"
	"sync"
	"testing"

	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
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

// referenceHTML is p written by referencePage.
func referenceHTML(tb testing.TB, p *page) []byte {
	tb.Helper()
	var b bytes.Buffer
	if err := referencePage().Execute(&b, p); err != nil {
		tb.Fatal(err)
	}
	return b.Bytes()
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
			Phases: []phaseMark{{N: s, D: k, S: x, E: y, F: failed, V: u}, {N: v}},
		})
	})
}
