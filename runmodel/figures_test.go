package runmodel_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/internal/figure"
	"github.com/jobtrace/jobtrace/render/profile"
	"github.com/jobtrace/jobtrace/render/report"
	"github.com/jobtrace/jobtrace/rundiff"
	"github.com/jobtrace/jobtrace/runmodel"
)

// Every renderer writes a phase's figures by the rules of package figure:
// its duration, CPU time, CPU average and peak memory read the same in the
// summary (text and Markdown), report.html's table and timeline,
// profile.json's marker details and jobtrace diff's table, and the
// advice's peak memory is the job's as a size. The job's duration, from
// its start to its exit (its span ends later, after jobtrace's shutdown
// span), is one figure too: the summary's, report.html's and usage.svg's,
// the length of profile.json's marker, the diff's and the advice's. A
// phase's CPU average is its CPUs busy (the diff's, the verdict's) over the
// machine's CPUs.
func TestRenderersWriteFiguresAlike(t *testing.T) {
	run := goldenFromFiles(t)
	art := artifacts(t, t.TempDir(), run)
	text, md, html := string(art["summary.txt"]), string(art["summary.md"]), string(art[report.HTMLName])
	markers := profileMarkers(t, art[profile.FileName])
	diff := map[string][]string{}
	for _, r := range rundiff.Compare([]*runmodel.Run{run}, run).Table().Rows {
		diff[r.Cells[0]] = r.Cells
	}
	for _, s := range run.Phases {
		u := &s.Usage
		dur := figure.Duration(s.End.Sub(s.Start))
		figs, tips, marker, cells := []string{dur}, []string{"duration " + dur}, []string{}, []string{dur + " → " + dur}
		if u.HasCPU {
			cpu, avg := figure.Duration(u.CPU()), figure.Percent(min(u.CPUAvg, 1)*100)
			figs, tips = append(figs, cpu, avg), append(tips, "CPU "+cpu+", avg "+avg)
			marker, cells = append(marker, "CPU "+cpu+" ("+avg+" of all CPUs)"), append(cells, " | "+cpu+" | ")
			busy := verdict.FiguresOf(u).Busy
			if n := float64(u.NumCPU); math.Abs(u.CPUAvg*n-busy) > 1e-3 {
				t.Errorf("%s: an average of %s of %v CPUs is not its %s CPUs busy", s.Name, avg, n, figure.Count(busy))
			}
			cells = append(cells, " | "+figure.Count(busy)+" | ")
		}
		if u.HasMemory {
			mem := figure.Bytes(float64(u.MemoryPeak))
			figs, tips = append(figs, mem), append(tips, "peak memory "+mem)
			marker, cells = append(marker, "peak memory "+mem+" "), append(cells, " | "+mem+" | ")
		}

		line := lineOf(text, "jobtrace:   ", s.Name+" ")
		for _, f := range figs {
			if !strings.Contains(line+" ", " "+f+" ") {
				t.Errorf("%s: the summary's line %q lacks %q", s.Name, line, f)
			}
		}
		row := lineOf(md, "| ", s.Name+" |")
		for _, f := range figs {
			if !strings.Contains(row, "| "+f+" |") {
				t.Errorf("%s: the Markdown summary's row %q lacks %q", s.Name, row, f)
			}
		}
		tr := lineOf(html, "<tr", ">"+s.Name+"</td>")
		for _, f := range figs {
			if !strings.Contains(tr, "<td>"+f+"</td>") {
				t.Errorf("%s: report.html's row %q lacks %q", s.Name, tr, f)
			}
		}
		for _, f := range tips {
			if tip := timelineTip(html, s.Name); !strings.Contains(tip, f) {
				t.Errorf("%s: report.html's timeline says %q, without %q", s.Name, tip, f)
			}
		}
		for _, f := range marker {
			if d := markers[s.Name].details; !strings.Contains(d, f) {
				t.Errorf("%s: profile.json's details %q lack %q", s.Name, d, f)
			}
		}
		for _, f := range cells {
			if c := strings.Join(diff[s.Name], " | "); !strings.Contains(c, f) {
				t.Errorf("%s: jobtrace diff's row %q lacks %q", s.Name, c, f)
			}
		}
	}

	const took = 29800 * time.Millisecond // goldenRun's job, to its exit
	if run.Job.Usage.Duration != took {
		t.Fatalf("the model's job duration %v, want %v, to its exit (its span's %v)", run.Job.Usage.Duration, took, run.Job.End.Sub(run.Job.Start))
	}
	dur := figure.Duration(took)
	for _, c := range []struct{ where, got, want string }{
		{"the summary's title", lineOf(text, "jobtrace: job", ""), " after " + dur},
		{"the summary's total", lineOf(text, "jobtrace:   ", "total "), " " + dur + " "},
		{"the Markdown summary's total", lineOf(md, "| ", "**total** |"), "| " + dur + " |"},
		{"report.html's header", lineOf(html, "<div><dt>Duration", ""), "<dt>Duration</dt><dd>" + dur + "</dd>"},
		{"report.html's row", lineOf(html, "<tr", ">build</td>"), "<td>" + dur + "</td>"},
		{"report.html's timeline", timelineTip(html, "build"), "duration " + dur},
		{"usage.svg's title", lineOf(string(art[report.SVGName]), `<text class="t"`, ""), " · " + dur + "</text>"},
		{"jobtrace diff", strings.Join(diff["job"], " | "), dur + " → " + dur},
	} {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%s %q lacks %q", c.where, c.got, c.want)
		}
	}
	if got := markers["build"].length; got != float64(took.Milliseconds()) {
		t.Errorf("profile.json's job marker is %v ms long, want %v", got, took.Milliseconds())
	}
	a := run.Advice()
	if a.Duration != took {
		t.Errorf("the advice's duration %v, want the job's %v", a.Duration, took)
	}
	if want := "at most " + figure.Bytes(float64(a.MemoryPeak)) + ":"; a.MemoryPeak == 0 || !strings.Contains(a.Text, want) ||
		!strings.Contains(text, a.Text) || !strings.Contains(html, a.Text) {
		t.Errorf("advice %q: want %q in it, and it in the summary and the report", a.Text, want)
	}
}

