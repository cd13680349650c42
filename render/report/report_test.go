package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"html/template"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/internal/figure"
	"github.com/jobtrace/jobtrace/runmodel"
)

// testdata/run holds the artifacts of a real run of a job with nested
// phases, one of them named <script>alert(1)</script> and failed.
const runDir = "testdata/run"

func readRun(t *testing.T) *runmodel.Run {
	t.Helper()
	run, warn, err := runmodel.ReadDir(runDir)
	if err != nil || warn != nil {
		t.Fatalf("ReadDir: %v, warn %v", err, warn)
	}
	return run
}

func loadRun(t *testing.T) *Data {
	t.Helper()
	return dataOf(readRun(t))
}

func TestView(t *testing.T) {
	d := loadRun(t)
	if d.Job.Name != "job.sh" || d.Job.Result != "failure" || d.Job.ExitCode != "3" {
		t.Errorf("job = %q %q %q, want job.sh failure 3", d.Job.Name, d.Job.Result, d.Job.ExitCode)
	}
	if d.Job.Host == "" || d.Job.Service == "" {
		t.Errorf("host %q service %q", d.Job.Host, d.Job.Service)
	}
	depth := map[string]int{}
	failed := map[string]bool{}
	for _, p := range d.Phases {
		depth[p.Name] = p.Depth
		failed[p.Name] = p.Failed
		if p.End.Before(p.Start) || p.Start.Before(d.Job.Start) {
			t.Errorf("phase %q: %v to %v, job from %v", p.Name, p.Start, p.End, d.Job.Start)
		}
	}
	for name, want := range map[string]int{"checkout": 0, "build": 0, "compile": 1, "<script>alert(1)</script>": 1, "test": 0} {
		if got, ok := depth[name]; !ok || got != want {
			t.Errorf("phase %q: depth %d (present %v), want %d", name, got, ok, want)
		}
	}
	if !failed["<script>alert(1)</script>"] || failed["compile"] {
		t.Errorf("failed = %v", failed)
	}
	if len(d.Rows) < 3 {
		t.Errorf("%d rows", len(d.Rows))
	}
}

// The report of the fixture is byte for byte what it was when the report
// read the artifacts itself (testdata/*.golden, written then), but for the
// page's charts, which show usage.svg's drawing through a view box below
// its head.
func TestGolden(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, readRun(t)); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{HTMLName, SVGName} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join("testdata", name+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from testdata/%s.golden", name, name)
		}
	}
}

// The page's charts are usage.svg's, drawn once: the same bytes between the
// head of usage.svg and its end, shown by the page below the head.
func TestPageShowsUsageSVGDrawing(t *testing.T) {
	h, s := render(t, dataOf(readRun(t)))
	head := `<text class="t" x="6" y="20">`
	i := strings.Index(s, head)
	if i < 0 {
		t.Fatalf("usage.svg names no job:\n%.300s", s)
	}
	body := s[i:]
	body = body[strings.IndexByte(body, '\n')+1 : strings.LastIndex(body, "</svg>")]
	view := fmt.Sprintf(`class="charts" viewBox="0 %d `, chartsHead)
	j := strings.Index(h, view)
	if j < 0 {
		t.Fatalf("the page has no charts seen from y = %d", chartsHead)
	}
	page := h[j:]
	page = page[strings.IndexByte(page, '\n')+1:]
	page = page[:strings.Index(page, "</svg>")]
	if len(body) < 1000 || page != body {
		t.Errorf("the page's charts (%d bytes) are not usage.svg's (%d bytes)", len(page), len(body))
	}
}

func render(t *testing.T, d *Data) (string, string) {
	t.Helper()
	withDurations(d)
	var h, s bytes.Buffer
	if err := writeHTML(&h, d); err != nil {
		t.Fatal(err)
	}
	if err := writeSVG(&s, d); err != nil {
		t.Fatal(err)
	}
	return h.String(), s.String()
}

// checkXML parses s as XML, which SVG must be.
func checkXML(t *testing.T, what, s string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(s))
	for {
		_, err := dec.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", what, err)
		}
	}
}

