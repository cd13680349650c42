package runmodel

import (
	"reflect"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/insight/verdict"
)

// A slimmed run keeps what a comparison reads, and nothing of an attribute,
// event or status that holds megabytes.
func TestSlimKeepsWhatADiffReads(t *testing.T) {
	run, _, err := ReadDir(fixture)
	if err != nil {
		t.Fatal(err)
	}
	huge := strings.Repeat("x", 1<<20)
	run.Phases[0].Attributes = append(run.Phases[0].Attributes, attribute.String("big", huge), verdict.AttrReason.String(huge))
	run.Phases[0].Status = huge
	run.Phases[0].Events = append(run.Phases[0].Events, Event{Name: "e", Attributes: []attribute.KeyValue{attribute.String("big", huge)}})
	run.Phases[0].Verdict = verdict.Verdict{Kind: verdict.IOBound, Reason: "read"}
	type kept struct {
		Name, ParentName   string
		Depth, ParentIndex int
		Failed, InJob      bool
		Usage              any
		Verdict            verdict.Verdict
		Start, End         int64
	}
	keptOf := func(s *Span) kept {
		return kept{s.Name, s.ParentName, s.Depth, s.ParentIndex, s.Failed, s.InJob, s.Usage, s.Verdict, s.Start.UnixNano(), s.End.UnixNano()}
	}
	var before []kept
	for _, s := range append([]Span{run.Job}, run.Phases...) {
		before = append(before, keptOf(&s))
	}
	run.Slim()
	var after []kept
	size := len(run.Rows) + len(run.Resource)
	for _, s := range append([]Span{run.Job}, run.Phases...) {
		after = append(after, keptOf(&s))
		size += len(s.Events) + len(s.Status) + len(s.resource)
		for _, kv := range s.Attributes {
			size += len(kv.Value.Emit())
		}
	}
	if !reflect.DeepEqual(before, after) {
		t.Errorf("slimmed, the spans changed:\nbefore %+v\nafter  %+v", before, after)
	}
	if size > 0 {
		t.Errorf("slimmed, the run still holds %d bytes of rows, events, status and attributes", size)
	}
	if !run.HasJob || len(run.Phases) == 0 {
		t.Fatalf("the fixture has no job or no phases")
	}
}
