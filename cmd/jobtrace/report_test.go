//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/internal/cdp"
)

// reportJob has nested phases, one failed and one named like markup, one
// with control characters in a long name, a phase that keeps a CPU busy,
// and events, one named and valued like markup, one with a long value.
const reportJob = `jobtrace phase begin checkout; sleep 0.3; jobtrace phase end checkout
jobtrace phase begin build
jobtrace phase begin compile; jobtrace event cache-miss --attr key=deps; i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done; jobtrace phase end compile
jobtrace phase begin '<script>alert(1)</script>'; jobtrace event '</script><!--<b>' --attr 'x=</script><script>alert(2)</script>'; sleep 0.4; jobtrace phase end '<script>alert(1)</script>' --result failure
jobtrace phase end build
jobtrace phase begin test
n="$(printf 'ctl\033[2J\001 ')$(printf '%0230d' 0)"; jobtrace phase begin "$n"; jobtrace event long --attr "v=$(printf '%05000d' 0)"; sleep 0.3; jobtrace phase end "$n"
sleep 0.2; jobtrace phase end test
exit 4`

var reportPhases = []string{"checkout", "build", "compile", "&lt;script&gt;alert(1)&lt;/script&gt;", "test"}

// runForReport runs reportJob and renders its report: the out directory.
func runForReport(t *testing.T) string {
	t.Helper()
	r := jt(t, nil, "run", "--name", "report-job", "--interval", "50ms", "--summary=off", "--", "sh", "-c", reportJob)
	if r.code != 4 {
		t.Fatalf("run: exit %d, want 4: %s", r.code, r.stderr)
	}
	rr := jt(t, nil, "report", r.out)
	if rr.code != 0 || !strings.Contains(rr.stderr, "report.html") {
		t.Fatalf("report: exit %d: %s", rr.code, rr.stderr)
	}
	return r.out
}

func TestReportCommand(t *testing.T) {
	out := runForReport(t)
	b, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	h := string(b)
	for _, want := range append([]string{"report-job", "failure", ">4<"}, reportPhases...) {
		if !strings.Contains(h, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	// Two script elements: the crosshair's data (JSON) and its code, both
	// inline; nothing from the job can close one (encoding/json writes <
	// as \u003c).
	if n, data := strings.Count(h, "<script"), strings.Count(h, `<script type="application/json" id="xh-data">`); n != 2 || data != 1 || strings.Count(h, "</script>") != 2 {
		t.Errorf("report.html has %d script elements (%d of data), %d ends, want 2, 1, 2", n, data, strings.Count(h, "</script>"))
	}
	if strings.Contains(h, "<!--") || strings.Contains(h, " src=") {
		t.Errorf("report.html has a comment or loads a script")
	}
	if rest := strings.ReplaceAll(h, `xmlns="http://www.w3.org/2000/svg"`, ""); strings.Contains(rest, "http://") || strings.Contains(rest, "https://") {
		t.Errorf("report.html refers to the network")
	}
	if s, err := os.ReadFile(filepath.Join(out, "usage.svg")); err != nil || !strings.HasPrefix(string(s), "<?xml") {
		t.Errorf("usage.svg: %v", err)
	}

	for _, args := range [][]string{{"report"}, {"report", t.TempDir()}} {
		if r := jt(t, nil, args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2", args, r.code)
		}
	}
}

// The artifacts a run renders from what it holds in memory are byte for
// byte what the offline commands render from the artifacts it wrote: one
// model, whichever way it is built.
func TestRunRendersWhatTheOfflineCommandsRender(t *testing.T) {
	r := jt(t, nil, "run", "--name", "report-job", "--interval", "50ms", "--summary=off", "--", "sh", "-c", reportJob)
	if r.code != 4 {
		t.Fatalf("run: exit %d, want 4: %s", r.code, r.stderr)
	}
	names := []string{"report.html", "usage.svg", "profile.json"}
	inRun := map[string][]byte{}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(r.out, name))
		if err != nil {
			t.Fatal(err)
		}
		inRun[name] = b
	}
	for _, cmd := range []string{"report", "profile"} {
		if rr := jt(t, nil, cmd, r.out); rr.code != 0 {
			t.Fatalf("%s: exit %d: %s", cmd, rr.code, rr.stderr)
		}
	}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(r.out, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, inRun[name]) {
			t.Errorf("%s written by the run differs from the one read back from its artifacts", name)
		}
	}
}

