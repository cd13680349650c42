package githubjob

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/spans/protocol"
)

// The steps of the documented payload become phases: the completed ones
// with their times and results, jobtrace's own pre and main steps marked,
// the skipped, running and queued ones left.
func TestPhases(t *testing.T) {
	var p page
	if err := json.Unmarshal(testdata(t, "jobs-page2.json")[0], &p); err != nil {
		t.Fatal(err)
	}
	job := p.Jobs[0]
	msgs, left := Phases(job)
	if left != 3 {
		t.Errorf("%d steps left, want 3 (skipped, the post step running, Complete job queued)", left)
	}
	type phase struct{ name, result, own, conclusion string }
	var got []phase
	for _, m := range msgs {
		if m.Type != protocol.TypeAdd || m.Start.IsZero() || m.End.Before(m.Start) {
			t.Errorf("%+v", m)
		}
		ph := phase{name: m.Name, result: m.Result}
		for _, kv := range m.Attrs {
			switch kv.Key {
			case AttrStepOwn:
				ph.own = kv.Value.AsString()
			case AttrStepConclusion:
				ph.conclusion = kv.Value.AsString()
			}
		}
		got = append(got, ph)
	}
	want := []phase{
		{"Set up job", "success", "", "success"},
		{"Pre Run jobtrace/jobtrace@v1", "success", "pre", "success"},
		{"Run actions/checkout@v4", "success", "", "success"},
		{"Run jobtrace/jobtrace@v1", "success", "main", "success"},
		{"Run go test ./...", "failure", "", "failure"},
		{"Post Run actions/checkout@v4", "success", "", "success"},
	}
	if len(got) != len(want) {
		t.Fatalf("phases %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("phase %d: %+v, want %+v", i, got[i], want[i])
		}
	}
	if m := msgs[4]; !m.Start.Equal(time.Date(2020, 1, 20, 17, 42, 52, 0, time.UTC)) || !m.End.Equal(time.Date(2020, 1, 20, 17, 43, 30, 0, time.UTC)) {
		t.Errorf("the tests' times: %v to %v", m.Start, m.End)
	}
	if r := Result(job); r != protocol.ResultFailure {
		t.Errorf("the job's result %q, want failure", r)
	}
}

func TestResultAndNames(t *testing.T) {
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	step := func(name, conclusion string) Step {
		return Step{Name: name, Status: "completed", Conclusion: conclusion, StartedAt: at, CompletedAt: at.Add(time.Second)}
	}
	for _, c := range []struct {
		steps []Step
		want  string
	}{
		{[]Step{step("a", "success"), step("b", "skipped")}, protocol.ResultSuccess},
		{[]Step{step("a", "cancelled"), step("b", "success")}, protocol.ResultCancellation},
		{[]Step{step("a", "cancelled"), step("b", "timed_out")}, protocol.ResultTimeout},
		{[]Step{step("a", "failure"), step("b", "timed_out")}, protocol.ResultFailure},
		{[]Step{step("a", "success"), step("b", "action_required")}, protocol.ResultError},
		{[]Step{step("a", "success"), {Name: "b", Status: "in_progress"}}, protocol.ResultSuccess},
	} {
		if r := Result(Job{Steps: c.steps}); r != c.want {
			t.Errorf("%+v: %q, want %q", c.steps, r, c.want)
		}
	}
	// Names are cleaned and cut to a phase name's length, on a rune; an
	// unknown conclusion is an error.
	long := strings.Repeat("é", protocol.MaxNameBytes)
	msgs, _ := Phases(Job{Steps: []Step{step("x\x1b[2Jy", "action_required"), step(long, "success")}})
	if msgs[0].Name != "x\ufffd[2Jy" || msgs[0].Result != protocol.ResultError {
		t.Errorf("%q %q", msgs[0].Name, msgs[0].Result)
	}
	if n := msgs[1].Name; len(n) > protocol.MaxNameBytes || !protocol.ValidName(n) || len(n) < protocol.MaxNameBytes-1 {
		t.Errorf("a long name cut to %d bytes: %q", len(n), n)
	}
}

// A job with one step that did not succeed has that step's result, by the
// one map its phase takes: before, a timed-out step's phase was timeout
// and its job failure.
func TestJobResultIsItsStepsByTheSameMap(t *testing.T) {
	at := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	for _, conclusion := range []string{"success", "failure", "cancelled", "skipped", "timed_out", "neutral", "action_required"} {
		j := Job{Steps: []Step{
			{Name: "a", Status: "completed", Conclusion: "success", StartedAt: at, CompletedAt: at.Add(time.Second)},
			{Name: "b", Status: "completed", Conclusion: conclusion, StartedAt: at, CompletedAt: at.Add(time.Second)},
		}}
		msgs, _ := Phases(j)
		want := msgs[1].Result
		if want == protocol.ResultSkip {
			want = protocol.ResultSuccess // a skipped step does not make the job skipped
		}
		if got := Result(j); got != want {
			t.Errorf("a step %s: the job's result %q, its phase's %q", conclusion, got, msgs[1].Result)
		}
	}
}
