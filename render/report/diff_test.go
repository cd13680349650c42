package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/jobtrace/jobtrace/rundiff"
	"github.com/jobtrace/jobtrace/runmodel"
)

// With WithDiff the page ends with the comparison, its names and labels
// escaped; without it the page has no diff section (TestGolden holds the
// page byte for byte).
func TestDiffSection(t *testing.T) {
	base, run := readRun(t), readRun(t)
	// The run's compile phase took 3 s more.
	for i := range run.Phases {
		if run.Phases[i].Name == "compile" {
			run.Phases[i].End = run.Phases[i].End.Add(3e9)
			run.Phases[i].Usage.Duration += 3e9
		}
	}
	d := rundiff.Compare([]*runmodel.Run{base}, run)
	var h bytes.Buffer
	if err := WriteHTML(&h, run, WithDiff(d, rundiff.Labels{Base: []string{"<b>base</b>\x1b[31m"}, Run: "new"})); err != nil {
		t.Fatal(err)
	}
	page := h.String()
	i := strings.Index(page, `<h2 id="diff">`)
	if i < 0 {
		t.Fatalf("no diff section:\n%s", page)
	}
	section := page[i:strings.Index(page, "</main>")] // the crosshair's scripts follow
	for _, want := range []string{
		"Compared with &lt;b&gt;base&lt;/b&gt;\uFFFD[31m",
		"&lt;script&gt;alert(1)&lt;/script&gt;",
		`<tr class="slower">`,
		"&#43;3s (",
	} {
		if !strings.Contains(section, want) {
			t.Errorf("the diff section has no %q:\n%s", want, section)
		}
	}
	for _, bad := range []string{"<b>base", "<script>", "\x1b"} {
		if strings.Contains(section, bad) {
			t.Errorf("the diff section holds %q unescaped", bad)
		}
	}
	if rows := strings.Count(section, "<tr class="); rows != 1+len(run.Phases) {
		t.Errorf("%d rows, want the job and %d phases", rows, len(run.Phases))
	}

	h.Reset()
	if err := WriteHTML(&h, run); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(h.String(), `id="diff"`) {
		t.Error("a diff section without WithDiff")
	}
}
