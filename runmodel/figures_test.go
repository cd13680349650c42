package runmodel_test

import (
	"encoding/json"
	"strings"
	"testing"

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
// advice's peak memory is the job's as a size.
func TestRenderersWriteFiguresAlike(t *testing.T) {
	run := goldenFromFiles(t)
	art := artifacts(t, t.TempDir(), run)
	text, md, html := string(art["summary.txt"]), string(art["summary.md"]), string(art[report.HTMLName])
	details := profileDetails(t, art[profile.FileName])
	diff := map[string][]string{}
	for _, r := range rundiff.Compare([]*runmodel.Run{run}, run).Table().Rows {
		diff[r.Cells[0]] = r.Cells
	}
	for _, s := range run.Phases {
		u := &s.Usage
		dur := figure.Duration(s.End.Sub(s.Start))
		cpu := figure.Duration(u.CPU())
		avg := figure.Percent(min(u.CPUAvg, 1) * 100)
		mem := figure.Bytes(float64(u.MemoryPeak))

		line := lineOf(text, "jobtrace:   ", s.Name+" ")
		for _, f := range []string{dur, cpu, avg, mem} {
			if !strings.Contains(line+" ", " "+f+" ") {
				t.Errorf("%s: the summary's line %q lacks %q", s.Name, line, f)
			}
		}
		row := lineOf(md, "| ", s.Name+" |")
		for _, f := range []string{dur, cpu, avg, mem} {
			if !strings.Contains(row, "| "+f+" |") {
				t.Errorf("%s: the Markdown summary's row %q lacks %q", s.Name, row, f)
			}
		}
		tr := lineOf(html, "<tr", ">"+s.Name+"</td>")
		for _, f := range []string{dur, cpu, avg, mem} {
			if !strings.Contains(tr, "<td>"+f+"</td>") {
				t.Errorf("%s: report.html's row %q lacks %q", s.Name, tr, f)
			}
		}
		tip := html[strings.Index(html, "<g><title>"+s.Name+"\n"):]
		tip = tip[:strings.Index(tip, "</title>")]
		for _, f := range []string{"duration " + dur, "CPU " + cpu + ", avg " + avg, "peak memory " + mem} {
			if !strings.Contains(tip, f) {
				t.Errorf("%s: report.html's timeline says %q, without %q", s.Name, tip, f)
			}
		}
		for _, f := range []string{"CPU " + cpu + " (" + avg + " of all CPUs)", "peak memory " + mem + " "} {
			if !strings.Contains(details[s.Name], f) {
				t.Errorf("%s: profile.json's details %q lack %q", s.Name, details[s.Name], f)
			}
		}
		cells := strings.Join(diff[s.Name], " | ")
		for _, f := range []string{dur + " → " + dur, " | " + cpu + " | ", " | " + mem + " | "} {
			if !strings.Contains(cells, f) {
				t.Errorf("%s: jobtrace diff's row %q lacks %q", s.Name, cells, f)
			}
		}
	}
	a := run.Advice()
	if want := "at most " + figure.Bytes(float64(a.MemoryPeak)) + ":"; a.MemoryPeak == 0 || !strings.Contains(a.Text, want) ||
		!strings.Contains(text, a.Text) || !strings.Contains(html, a.Text) {
		t.Errorf("advice %q: want %q in it, and it in the summary and the report", a.Text, want)
	}
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

// profileDetails reads the marker details of profile.json by marker name.
func profileDetails(t *testing.T, b []byte) map[string]string {
	t.Helper()
	var p struct {
		Shared struct {
			StringArray []string `json:"stringArray"`
		} `json:"shared"`
		Threads []struct {
			Markers struct {
				Name []int            `json:"name"`
				Data []map[string]any `json:"data"`
			} `json:"markers"`
		} `json:"threads"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, th := range p.Threads {
		for i, n := range th.Markers.Name {
			if d, ok := th.Markers.Data[i]["details"].(string); ok && n < len(p.Shared.StringArray) {
				out[p.Shared.StringArray[n]] = d
			}
		}
	}
	return out
}
