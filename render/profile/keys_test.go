package profile

import (
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/runmodel"
	"github.com/jobtrace/jobtrace/spans"
	"github.com/jobtrace/jobtrace/spans/scan"
)

// The source of a phase and of an event, and the line of a pattern event,
// are read by the keys their writers set them with (the tracker's
// spans.AttrPhaseSource and AttrEventSource, the scanner's LineAttr):
// each in a field of its own, none left in the other attributes.
func TestMarkersReadTheWritersKeys(t *testing.T) {
	const s = uint64(1_700_000_000_000_000_000)
	job := span(1, 9, "job", s, s+4e9, runmodel.AttrTaskName.String("job"))
	step := span(2, 1, "step", s+1e9, s+3e9, spans.AttrPhaseSource.String("socket"), attribute.String("suite", "unit"))
	step.Events = []runmodel.Event{{Name: "http-5xx", Time: time.Unix(0, int64(s+2e9)).UTC(),
		Attributes: []attribute.KeyValue{spans.AttrEventSource.String("pattern"), attribute.String(scan.LineAttr, "GET / 503")}}}
	run := runmodel.New([]runmodel.Span{job, step}, nil)
	p := build(run, tree(run), nil)
	m := p.Threads[0].Markers
	data := map[string]map[string]any{}
	for i := range m.Length {
		data[p.Shared.StringArray[m.Name[i]]] = m.Data[i]
	}
	if d := data["step"]; d["source"] != "socket" || d["attributes"] != "suite=unit" {
		t.Errorf("step: source %v, attributes %v; want socket and suite=unit alone", d["source"], d["attributes"])
	}
	if d := data["http-5xx"]; d["source"] != "pattern" || d["line"] != "GET / 503" || d["attributes"] != nil {
		t.Errorf("event: source %v, line %v, attributes %v; want pattern, the line and no others", d["source"], d["line"], d["attributes"])
	}
}