// checkHTML makes the structural checks that stand in for an HTML parser:
// one document, the SVGs inside it well-formed, every tag that opens a
// block closed, and nothing loaded from elsewhere.
func checkHTML(t *testing.T, h string) {
	t.Helper()
	if !strings.HasPrefix(h, "<!DOCTYPE html>") || !strings.HasSuffix(strings.TrimSpace(h), "</html>") {
		t.Errorf("not one HTML document")
	}
	for _, tag := range []string{"html", "head", "body", "main", "style", "table", "tbody", "svg", "div", "tr", "td", "dl", "h1", "h2", "p"} {
		open := len(regexp.MustCompile(`<`+tag+`[\s>]`).FindAllString(h, -1))
		closed := strings.Count(h, "</"+tag+">")
		if open != closed {
			t.Errorf("<%s>: %d opened, %d closed", tag, open, closed)
		}
	}
	for _, m := range regexp.MustCompile(`(?s)<svg.*?</svg>`).FindAllString(h, -1) {
		checkXML(t, "an inline SVG", m)
	}
	// The only scripts are the crosshair's data and code, inline; nothing
	// from the job closes them or opens a comment.
	scripts := regexp.MustCompile(`(?is)<script[^>]*>(.*?)</script`).FindAllStringSubmatch(h, -1)
	if n := strings.Count(strings.ToLower(h), "<script"); n != 2 || len(scripts) != 2 || strings.Count(strings.ToLower(h), "</script") != 2 {
		t.Fatalf("report has %d script elements, %d closed, want the crosshair's 2", n, len(scripts))
	}
	if !strings.HasPrefix(scripts[0][0], `<script type="application/json" id="xh-data">`) || !strings.HasPrefix(scripts[1][0], `<script>`) {
		t.Errorf("scripts: %.80q, %.80q", scripts[0][0], scripts[1][0])
	}
	var data crossData
	if err := json.Unmarshal([]byte(scripts[0][1]), &data); err != nil {
		t.Errorf("the crosshair's data is not JSON: %v", err)
	}
	if scripts[1][1] != crossScript {
		t.Errorf("the crosshair's script is not crossScript as written")
	}
	for _, bad := range []string{"<!--", " src=", "<link", "<img", "<iframe", "@import", "url("} {
		if strings.Contains(strings.ToLower(h), bad) {
			t.Errorf("report has %q", bad)
		}
	}
	// The only URL allowed is the SVG namespace, which is a name, not a
	// reference to load.
	rest := strings.ReplaceAll(h, `xmlns="http://www.w3.org/2000/svg"`, "")
	if strings.Contains(rest, "http://") || strings.Contains(rest, "https://") {
		t.Errorf("report refers to the network")
	}
}

func TestReport(t *testing.T) {
	d := loadRun(t)
	h, s := render(t, d)
	checkHTML(t, h)
	checkXML(t, "usage.svg", s)
	if strings.Contains(strings.ReplaceAll(s, `xmlns="http://www.w3.org/2000/svg"`, ""), "http") {
		t.Errorf("usage.svg refers to the network")
	}
	for _, p := range d.Phases {
		if !strings.Contains(h, esc(p.Name)) {
			t.Errorf("phase %q is not in the report", p.Name)
		}
	}
	for _, want := range []string{"job.sh", "failure", "Exit code", "CPU", "Memory", "Disk IO", "Network"} {
		if !strings.Contains(h, want) {
			t.Errorf("report lacks %q", want)
		}
	}
	for _, want := range []string{"CPU", "Memory", "Disk IO", "Network", "<title>"} {
		if !strings.Contains(s, want) {
			t.Errorf("usage.svg lacks %q", want)
		}
	}
	if strings.Contains(s, "<rect class=\"bar") {
		t.Errorf("usage.svg has the timeline; it is the charts alone")
	}
}

const evil = `<script>alert(1)</script>`

// hostileData is a run whose job, host, service and phases have names
// made of markup, quotes and control characters.
func hostileData() *Data {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return withDurations(&Data{
		Job: Job{Name: `job "&" <b>`, Result: "failure", Start: start, End: start.Add(time.Minute), Host: `<i>h</i>`, Service: "s'"},
		Phases: []Phase{
			{Name: evil, Start: start, End: start.Add(time.Second), Result: `<x>`, Failed: true},
			{Name: "ctl\x01\x1b[0m", Start: start, End: start.Add(time.Second)},
		},
		Rows: []runmodel.Row{{Time: start}, {Time: start.Add(time.Second)}},
	})
}

// withDurations gives the job and each phase of d the duration of its
// span, as the model gives them (runmodel.Span's Usage.Duration).
func withDurations(d *Data) *Data {
	d.Job.Duration = usage.SpanDuration(d.Job.Start, d.Job.End)
	for i := range d.Phases {
		p := &d.Phases[i]
		p.Duration = usage.SpanDuration(p.Start, p.End)
	}
	return d
}

func TestEscaping(t *testing.T) {
	h, s := render(t, hostileData())
	checkHTML(t, h)
	checkXML(t, "usage.svg", s)
	if strings.Contains(h, evil) || strings.Contains(h, "<b>") || strings.Contains(h, "<i>h") {
		t.Errorf("text from the job is not escaped:\n%s", h)
	}
	if !strings.Contains(h, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the phase name is not shown as text")
	}
}