// TestReportChromium opens the report of a real run in a headless Chromium,
// when there is one, and uses it as a person would, through the DevTools
// protocol: the page must log no error; show every phase, the events as
// markers with their text, the verdicts and the advice; and hovering the timeline or
// a chart must draw the crosshair on every chart and show the phases
// running then and each series' value, the same as the chart's own hover
// text at that point. With scripts off the page still shows the timeline
// and the charts. The screenshots (report.png with the crosshair shown,
// report-nojs.png) are left in $JOBTRACE_TEST_ARTIFACTS when set.
func TestReportChromium(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("no chromium on PATH (Debian package chromium)")
	}
	out := runForReport(t)
	page := "file://" + filepath.Join(out, "report.html")
	shots := os.Getenv("JOBTRACE_TEST_ARTIFACTS")
	if shots == "" {
		shots = t.TempDir()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	b, err := cdp.Start(ctx, browser, t.TempDir(), 1280, 900)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Open(page); err != nil {
		t.Fatal(err)
	}
	// The whole page in the viewport, so that every point is under the
	// mouse's reach and the screenshot shows the crosshair's box.
	var height int
	eval(t, b, `document.documentElement.scrollHeight`, &height)
	if err := b.Call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		t.Fatal(err)
	}

	var shown struct {
		Phases, Events, Titles []string
		Verdict, Advice        string
		Verdicts               map[string]string // a row's verdict, by its phase
	}
	eval(t, b, `({
		phases: [...document.querySelectorAll("svg.gantt text.pl")].map(e => e.textContent),
		events: [...document.querySelectorAll("svg.gantt path.ev")].map(e => e.getBoundingClientRect().width > 0 ? "drawn" : "hidden"),
		titles: [...document.querySelectorAll("svg.gantt path.ev title")].map(e => e.textContent),
		verdict: (document.querySelector(".insight .vk") || {}).textContent || "",
		advice: (document.querySelector(".insight .advice") || {}).textContent || "",
		verdicts: Object.fromEntries([...document.querySelectorAll("tbody tr")].map(r => [r.cells[0].textContent, (r.querySelector("td.why .vk") || {}).textContent || ""])),
	})`, &shown)
	for _, p := range []string{"checkout", "build", "compile", "<script>alert(1)</script>", "test"} {
		if !slices.Contains(shown.Phases, p) {
			t.Errorf("the timeline lacks phase %q: %q", p, shown.Phases)
		}
	}
	titles := strings.Join(shown.Titles, "\n---\n")
	for _, want := range []string{"cache-miss\n+", " in compile\n", "\nkey = deps", "</script><!--<b>\n+", "\nx = </script><script>alert(2)</script>", "\nv = " + strings.Repeat("0", 199) + "…"} {
		if !strings.Contains(titles, want) {
			t.Errorf("no event marker says %q:\n%s", want, titles)
		}
	}
	if slices.Contains(shown.Events, "hidden") || len(shown.Events) < 2 {
		t.Errorf("event markers: %q", shown.Events)
	}
	if !verdict.Kind(shown.Verdict).Known() {
		t.Errorf("verdict at the top %q", shown.Verdict)
	}
	// The job is a few seconds long: too short to size a machine for.
	if !strings.HasPrefix(shown.Advice, "Machine"+string(sizing.TooShort)+" ran ") {
		t.Errorf("advice at the top %q", shown.Advice)
	}
	for _, p := range []string{"report-job", "checkout", "build", "compile", "<script>alert(1)</script>", "test"} {
		if !verdict.Kind(shown.Verdicts[p]).Known() {
			t.Errorf("the table's row of %s has no verdict: %q", p, shown.Verdicts)
		}
	}

	// Hover the middle of the failed phase's bar: the crosshair crosses
	// every chart at its x and the box names the phases running.
	var at struct{ X, Y, SvgX float64 }
	eval(t, b, `(() => { const r = document.querySelector("svg.gantt rect.bar.fail"), c = r.getBoundingClientRect();
		return {x: c.x + c.width / 2, y: c.y + c.height / 2, svgX: r.x.baseVal.value + r.width.baseVal.value / 2}; })()`, &at)
	if err := b.MoveMouse(at.X, at.Y); err != nil {
		t.Fatal(err)
	}
	var hover struct {
		Visible bool
		Head    string
		Phases  []string
		Failed  []string
		GanttX  float64
		ChartD  string
		Dots    int
	}
	eval(t, b, crossState, &hover)
	if !hover.Visible || !strings.HasPrefix(hover.Head, "+") {
		t.Fatalf("hovering the failed phase shows no crosshair box: %+v", hover)
	}
	if !slices.Contains(hover.Phases, "build") || !slices.Contains(hover.Failed, "<script>alert(1)</script>") || slices.Contains(hover.Phases, "test") {
		t.Errorf("phases running at the failed phase's middle: %q, failed %q", hover.Phases, hover.Failed)
	}
	if math.Abs(hover.GanttX-at.SvgX) > 1 || !strings.HasPrefix(hover.ChartD, fmt.Sprintf("M%g ", hover.GanttX)) || strings.Count(hover.ChartD, "M") < 4 {
		t.Errorf("crosshair at x %g in the timeline, %q in the charts; the bar's middle is at %g", hover.GanttX, hover.ChartD, at.SvgX)
	}

	// Hover the phase of the long name: its control characters are
	// U+FFFD, its line in the box is cut to the box's width, and nothing
	// is wider than the window; the crosshair added no element.
	var nodes, nodesAfter int
	eval(t, b, `document.getElementsByTagName("*").length`, &nodes)
	eval(t, b, `(() => { const g = [...document.querySelectorAll("svg.gantt g")].find(g => g.querySelector("text.pl").textContent.startsWith("ctl"));
		const c = g.querySelector("rect.bar").getBoundingClientRect(); return {x: c.x + c.width / 2, y: c.y + c.height / 2}; })()`, &at)
	if err := b.MoveMouse(at.X, at.Y); err != nil {
		t.Fatal(err)
	}
	eval(t, b, crossState, &hover)
	var fit struct {
		BoxWidth, PageWidth float64
		ESC                 bool
	}
	eval(t, b, `({boxWidth: document.querySelector(".xh-box").getBoundingClientRect().width, pageWidth: document.documentElement.scrollWidth,
		esc: document.body.textContent.includes("\x1b") || document.body.innerHTML.includes("\x1b")})`, &fit)
	eval(t, b, `document.getElementsByTagName("*").length`, &nodesAfter)
	long := "ctl\uFFFD[2J\uFFFD " + strings.Repeat("0", 230)
	long = long[:strings.Index(long, "0")] + strings.Repeat("0", 200-1-len([]rune(long[:strings.Index(long, "0")]))) + "…" // cut to 200
	if !slices.Contains(hover.Phases, long) || fit.BoxWidth > 360 || fit.PageWidth > 1280 || fit.ESC {
		t.Errorf("hovering the long name: phases %q, box %g px wide, page %g px, ESC in the page %v", hover.Phases, fit.BoxWidth, fit.PageWidth, fit.ESC)
	}
	if nodesAfter != nodes {
		t.Errorf("the page had %d elements before a move, %d after", nodes, nodesAfter)
	}

	// Hover the CPU chart: the box's values are those of the chart's own
	// hover text at the point under the mouse.
	var cpu struct {
		X, Y  float64
		Title string
	}
	eval(t, b, `(() => { const svg = document.querySelector("svg.charts"), all = [...svg.querySelectorAll("rect.hov")];
		const hov = all.filter(r => r.y.baseVal.value === all[0].y.baseVal.value); // the first chart's: CPU
		const r = hov[Math.floor(hov.length / 2)], m = svg.getScreenCTM(), p = svg.createSVGPoint();
		p.x = r.x.baseVal.value + r.width.baseVal.value / 2; p.y = r.y.baseVal.value + r.height.baseVal.value / 2;
		const c = p.matrixTransform(m);
		return {x: c.x, y: c.y, title: r.querySelector("title").textContent}; })()`, &cpu)
	if err := b.MoveMouse(cpu.X, cpu.Y); err != nil {
		t.Fatal(err)
	}
	var values []struct{ Chart, Name, Value string }
	eval(t, b, `(() => { const out = []; let chart = "";
		for (const e of document.querySelectorAll(".xh-box > .xh-c, .xh-box > .xh-r")) {
			if (e.classList.contains("xh-c")) { chart = e.textContent; continue; }
			out.push({chart, name: e.querySelector(".nm").textContent, value: e.querySelector(".val").textContent});
		}
		return out; })()`, &values)
	eval(t, b, crossState, &hover)
	lines := strings.Split(cpu.Title, "\n")
	var inBox []string
	for _, v := range values {
		if v.Chart == "CPU" {
			inBox = append(inBox, v.Name+": "+v.Value)
		}
	}
	if !hover.Visible || len(inBox) == 0 || !slices.Equal(inBox, lines[1:]) {
		t.Errorf("the box shows CPU %q, the chart's hover text at that point %q", inBox, lines)
	}
	if hover.Dots == 0 {
		t.Errorf("no dot on the lines at the point")
	}
	charts := map[string]bool{}
	for _, v := range values {
		charts[v.Chart] = true
	}
	for _, c := range []string{"CPU", "Memory", "Disk IO", "Network"} {
		if !charts[c] {
			t.Errorf("the box has no values of the %s chart: %+v", c, values)
		}
	}
	png, err := b.Screenshot(false)
	if err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(shots, "report.png")
	if err := os.WriteFile(shot, png, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := b.MoveMouse(2, 2); err != nil {
		t.Fatal(err)
	}
	eval(t, b, crossState, &hover)
	if hover.Visible {
		t.Errorf("the crosshair stays when the mouse leaves the charts")
	}
	for _, e := range b.Errors {
		t.Errorf("page error: %s", e)
	}

	// With scripts off: the same timeline and charts, their values in
	// their hover text, and no crosshair.
	if err := b.Call("Emulation.setScriptExecutionDisabled", map[string]any{"value": true}, nil); err != nil {
		t.Fatal(err)
	}
	if err := b.Open(page); err != nil {
		t.Fatal(err)
	}
	var nojs struct {
		On          bool
		Box         int
		Bars, Hov   int
		ChartHeight float64
	}
	eval(t, b, `({on: document.documentElement.classList.contains("xh-on"), box: document.querySelectorAll(".xh-box").length,
		bars: document.querySelectorAll("svg.gantt rect.bar").length, hov: document.querySelectorAll("svg.charts rect.hov title").length,
		chartHeight: document.querySelector("svg.charts").getBoundingClientRect().height})`, &nojs)
	if nojs.On || nojs.Box != 0 || nojs.Bars < 6 || nojs.Hov == 0 || nojs.ChartHeight < 400 {
		t.Errorf("with scripts off: %+v", nojs)
	}
	if png, err = b.Screenshot(false); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(shots, "report-nojs.png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots: %s, report-nojs.png", shot)
}

