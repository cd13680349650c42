package rundiff

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/jobtrace/jobtrace/runmodel"
)

// readFixture reads a run recorded by jobtrace in testdata.
func readFixture(t *testing.T, name string) *runmodel.Run {
	t.Helper()
	run, warn, err := runmodel.ReadDir("testdata/" + name)
	if err != nil || warn != nil {
		t.Fatalf("%s: %v %v", name, err, warn)
	}
	return run
}

// Two real runs of the same job (testdata/job.sh: setup, a CPU-bound
// compile, test), the second with `stress-ng --cpu 4` beside it on two
// CPUs: the compile phase and the job are slower, put down to neighbours;
// the phases that sleep are the same.
func TestFixtureHogBeside(t *testing.T) {
	d := Compare([]*runmodel.Run{readFixture(t, "base")}, readFixture(t, "slow"))
	if !d.HasJob || d.Job.Status != StatusSlower || d.Job.Cause != CauseNeighbours {
		t.Errorf("job: %s %s %q, want slower, neighbours", d.Job.Status, d.Job.Cause, d.Job.Reason)
	}
	got := map[string]*Row{}
	for i := range d.Phases {
		got[d.Phases[i].Name] = &d.Phases[i]
	}
	for name, want := range map[string]Status{"setup": StatusSame, "compile": StatusSlower, "test": StatusSame} {
		r := got[name]
		if r == nil || r.Status != want {
			t.Errorf("%s: %+v, want %s", name, r, want)
		}
	}
	if c := got["compile"]; c != nil && c.Cause != CauseNeighbours {
		t.Errorf("compile: %s %q, want neighbours", c.Cause, c.Reason)
	}
	var b bytes.Buffer
	if err := WriteText(&b, d, Labels{Base: []string{"base"}, Run: "slow"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "slowed by neighbours") {
		t.Errorf("text:\n%s", b.String())
	}
	t.Logf("\n%s", b.String())
}

// In colour the change column is red when slower, and the text is
// otherwise WriteText's, aligned the same.
func TestColourText(t *testing.T) {
	d := Compare([]*runmodel.Run{readFixture(t, "base")}, readFixture(t, "slow"))
	l := Labels{Base: []string{"base"}, Run: "slow"}
	var plain, colour bytes.Buffer
	if err := WriteText(&plain, d, l); err != nil {
		t.Fatal(err)
	}
	if err := WriteColourText(&colour, d, l); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(colour.String(), "\x1b[31m+3.45s (+56%)\x1b[0m") {
		t.Errorf("compile's change is not red:\n%q", colour.String())
	}
	if strings.Contains(plain.String(), "\x1b") {
		t.Errorf("WriteText has an escape:\n%q", plain.String())
	}
	stripped := regexp.MustCompile("\x1b\\[[0-9]*m").ReplaceAllString(colour.String(), "")
	if stripped != plain.String() {
		t.Errorf("colour text without its escapes:\n%s\nplain:\n%s", stripped, plain.String())
	}
}
