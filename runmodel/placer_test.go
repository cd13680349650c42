package runmodel

import (
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
)

// A sample belongs to the deepest span open at the middle of the time it
// covers, the one begun last of those as deep; a span is open from its
// start to its end, both included; the job's span is the shallowest, and
// a span whose parent is not in the run is as deep as the job's.
func TestPlacer(t *testing.T) {
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	timed := func(id, parent byte, name string, start, end int) Span {
		s := span(id, parent, name, start)
		s.End = ms(end)
		return s
	}
	job := timed(1, 0, "job", 0, 10000)
	job.Attributes = []attribute.KeyValue{AttrTaskName.String("job")}
	run := New([]Span{
		job,
		timed(2, 1, "a", 1000, 5000),
		timed(3, 2, "a/b", 2000, 4000),
		timed(4, 1, "c", 3000, 6000),        // as deep as a, begun after it
		timed(5, 9, "outside", 7000, 12000), // its parent not in the run
		timed(6, 1, "d", 7000, 8000),
	}, nil)
	name := func(s int) string {
		switch s {
		case JobSpan:
			return "job"
		case NoSpan:
			return "none"
		}
		return run.Phases[s].Name
	}
	p := run.Placer()
	for _, c := range []struct {
		from, to int
		want     string
	}{
		{500, 500, "job"},        // the first sample: its own time
		{0, 1000, "job"},         // the middle, 500 ms: a not begun
		{2000, 3000, "a/b"},      // the deepest
		{4000, 4000, "a/b"},      // its end included
		{4000, 4400, "c"},        // a/b ended: of a and c, c begun last
		{6000, 8000, "d"},        // 7 s: d in the job is deeper than outside
		{8000, 10000, "outside"}, // 9 s: outside as deep as the job, begun after it
		{12000, 14000, "none"},   // 13 s: every span ended
	} {
		if got := name(p.Place(ms(c.from), ms(c.to))); got != c.want {
			t.Errorf("a sample over %d–%d ms: %s, want %s", c.from, c.to, got, c.want)
		}
	}
}