// crossState reads the crosshair back from the page.
const crossState = `(() => { const box = document.querySelector(".xh-box"), g = document.querySelector("svg.gantt line.xh"), c = document.querySelector("svg.charts path.xh");
	const rows = [...document.querySelectorAll(".xh-box .xh-p")].filter(r => !r.hidden);
	return {visible: !!box && !box.hidden && g.style.display !== "none",
		head: box ? box.querySelector(".xh-t").textContent : "",
		phases: rows.map(r => r.querySelector(".n").textContent),
		failed: rows.filter(r => r.classList.contains("fail")).map(r => r.querySelector(".n").textContent),
		ganttX: g ? +g.getAttribute("x1") : -1, chartD: c ? c.getAttribute("d") || "" : "",
		dots: [...document.querySelectorAll("svg.charts circle.xh-dot")].filter(d => d.style.display !== "none").length}; })()`

func eval(t *testing.T, b *cdp.Browser, expr string, v any) {
	t.Helper()
	if err := b.Eval(expr, v); err != nil {
		t.Fatal(err)
	}
}

// The offline commands read artifacts a user may have been handed: a FIFO
// or a link to /dev/zero in their place is refused at once, never a hang or
// memory without bound (the link as one out of the directory).
func TestOfflineCommandsRefuseFilesThatAreNotRegular(t *testing.T) {
	dir := t.TempDir()
	if err := unix.Mkfifo(filepath.Join(dir, "resource-usage.csv"), 0o600); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "spans.otlp.jsonl")); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"report", "profile", "replay"} {
		// A bound for a hang, far above what refusing takes.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		c := exec.CommandContext(ctx, bin, cmd, dir)
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9"}
		out, err := c.CombinedOutput()
		cancel()
		if ctx.Err() == context.DeadlineExceeded {
			t.Errorf("%s: still running after a minute: %s", cmd, out)
			continue
		}
		if err == nil {
			t.Errorf("%s: exit 0 on a directory of a FIFO and /dev/zero: %s", cmd, out)
		}
		// /dev/zero is outside the directory: the link is not followed.
		if !strings.Contains(string(out), "not a regular file") && !strings.Contains(string(out), "out of its directory") {
			t.Errorf("%s: %s", cmd, out)
		}
	}
}