// timelineTip is the hover text of the bar of the span name on
// report.html's timeline.
func timelineTip(html, name string) string {
	i := strings.Index(html, "<g><title>"+name+"\n")
	if i < 0 {
		return ""
	}
	tip := html[i:]
	return tip[:strings.Index(tip, "</title>")]
}

// lineOf is the line of s that starts with prefix and holds name.
func lineOf(s, prefix, name string) string {
	for l := range strings.Lines(s) {
		if strings.HasPrefix(strings.TrimLeft(l, " "), strings.TrimLeft(prefix, " ")) && strings.Contains(l, name) {
			return strings.TrimRight(l, "\n")
		}
	}
	return ""
}

// marker is what the tests read of a marker of profile.json.
type marker struct {
	details string
	length  float64 // ms; 0 without an end
}

// profileMarkers reads the markers of profile.json by name.
func profileMarkers(t *testing.T, b []byte) map[string]marker {
	t.Helper()
	var p struct {
		Shared struct {
			StringArray []string `json:"stringArray"`
		} `json:"shared"`
		Threads []struct {
			Markers struct {
				Name      []int            `json:"name"`
				Data      []map[string]any `json:"data"`
				StartTime []float64        `json:"startTime"`
				EndTime   []*float64       `json:"endTime"`
			} `json:"markers"`
		} `json:"threads"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	out := map[string]marker{}
	for _, th := range p.Threads {
		m := th.Markers
		if len(m.Data) != len(m.Name) || len(m.StartTime) != len(m.Name) || len(m.EndTime) != len(m.Name) {
			t.Fatalf("profile.json's markers have %d names, %d data, %d starts, %d ends", len(m.Name), len(m.Data), len(m.StartTime), len(m.EndTime))
		}
		for i, n := range m.Name {
			if n >= len(p.Shared.StringArray) {
				continue
			}
			var k marker
			k.details, _ = m.Data[i]["details"].(string)
			if m.EndTime[i] != nil {
				k.length = *m.EndTime[i] - m.StartTime[i]
			}
			out[p.Shared.StringArray[n]] = k
		}
	}
	return out
}

// Every renderer shows the durations the model holds (runmodel.Span's
// Usage.Duration, the span's end less its start, the job's to its exit),
// taken once when it was made: none takes its span's times again.
func TestRenderersShowTheModelsDurations(t *testing.T) {
	run := goldenFromFiles(t)
	const name, d = "phase 3", 1234 * time.Millisecond
	var p *runmodel.Span
	for i := range run.Phases {
		if run.Phases[i].Name == name {
			p = &run.Phases[i]
		}
	}
	if p == nil || p.End.Sub(p.Start) == d {
		t.Fatalf("goldenRun has no %s of another duration than %v", name, d)
	}
	p.Usage.Duration = d
	art := artifacts(t, t.TempDir(), run)
	html, dur := string(art[report.HTMLName]), figure.Duration(d)
	diff := map[string][]string{}
	for _, r := range rundiff.Compare([]*runmodel.Run{run}, run).Table().Rows {
		diff[r.Cells[0]] = r.Cells
	}
	for _, c := range []struct{ where, got, want string }{
		{"the summary", lineOf(string(art["summary.txt"]), "jobtrace:   ", name+" "), " " + dur + " "},
		{"the Markdown summary", lineOf(string(art["summary.md"]), "| ", name+" |"), "| " + dur + " |"},
		{"report.html's row", lineOf(html, "<tr", ">"+name+"</td>"), "<td>" + dur + "</td>"},
		{"report.html's timeline", timelineTip(html, name), "duration " + dur},
		{"jobtrace diff", strings.Join(diff[name], " | "), dur + " → " + dur},
	} {
		if !strings.Contains(c.got, c.want) {
			t.Errorf("%s %q lacks %q", c.where, c.got, c.want)
		}
	}
	if got := profileMarkers(t, art[profile.FileName])[name].length; got != float64(d.Milliseconds()) {
		t.Errorf("profile.json's marker of %s is %v ms long, want %v", name, got, d.Milliseconds())
	}
}