func TestBounds(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	const phases, rows = MaxPhases + 500, 5 * MaxPoints
	d := &Data{Job: Job{Name: "big", Result: "success", Start: start, End: start.Add(rows * time.Second)}}
	for i := range phases {
		at := start.Add(time.Duration(i) * time.Second)
		d.Phases = append(d.Phases, Phase{Name: fmt.Sprintf("p%d", i), Depth: i % 4, Start: at, End: at.Add(2 * time.Second),
			Events: []runmodel.Event{{Name: "e", Time: at}, {Name: "e", Time: at.Add(time.Second)}}})
	}
	for i := range rows {
		r := runmodel.Row{Time: start.Add(time.Duration(i) * time.Second)}
		for c := range runmodel.HostIOStall + 1 {
			r.Set(c, float64(i%97))
		}
		d.Rows = append(d.Rows, r)
	}
	h, s := render(t, d)
	checkHTML(t, h)
	checkXML(t, "usage.svg", s)
	if n := strings.Count(h, `<rect class="bar`); n > MaxPhases+1 {
		t.Errorf("%d timeline bars, want at most %d", n, MaxPhases+1)
	}
	if !strings.Contains(h, "500 more phases") {
		t.Errorf("the phases left out are not said")
	}
	if n := strings.Count(h, `<path class="ev"`); n != MaxEvents {
		t.Errorf("%d event markers, want %d", n, MaxEvents)
	}
	if want := fmt.Sprintf("%d more events, not shown", 2*phases-MaxEvents); !strings.Contains(h, want) {
		t.Errorf("the events left out are not said (%q)", want)
	}
	charts := strings.Count(s, `class="t"`)
	if n := strings.Count(s, `class="hov"`); n > charts*MaxPoints {
		t.Errorf("%d hover points in %d charts, want at most %d a chart", n, charts, MaxPoints)
	}
	for _, m := range regexp.MustCompile(`d="([^"]*)"`).FindAllStringSubmatch(s, -1) {
		if n := strings.Count(m[1], "L") + 1; n > MaxPoints {
			t.Errorf("a series has %d points, want at most %d", n, MaxPoints)
		}
	}
	if x := crossOf(t, h); len(x.T) > MaxPoints || len(x.Phases) != MaxPhases+1 {
		t.Errorf("the crosshair's data has %d points and %d phases, want at most %d and %d", len(x.T), len(x.Phases), MaxPoints, MaxPhases+1)
	}
	if len(h) > 8<<20 {
		t.Errorf("report is %d bytes", len(h))
	}
}

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, readRun(t)); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{HTMLName, SVGName} {
		if st, err := os.Stat(filepath.Join(dir, name)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func TestValuesRates(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rows := []runmodel.Row{{Time: start}, {Time: start.Add(2 * time.Second)}, {Time: start.Add(3 * time.Second)}, {Time: start.Add(5 * time.Second)}}
	rows[1].Set(runmodel.JobRead, 200)
	rows[3].Set(runmodel.JobRead, 300) // covers rows 2 and 3: 3 s
	got := values(rows, seriesDef{col: runmodel.JobRead, delta: true})
	want := []Opt{{}, {100, true}, {}, {100, true}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// A stall total read a moment after its row's time can run ahead of a
// short window: the chart says at most 100 % of the time.
func TestStallShareAtMostAllTheTime(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	rows := []runmodel.Row{{Time: start}, {Time: start.Add(50 * time.Millisecond)}, {Time: start.Add(100 * time.Millisecond)}}
	rows[1].Set(runmodel.HostIOStall, 0.1) // 100 ms of stall counted in a 50 ms window
	rows[2].Set(runmodel.HostIOStall, 0.025)
	var def seriesDef
	for _, c := range chartDefs(rows) {
		for _, s := range c.series {
			if s.col == runmodel.HostIOStall {
				def = s
			}
		}
	}
	if def.col != runmodel.HostIOStall {
		t.Fatal("no chart draws the host's IO stall")
	}
	got := values(rows, def)
	want := []Opt{{}, {100, true}, {50, true}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d: %v, want %v", i, got[i], want[i])
		}
	}
}

func TestNoJobSpan(t *testing.T) {
	// The agent was killed: the spool has the phases that ended, not the
	// job span, whose id is their parent.
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	d := dataOf(runmodel.New([]runmodel.Span{span(start, 2, 1, "a", 1, 5), span(start, 3, 2, "a1", 2, 3), span(start, 4, 1, "b", 6, 9)}, nil))
	got := map[string]int{}
	for _, p := range d.Phases {
		got[p.Name] = p.Depth
	}
	if len(got) != 3 || got["a"] != 0 || got["a1"] != 1 || got["b"] != 0 {
		t.Errorf("depths %v, want a 0, a1 1, b 0", got)
	}
	if d.Job.End.Sub(d.Job.Start) != 8 {
		t.Errorf("job from %v to %v", d.Job.Start, d.Job.End)
	}
	h, _ := render(t, d)
	checkHTML(t, h)
}

func span(start time.Time, id, parent byte, name string, s, e time.Duration) runmodel.Span {
	return runmodel.Span{Name: name, ID: trace.SpanID{id}, Parent: trace.SpanID{parent}, Start: start.Add(s), End: start.Add(e)}
}

// TestPhasesInTreeOrder lists a child that began before its parent (as
// spans from before the tracker kept the tree could) and siblings out of
// order: the report lists each phase under its parent all the same.
func TestPhasesInTreeOrder(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	job := span(start, 1, 0, "job", 0, 100)
	job.Attributes = []attribute.KeyValue{runmodel.AttrTaskName.String("job")}
	d := dataOf(runmodel.New([]runmodel.Span{
		job,
		span(start, 2, 1, "checkout", 10, 20),
		span(start, 3, 1, "Build", 30, 60),
		span(start, 4, 3, "compile", 29, 40), // begins 1 ns before its parent
		span(start, 6, 3, "link", 45, 50),
		span(start, 5, 4, "cc", 31, 39),
		span(start, 7, 1, "test", 61, 70),
	}, nil))
	var got []string
	for _, p := range d.Phases {
		got = append(got, fmt.Sprintf("%d:%s", p.Depth, p.Name))
	}
	want := []string{"0:checkout", "0:Build", "1:compile", "2:cc", "1:link", "0:test"}
	if !slices.Equal(got, want) {
		t.Errorf("phases %v, want %v", got, want)
	}
}

// A spool from elsewhere may carry control characters as JSON escapes
// ("\u001b"), which html/template writes through as raw bytes: the
// model the report shows is cleaned.
func TestControlCharactersFromAForeignSpool(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"spans.otlp.jsonl", "resource-usage.csv"} {
		b, err := os.ReadFile(filepath.Join(runDir, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "spans.otlp.jsonl" {
			b = bytes.ReplaceAll(b, []byte(`"name":"compile"`), []byte(`"name":"com\u001b[2Jpile\r\n\u0085"`))
			b = bytes.ReplaceAll(b, []byte(`"name":"job.sh"`), []byte(`"name":"job\u0007.sh"`))
		}
		os.WriteFile(filepath.Join(dir, name), b, 0o644)
	}
	run, _, err := runmodel.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(dir, run); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{HTMLName, SVGName} {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []string{"\x1b", "\r", "\x07", "\u0085"} {
			if strings.Contains(string(b), c) {
				t.Errorf("%s holds %q raw", name, c)
			}
		}
		if name == HTMLName && !strings.Contains(string(b), "com\uFFFD[2Jpile") {
			t.Errorf("%s does not show the cleaned name", name)
		}
	}
}

// A phase is shown failed by its span's status, the one rule the summary
// and the profile follow too: a skipped or cancelled phase is not red.
func TestFailedIsTheSpanStatus(t *testing.T) {
	run := &runmodel.Run{Phases: []runmodel.Span{
		{Name: "skipped", Attributes: []attribute.KeyValue{runmodel.AttrResult.String("skipped")}},
		{Name: "cancelled", Attributes: []attribute.KeyValue{runmodel.AttrResult.String("cancelled")}},
		{Name: "broke", Failed: true, Attributes: []attribute.KeyValue{runmodel.AttrResult.String("failure")}},
	}}
	for _, p := range dataOf(run).Phases {
		if p.Failed != (p.Name == "broke") {
			t.Errorf("phase %q (result %q): failed %v", p.Name, p.Result, p.Failed)
		}
	}
}

// The job is shown failed (its badge and its row red) by its result, as
// its span's status is set (wire.Failed): failure, error and timeout are
// red; a cancelled or skipped job is not, nor one whose result is unknown.
func TestJobIsRedOnlyWhenItFailed(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		result string
		failed bool
	}{
		{"cancellation", false}, {"skip", false}, {"", false}, {"success", false},
		{"failure", true}, {"error", true}, {"timeout", true},
	} {
		d := withDurations(&Data{Job: Job{Name: "job", Result: c.result, Start: start, End: start.Add(time.Minute)}})
		p, err := pageOf(d, drawCharts(d, newAxis(d.Job.Start, d.Job.End)))
		if err != nil {
			t.Fatal(err)
		}
		if p.Failed != c.failed || p.Phases[0].Failed != c.failed {
			t.Errorf("job with result %q: badge failed %v, row failed %v, want %v", c.result, p.Failed, p.Phases[0].Failed, c.failed)
		}
		if red := strings.Contains(string(appendPage(nil, &p)), `<span class="badge fail">`); red != c.failed {
			t.Errorf("job with result %q: red badge %v, want %v", c.result, red, c.failed)
		}
	}
}

// Events are markers on their span's row, with their name, time, span and
// attributes in their hover text; text from the job is escaped and clipped.
func TestEvents(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	long := strings.Repeat("x", 5*maxTipRunes)
	attrs := []attribute.KeyValue{attribute.String("key", "deps"), attribute.String("long", long), attribute.Int("n", 3)}
	for i := range MaxEventAttributes {
		attrs = append(attrs, attribute.Int(fmt.Sprintf("a%d", i), i))
	}
	d := &Data{
		Job: Job{Name: "job", Result: "success", Start: start, End: start.Add(10 * time.Second),
			Events: []runmodel.Event{{Name: "job started", Time: start.Add(time.Second)}}},
		Phases: []Phase{{Name: "build", Start: start.Add(2 * time.Second), End: start.Add(8 * time.Second), Events: []runmodel.Event{
			{Name: "cache miss", Time: start.Add(3 * time.Second), Attributes: attrs},
			{Name: `</script><script>alert(1)</script><!--`, Time: start.Add(4 * time.Second)},
			{Name: "no time"},
		}}},
	}
	h, _ := render(t, d)
	checkHTML(t, h)
	markers := regexp.MustCompile(`(?s)<path class="ev" d="M([0-9.]+) [^"]*"><title>(.*?)</title></path>`).FindAllStringSubmatch(h, -1)
	if len(markers) != 3 {
		t.Fatalf("%d event markers, want 3 (the job's and two of build's; one has no time)", len(markers))
	}
	a := newAxis(d.Job.Start, d.Job.End)
	for i, at := range []time.Duration{1, 3, 4} {
		if want := f1(a.x(start.Add(at * time.Second))); markers[i][1] != want {
			t.Errorf("marker %d at x %s, want %s (+%ds)", i, markers[i][1], want, at)
		}
	}
	miss := markers[1][2]
	for _, want := range []string{"cache miss\n+3s (03:04:08.000 UTC) in build", "key = deps", "n = 3", "long = " + strings.Repeat("x", maxTipRunes-1) + "…\n", "… and 3 more attributes"} {
		if !strings.Contains(miss, want) {
			t.Errorf("the hover text of cache miss lacks %q:\n%s", want, miss)
		}
	}
	if !strings.HasPrefix(markers[2][2], "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;!--") {
		t.Errorf("the event name is not escaped: %s", markers[2][2])
	}
	if !strings.Contains(h, "1 more events, not shown") {
		t.Errorf("the event without a time is not counted as not shown")
	}
}

// The verdicts the session set on the spans are read back, not judged
// again: the job's at the top, each phase's in its table row and its
// bar's hover text.
func TestVerdicts(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	job := span(start, 1, 0, "job", 0, 100*time.Second)
	job.Attributes = append(verdict.Verdict{Kind: verdict.Starved, Reason: "waited for a CPU 40 % of the time"}.Attributes(), runmodel.AttrTaskName.String("job"))
	build := span(start, 2, 1, "build", 10*time.Second, 60*time.Second)
	build.Attributes = verdict.Verdict{Kind: verdict.CPUBound, Reason: `kept 1.9 of 2 CPUs busy <b>`}.Attributes()
	odd := span(start, 3, 1, "odd", 60*time.Second, 70*time.Second)
	odd.Attributes = []attribute.KeyValue{verdict.AttrKind.String("bogus"), verdict.AttrReason.String("not a verdict")}
	d := dataOf(runmodel.New([]runmodel.Span{job, build, odd}, nil))
	h, _ := render(t, d)
	checkHTML(t, h)
	top := h[strings.Index(h, "<main>"):strings.Index(h, "<h2>Timeline")]
	if !strings.Contains(top, `<span class="vk starved">starved</span> waited for a CPU 40 % of the time`) {
		t.Errorf("the job's verdict is not at the top:\n%s", top)
	}
	rows := regexp.MustCompile(`(?s)<tr[^>]*><td[^>]*>([^<]*)</td>.*?<td class="why">(.*?)</td></tr>`).FindAllStringSubmatch(h, -1)
	got := map[string]string{}
	for _, r := range rows {
		got[r[1]] = r[2]
	}
	want := map[string]string{
		"job":   `<span class="vk starved">starved</span> waited for a CPU 40 % of the time`,
		"build": `<span class="vk cpu-bound">cpu-bound</span> kept 1.9 of 2 CPUs busy &lt;b&gt;`,
		"odd":   "–",
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("verdict cell of %s = %q, want %q", name, got[name], w)
		}
	}
	if !strings.Contains(h, "verdict cpu-bound: kept 1.9 of 2 CPUs busy &lt;b&gt;</title>") {
		t.Errorf("build's bar does not say its verdict")
	}
}

// crossOf reads the crosshair's data back from a page.
func crossOf(t *testing.T, h string) crossData {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="xh-data">(.*?)</script>`).FindStringSubmatch(h)
	if m == nil {
		t.Fatal("the page has no crosshair data")
	}
	var d crossData
	if err := json.Unmarshal([]byte(m[1]), &d); err != nil {
		t.Fatal(err)
	}
	return d
}

// A chart that draws no line (a run whose job's disk IO was never read)
// has an empty list of series in the crosshair's data, which its script
// walks for every chart: null stopped the script before it drew
// anything, and the crosshair never showed.
func TestCrosshairDataOfAnEmptyChart(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var rows []runmodel.Row
	for i := range 3 {
		r := runmodel.Row{Time: start.Add(time.Duration(i) * time.Second)}
		r.Set(runmodel.JobCPUPct, 50)
		rows = append(rows, r)
	}
	h, _ := render(t, &Data{Job: Job{Name: "job", Start: start, End: start.Add(3 * time.Second)}, Rows: rows})
	x := crossOf(t, h)
	if len(x.Plots) < 2 {
		t.Fatalf("%d charts, want the CPU's and those of no line", len(x.Plots))
	}
	for _, p := range x.Plots {
		if p.Series == nil {
			t.Errorf("chart %s: its series are null in the crosshair's data", p.Title)
		}
	}
}

// The crosshair shows at each point what the chart's hover text says
// there, series by series, with its dot where the line is.
func TestCrosshairValuesAreTheHoverTexts(t *testing.T) {
	d := loadRun(t)
	h, _ := render(t, d)
	x := crossOf(t, h)
	if len(x.T) != len(d.Rows) || len(x.Plots) < 4 {
		t.Fatalf("%d points in %d plots, want %d points (one a row) in 4 or more", len(x.T), len(x.Plots), len(d.Rows))
	}
	charts := h[strings.Index(h, `class="charts"`):]
	titles := regexp.MustCompile(`<rect class="hov"[^>]*><title>([^<]*)</title>`).FindAllStringSubmatch(charts, -1)
	if len(titles) != len(x.Plots)*len(x.T) {
		t.Fatalf("%d hover texts for %d plots of %d points", len(titles), len(x.Plots), len(x.T))
	}
	a := newAxis(d.Job.Start, d.Job.End)
	times := drawCharts(d, a).times
	if len(times) != len(x.T) {
		t.Fatalf("%d points drawn, %d in the crosshair's data", len(times), len(x.T))
	}
	for k, p := range x.Plots {
		for i := range x.T {
			lines := strings.Split(titles[k*len(x.T)+i][1], "\n")
			at := times[i].Sub(a.start)
			if math.Abs(x.T[i]-float64(at)/1e6) > 0.05 {
				t.Errorf("%s point %d at %v ms in the crosshair's data, drawn at %v", p.Title, i, x.T[i], at)
			}
			if want := "+" + figure.Duration(at); !strings.HasPrefix(lines[0], want) {
				t.Errorf("%s point %d at %v; its hover text says %q", p.Title, i, at, lines[0])
			}
			var got []string
			for _, s := range p.Series {
				if s.Color != "" || s.V[i] != "–" {
					got = append(got, s.Name+": "+s.V[i])
				}
				if s.Color != "" && (s.Y[i] < 0) != (s.V[i] == "–") {
					t.Errorf("%s %s point %d: value %q, dot at %v", p.Title, s.Name, i, s.V[i], s.Y[i])
				}
			}
			if !slices.Equal(got, lines[1:]) {
				t.Errorf("%s point %d: crosshair %q, hover text %q", p.Title, i, got, lines[1:])
			}
		}
		if p.Top < chartsHead || p.Bottom-p.Top != chartPlot {
			t.Errorf("%s plot from %v to %v", p.Title, p.Top, p.Bottom)
		}
	}
	if x.X0 != plotLeft || x.W != plotWidth || x.Span != float64(a.span)/1e6 || x.T0 != d.Job.Start.UnixMilli() {
		t.Errorf("axis %v + %v for %v ms from %v", x.X0, x.W, x.Span, x.T0)
	}
	if len(x.Phases) != 1+len(d.Phases) || x.Phases[0].N != d.Job.Name {
		t.Errorf("%d phases in the crosshair's data, want the job and %d", len(x.Phases), len(d.Phases))
	}
}

// Names that are markup, script, comment openers, line separators, invalid
// UTF-8 or very long go into the crosshair's data as JSON strings that
// cannot end its script element, clipped to maxTipRunes.
func TestCrosshairDataIsSafe(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	names := []string{"</script><script>alert(1)</script>", "<!--", "</SCRIPT >", "a\u2028b\u2029c", "bad \xff\xfe utf-8", "ctl\x00\x1b[2J", strings.Repeat("é", 10*maxTipRunes)}
	d := &Data{Job: Job{Name: "job", Result: "success", Start: start, End: start.Add(time.Minute)}, Rows: []runmodel.Row{{Time: start}, {Time: start.Add(time.Second)}}}
	for i, n := range names {
		d.Phases = append(d.Phases, Phase{Name: n, Start: start.Add(time.Duration(i) * time.Second), End: start.Add(time.Duration(i+1) * time.Second)})
	}
	h, _ := render(t, d)
	checkHTML(t, h)
	data := h[strings.Index(h, `id="xh-data">`):]
	data = data[:strings.Index(data, "</script>")]
	for _, bad := range []string{"<", ">", "\u2028", "\u2029", "\x00", "\x1b"} {
		if strings.Contains(data[len(`id="xh-data">`):], bad) {
			t.Errorf("the crosshair's data holds %q raw", bad)
		}
	}
	x := crossOf(t, h)
	for i, n := range names {
		got := x.Phases[i+1].N
		want := cleantext.CutRunes(string([]rune(n)), maxTipRunes) // each invalid byte a U+FFFD
		if got != want {
			t.Errorf("phase %d: %q in the crosshair's data, want %q", i, got, want)
		}
	}
}

// The job's right-sizing advice is the model's (runmodel.Run.Advice), at
// the top beside the verdict, escaped; an advice of kind unknown (no
// figures) is not shown.
func TestAdvice(t *testing.T) {
	run := readRun(t)
	d := dataOf(run)
	if want := run.Advice(); d.Advice.Kind != want.Kind || d.Advice.Text != want.Text || d.Advice.Kind == "" {
		t.Errorf("advice %+v, want the model's %+v", d.Advice, want)
	}
	h, _ := render(t, d)
	top := h[strings.Index(h, "<main>"):strings.Index(h, "<h2>Timeline")]
	if want := `<span class="ak ` + string(d.Advice.Kind) + `">` + string(d.Advice.Kind) + `</span> ` + template.HTMLEscapeString(d.Advice.Text); !strings.Contains(top, want) {
		t.Errorf("the advice is not at the top: want %q in\n%s", want, top)
	}
	d.Advice = sizing.Advice{Kind: sizing.NeedsMemory, Text: `hit memory pressure for 41 s: <b>needs more memory</b>`}
	h, _ = render(t, d)
	if !strings.Contains(h, `<span class="ak needs-memory">needs-memory</span> hit memory pressure for 41 s: &lt;b&gt;needs more memory&lt;/b&gt;`) {
		t.Errorf("the advice is not shown escaped")
	}
	d.Advice = sizing.Advise(sizing.Figures{})
	h, _ = render(t, d)
	if d.Advice.Kind != sizing.Unknown || strings.Contains(h, `class="advice"`) {
		t.Errorf("advice of kind %q shown", d.Advice.Kind)
	}
}

var updateSums = flag.Bool("update-sums", false, "rewrite testdata/sums.txt from the reports rendered now")

// sumsFile holds the SHA-256 of report.html and usage.svg for each of
// variedData's runs, as the report rendered them when it was written.
const sumsFile = "testdata/sums.txt"

// variedData is a run made from seed: phases at every depth, failed or
// not, with or without verdicts, usage figures and events with attributes;
// rows with any of the columns, values from thousandths to petabytes (the
// odd NaN and infinity in the spans' figures); a job from milliseconds to
// days long.
func variedData(seed uint64) *Data {
	r := rand.New(rand.NewPCG(seed, 1))
	start := time.Date(2026, 1, 2, 3, 4, 5, int(r.Int64N(1e9)), time.UTC)
	spans := []time.Duration{80 * time.Millisecond, 2 * time.Second, 45 * time.Second, 20 * time.Minute, 5 * time.Hour, 50 * time.Hour}
	long := spans[seed%uint64(len(spans))]
	at := func() time.Time { return start.Add(time.Duration(r.Int64N(int64(long) + 1))) }
	figure := func(odd bool) float64 {
		switch r.IntN(20) {
		case 0:
			return 0
		case 1:
			if odd {
				return math.NaN()
			}
		case 2:
			if odd {
				return math.Inf(1)
			}
		}
		return math.Pow(10, r.Float64()*18-3)
	}
	opt := func() Opt {
		if r.IntN(4) == 0 {
			return Opt{}
		}
		return Opt{figure(true), true}
	}
	use := func() Usage {
		return Usage{CPUUser: opt(), CPUSystem: opt(), CPUAvg: opt(), CPUPeak: opt(), MemoryPeak: opt(), DiskRead: opt(), DiskWrite: opt()}
	}
	names := []string{"build", "test", "<b>x</b>", "ünïcødé ✓", "a very long phase name that goes on and on past the column", "q\"'&", "ctl\x01\x7f", "bad\xe2\x82", "\xff\xfe", "\uFFFE", ""}
	pick := func() string { return names[r.IntN(len(names))] }
	events := func() []runmodel.Event {
		var evs []runmodel.Event
		for range r.IntN(3) {
			e := runmodel.Event{Name: pick(), Time: at()}
			if r.IntN(5) == 0 {
				e.Time = time.Time{}
			}
			for i := range r.IntN(4) {
				e.Attributes = append(e.Attributes, attribute.String("k"+strconv.Itoa(i), pick()), attribute.Float64("f", figure(true)))
			}
			evs = append(evs, e)
		}
		return evs
	}
	verdicts := []verdict.Verdict{{}, {Kind: verdict.CPUBound, Reason: "kept 1.9 of 2 CPUs busy <b>"}, {Kind: verdict.Starved, Reason: "waited"}}
	d := &Data{Job: Job{Name: pick(), Result: []string{"", "success", "failure"}[r.IntN(3)], ExitCode: "3",
		Start: start, End: start.Add(long), Host: pick(), Service: pick(), Usage: use(),
		Verdict: verdicts[r.IntN(len(verdicts))], Events: events()}}
	if seed%7 == 3 {
		d.Job.Start, d.Job.End = time.Time{}, time.Time{}
	}
	d.Skipped = int(seed % 5 / 4)
	for range r.IntN(30) {
		s := at()
		d.Phases = append(d.Phases, Phase{Name: pick(), Depth: r.IntN(12), Start: s, End: s.Add(time.Duration(r.Int64N(int64(long)/4 + 1))),
			Result: []string{"", "success", "failure", "<x>"}[r.IntN(4)], Failed: r.IntN(3) == 0, Usage: use(),
			Verdict: verdicts[r.IntN(len(verdicts))], Events: events()})
	}
	rows := []int{0, 1, 3, 28, 1500}[seed%5]
	cols := r.Uint64()
	for i := range rows {
		row := runmodel.Row{Time: start.Add(long * time.Duration(i) / time.Duration(max(rows-1, 1)))}
		for c := range runmodel.HostIOStall + 1 {
			if cols>>c&1 == 1 && r.IntN(10) > 0 {
				row.Set(c, figure(false))
			}
		}
		d.Rows = append(d.Rows, row)
	}
	withDurations(d)
	d.fillTimes()
	return d
}

// TestSameBytes checks that the report of each of variedData's runs is
// byte for byte what it was (testdata/sums.txt), beside TestGolden's real
// run, and that Write writes what WriteHTML and WriteSVG do.
func TestSameBytes(t *testing.T) {
	var got []string
	datas := []*Data{hostileData(), {}}
	for seed := range uint64(60) {
		datas = append(datas, variedData(seed))
	}
	dir := t.TempDir()
	for i, d := range datas {
		h, s := render(t, d)
		if err := write(dir, d); err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]string{HTMLName: h, SVGName: s} {
			if got, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(got) != want {
				t.Errorf("run %d: %s is not what WriteHTML and WriteSVG write (%v)", i, name, err)
			}
		}
		hs, ss := sha256.Sum256([]byte(h)), sha256.Sum256([]byte(s))
		got = append(got, strconv.Itoa(i)+" "+hex.EncodeToString(hs[:])+" "+hex.EncodeToString(ss[:]))
	}
	if *updateSums {
		if err := os.WriteFile(sumsFile, []byte(strings.Join(got, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(filepath.FromSlash(sumsFile))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(want) != len(got) {
		t.Fatalf("%s has %d lines, want %d", sumsFile, len(want), len(got))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("run %d: report differs from what it was (%s)", i, sumsFile)
		}
	}
}

// A CSV's figures are read as any finite number: a damaged or hostile file
// may hold the largest doubles, of either sign. The page is still made, and
// every coordinate in it is finite and inside its plot.
func TestExtremeFiguresStayInsideTheCharts(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	figures := []float64{-math.MaxFloat64, math.MaxFloat64, -5, 1e-300, -math.SmallestNonzeroFloat64, 0}
	var rows []runmodel.Row
	for i, v := range figures {
		r := runmodel.Row{Time: start.Add(time.Duration(i) * time.Second)}
		for c := runmodel.JobCPUUser; c <= runmodel.HostSwapUsed; c++ { // every figure
			r.Set(c, v)
		}
		rows = append(rows, r)
	}
	d := &Data{Job: Job{Name: "job", Result: "success", Start: start, End: start.Add(time.Duration(len(figures)) * time.Second)}, Rows: rows}
	h, s := render(t, d)
	checkHTML(t, h)
	checkXML(t, SVGName, s)
	for _, page := range []string{h, s} {
		if m := regexp.MustCompile(`(?i)[+-]?(inf|nan)\b`).FindString(page); m != "" {
			t.Errorf("%q in the page", m)
		}
	}
	x := crossOf(t, h)
	for _, p := range x.Plots {
		for _, sp := range p.Series {
			for i, y := range sp.Y {
				if y != -1 && (y < p.Top || y > p.Bottom) {
					t.Errorf("%s, %s, point %d: y %v outside the plot [%v, %v]", p.Title, sp.Name, i, y, p.Top, p.Bottom)
				}
			}
		}
	}
}

// esc is a text escaped as the report escapes it in SVG.
func esc(s string) string { return string(appendEscString(nil, s)) }

// f1 is v with one decimal, as the charts write a coordinate.
func f1(v float64) string { return string(appendF1(nil, v)) }
