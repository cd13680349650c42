package spans

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/spans/protocol"
)

type fixture struct {
	exp      *tracetest.InMemoryExporter
	tp       *sdktrace.TracerProvider
	root     trace.Span
	tracker  *Tracker
	warnings []string
	reader   *sdkmetric.ManualReader
}

func newFixture(t *testing.T, opts TrackerOptions) *fixture {
	t.Helper()
	f := &fixture{exp: tracetest.NewInMemoryExporter()}
	f.tp = sdktrace.NewTracerProvider(sdktrace.WithSyncer(f.exp), sdktrace.WithSampler(NewSampler()))
	f.reader = sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(f.reader))
	var rootOpts []trace.SpanStartOption
	if !opts.Start.IsZero() {
		rootOpts = append(rootOpts, trace.WithTimestamp(opts.Start))
	}
	ctx, root := f.tp.Tracer("test").Start(context.Background(), "job", rootOpts...)
	f.root = root
	opts.Warn = func(s string) { f.warnings = append(f.warnings, s) }
	opts.Meter = mp.Meter("test")
	f.tracker = NewTracker(ctx, f.tp.Tracer("test"), opts)
	return f
}

// finish closes the tracker, ends the root and returns spans by name.
func (f *fixture) finish(t *testing.T) map[string]tracetest.SpanStub {
	t.Helper()
	f.tracker.Close("success")
	f.root.End()
	out := map[string]tracetest.SpanStub{}
	for _, s := range f.exp.GetSpans() {
		if _, dup := out[s.Name]; dup {
			t.Fatalf("two spans named %q", s.Name)
		}
		out[s.Name] = s
	}
	return out
}

func attr(s tracetest.SpanStub, k string) (attribute.Value, bool) {
	for _, kv := range s.Attributes {
		if string(kv.Key) == k {
			return kv.Value, true
		}
	}
	return attribute.Value{}, false
}

func msg(typ protocol.Type, name string) protocol.Msg {
	return protocol.Msg{V: 1, Type: typ, Name: name, Syntax: protocol.SyntaxSocket}
}

func TestNestingFollowsBeginOrder(t *testing.T) {
	f := newFixture(t, TrackerOptions{})
	f.tracker.Handle(msg(protocol.TypeBegin, "build"))
	f.tracker.Handle(msg(protocol.TypeBegin, "compile"))
	f.tracker.Handle(msg(protocol.TypeEvent, "cache-miss"))
	f.tracker.Handle(msg(protocol.TypeEnd, "compile"))
	f.tracker.Handle(msg(protocol.TypeBegin, "link"))
	f.tracker.Handle(msg(protocol.TypeEnd, "link"))
	f.tracker.Handle(msg(protocol.TypeEnd, "build"))
	f.tracker.Handle(msg(protocol.TypeBegin, "test"))
	end := msg(protocol.TypeEnd, "test")
	end.Result = "failure"
	f.tracker.Handle(end)
	spans := f.finish(t)
	job := spans["job"].SpanContext.SpanID()
	build := spans["build"].SpanContext.SpanID()
	for name, parent := range map[string]trace.SpanID{"build": job, "compile": build, "link": build, "test": job} {
		if got := spans[name].Parent.SpanID(); got != parent {
			t.Errorf("%s: parent %s, want %s", name, got, parent)
		}
	}
	if ev := spans["compile"].Events; len(ev) != 1 || ev[0].Name != "cache-miss" {
		t.Errorf("compile events = %+v, want cache-miss", ev)
	}
	if spans["test"].Status.Code != codes.Error {
		t.Errorf("failed phase status = %v, want Error", spans["test"].Status)
	}
	if v, _ := attr(spans["test"], "cicd.pipeline.task.run.result"); v.AsString() != "failure" {
		t.Errorf("result = %q", v.AsString())
	}
	if v, _ := attr(spans["link"], "cicd.pipeline.task.run.result"); v.AsString() != "success" {
		t.Errorf("result = %q", v.AsString())
	}
	if spans["link"].Status.Code == codes.Error {
		t.Errorf("successful phase has status Error")
	}
	if len(f.warnings) != 0 {
		t.Errorf("warnings: %q", f.warnings)
	}
}

func TestGitHubGroupsDoNotNest(t *testing.T) {
	f := newFixture(t, TrackerOptions{})
	g := func(typ protocol.Type, name string) protocol.Msg {
		m := msg(typ, name)
		m.Syntax = protocol.SyntaxGitHub
		return m
	}
	f.tracker.Handle(g(protocol.TypeBegin, "one"))
	f.tracker.Handle(g(protocol.TypeBegin, "two")) // ends "one"
	f.tracker.Handle(g(protocol.TypeEnd, ""))
	spans := f.finish(t)
	if spans["two"].Parent.SpanID() != spans["job"].SpanContext.SpanID() {
		t.Errorf("group two nested under %s", spans["two"].Parent.SpanID())
	}
	if spans["one"].EndTime.After(spans["two"].StartTime) {
		t.Errorf("group one ends after group two starts")
	}
	if spans["one"].Status.Code == codes.Error || spans["two"].Status.Code == codes.Error {
		t.Errorf("groups ended with error")
	}
}

func TestUnmatchedEndWarnsAndOpenPhasesEndInError(t *testing.T) {
	f := newFixture(t, TrackerOptions{})
	if r := f.tracker.Handle(msg(protocol.TypeEnd, "nothing")); r.OK {
		t.Errorf("end of an unknown phase replied OK")
	}
	f.tracker.Handle(msg(protocol.TypeBegin, "left-open"))
	spans := f.finish(t)
	if len(f.warnings) != 1 || !strings.Contains(f.warnings[0], `"nothing"`) {
		t.Errorf("warnings = %q", f.warnings)
	}
	s := spans["left-open"]
	if s.Status.Code != codes.Error || !strings.Contains(s.Status.Description, "still open") {
		t.Errorf("left-open status = %+v", s.Status)
	}
	if st := f.tracker.Stats(); st.Unmatched != 1 || st.LeftOpen != 1 || st.Phases != 1 {
		t.Errorf("stats = %+v", st)
	}
	if r := f.tracker.Handle(msg(protocol.TypeBegin, "late")); r.OK {
		t.Errorf("begin after Close replied OK")
	}
}

func TestParentByTraceparentAndName(t *testing.T) {
	f := newFixture(t, TrackerOptions{})
	r := f.tracker.Handle(msg(protocol.TypeBegin, "outer"))
	if !r.OK || len(r.Traceparent) != 55 {
		t.Fatalf("begin reply = %+v", r)
	}
	f.tracker.Handle(msg(protocol.TypeBegin, "sibling"))
	byTP := msg(protocol.TypeBegin, "by-traceparent")
	byTP.Parent = r.Traceparent
	f.tracker.Handle(byTP)
	byName := msg(protocol.TypeBegin, "by-name")
	byName.Parent = "outer"
	f.tracker.Handle(byName)
	spans := f.finish(t)
	outer := spans["outer"].SpanContext.SpanID()
	if spans["by-traceparent"].Parent.SpanID() != outer || spans["by-name"].Parent.SpanID() != outer {
		t.Errorf("explicit parents not honoured")
	}
	if spans["sibling"].Parent.SpanID() != outer {
		t.Errorf("sibling not nested by order")
	}
}

func TestTimestampsAreKept(t *testing.T) {
	t0 := time.Unix(1700000000, 0)
	f := newFixture(t, TrackerOptions{Start: t0, Now: func() time.Time { return t0.Add(time.Hour) }})
	b := msg(protocol.TypeBegin, "section")
	b.Time = t0
	e := msg(protocol.TypeEnd, "section")
	e.Time = t0.Add(3 * time.Second)
	f.tracker.Handle(b)
	f.tracker.Handle(e)
	s := f.finish(t)["section"]
	if !s.StartTime.Equal(t0) || s.EndTime.Sub(s.StartTime) != 3*time.Second {
		t.Errorf("times = %v .. %v", s.StartTime, s.EndTime)
	}
}

// A ts far outside the job (negative, in milliseconds, before the job by
// more than MaxTimeSkew, after now by more than it) is replaced by the time
// received, warned about once and counted; one within the bounds is kept.
func TestTimestampsOutsideTheJobAreReplaced(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now := start.Add(10 * time.Minute)
	f := newFixture(t, TrackerOptions{Start: start, Now: func() time.Time { return now }})
	cases := []struct {
		name string
		ts   time.Time
		want time.Time
	}{
		{"negative", time.Unix(-5, 0), now},
		{"milliseconds", time.Unix(start.UnixMilli(), 0), now},
		{"before the job", start.Add(-MaxTimeSkew - time.Second), now},
		{"after now", now.Add(MaxTimeSkew + time.Second), now},
		// Kept, but a phase lies inside the job and is never in the
		// future (see TestChildrenLieInsideTheirParents).
		{"just before the job", start.Add(-MaxTimeSkew + time.Second), start},
		{"just after now", now.Add(MaxTimeSkew - time.Second), now},
	}
	for _, c := range cases {
		b := msg(protocol.TypeBegin, c.name)
		b.Time = c.ts
		if r := f.tracker.Handle(b); !r.OK {
			t.Fatalf("%s: %+v", c.name, r)
		}
		e := msg(protocol.TypeEnd, c.name)
		e.Time = c.ts
		f.tracker.Handle(e)
	}
	got := f.finish(t)
	for _, c := range cases {
		s := got[c.name]
		if !s.StartTime.Equal(c.want) || !s.EndTime.Equal(c.want) {
			t.Errorf("%s: times %v .. %v, want %v", c.name, s.StartTime, s.EndTime, c.want)
		}
	}
	if n := f.tracker.Stats().BadTimes; n != 8 {
		t.Errorf("BadTimes = %d, want 8", n)
	}
	if len(f.warnings) != 1 || !strings.Contains(f.warnings[0], "outside the job's time") {
		t.Errorf("warnings %q, want one", f.warnings)
	}
}

func TestCountersAndBounds(t *testing.T) {
	f := newFixture(t, TrackerOptions{MaxOpenPhases: 2, MaxCounters: 1})
	c := msg(protocol.TypeCounter, "tests.failed")
	c.Value = 2
	f.tracker.Handle(c)
	c.Value = 3
	f.tracker.Handle(c)
	if r := f.tracker.Handle(msg(protocol.TypeCounter, "second")); r.OK {
		t.Errorf("counter beyond the bound accepted")
	}
	f.tracker.Handle(msg(protocol.TypeBegin, "a"))
	f.tracker.Handle(msg(protocol.TypeBegin, "b"))
	if r := f.tracker.Handle(msg(protocol.TypeBegin, "c")); r.OK {
		t.Errorf("phase beyond the bound accepted")
	}
	spans := f.finish(t)
	if v, ok := attr(spans["job"], "jobtrace.user.tests.failed"); !ok || v.AsInt64() != 5 {
		t.Errorf("job total = %v %v, want 5", v.Emit(), ok)
	}
	var rm metricdata.ResourceMetrics
	if err := f.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == "jobtrace.user.tests.failed" {
				sum := m.Data.(metricdata.Sum[float64])
				if sum.DataPoints[0].Value != 5 {
					t.Errorf("metric value = %v", sum.DataPoints[0].Value)
				}
				found = true
			}
		}
	}
	if !found {
		t.Errorf("counter metric missing")
	}
	if st := f.tracker.Stats(); st.Refused != 2 {
		t.Errorf("refused = %d, want 2", st.Refused)
	}
}

func TestUnsampledParentIsRecordedNotSampled(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp), sdktrace.WithSampler(NewSampler()))
	env := map[string]string{"TRACEPARENT": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"}
	ctx := ExtractEnv(context.Background(), func(k string) string { return env[k] })
	_, sp := tp.Tracer("t").Start(ctx, "job")
	if !sp.IsRecording() || sp.SpanContext().IsSampled() {
		t.Fatalf("recording=%v sampled=%v, want recorded and not sampled", sp.IsRecording(), sp.SpanContext().IsSampled())
	}
	if sp.SpanContext().TraceID().String() != "0af7651916cd43dd8448eb211c80319c" {
		t.Errorf("trace id not joined")
	}
	out := InjectEnv(trace.ContextWithSpan(ctx, sp))
	if !strings.HasSuffix(out["TRACEPARENT"], "-00") || !strings.Contains(out["TRACEPARENT"], sp.SpanContext().SpanID().String()) {
		t.Errorf("child TRACEPARENT = %q", out["TRACEPARENT"])
	}
}

func TestMergeEnv(t *testing.T) {
	got := MergeEnv([]string{"A=1", "TRACEPARENT=old", "BAGGAGE=x", "B=2"}, map[string]string{"TRACEPARENT": "new", "C": "3"}, "BAGGAGE")
	want := "A=1 B=2 C=3 TRACEPARENT=new"
	if strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// observer records boundaries and ends spans with an attribute, as a
// resource sampler does.
type observer struct {
	log []string
}

func (o *observer) PhaseBegan(b Boundary) func() {
	o.log = append(o.log, fmt.Sprintf("begin %s %v", b.Name, b.Wait))
	return nil
}

func (o *observer) PhaseEnded(b Boundary) func() {
	o.log = append(o.log, fmt.Sprintf("end %s %s %v", b.Name, b.Result, b.Wait))
	return func() {
		b.Span.SetAttributes(attribute.String("observed", b.Name))
		b.Span.End(trace.WithTimestamp(b.Time))
	}
}

func (o *observer) PhaseAdded(b Boundary) func() {
	o.log = append(o.log, fmt.Sprintf("add %s %s %v from %s to %s", b.Name, b.Result, b.Wait, b.Start.Format(time.TimeOnly), b.Time.Format(time.TimeOnly)))
	return func() {
		b.Span.SetAttributes(attribute.String("observed", b.Name))
		b.Span.End(trace.WithTimestamp(b.Time))
	}
}

// slowObserver records boundaries in order, as a sampler queues its
// requests, and blocks in the settle function of a phase named "slow", as a
// sample that takes long (a large process tree, a stalled /proc) does.
type slowObserver struct {
	mu       sync.Mutex
	log      []string
	blocked  chan struct{} // closed once the slow settle function blocks
	release  chan struct{}
	released []string // phases whose settle function returned
}

func (o *slowObserver) record(what string, b Boundary) func() {
	o.mu.Lock()
	o.log = append(o.log, what+" "+b.Name)
	o.mu.Unlock()
	return func() {
		if b.Name == "slow" && what == "begin" {
			close(o.blocked)
			<-o.release
		}
		if what == "end" {
			b.Span.End(trace.WithTimestamp(b.Time))
		}
		o.mu.Lock()
		o.released = append(o.released, what+" "+b.Name)
		o.mu.Unlock()
	}
}

func (o *slowObserver) PhaseBegan(b Boundary) func() { return o.record("begin", b) }
func (o *slowObserver) PhaseEnded(b Boundary) func() { return o.record("end", b) }
func (o *slowObserver) PhaseAdded(b Boundary) func() { return o.record("end", b) }

// TestSlowSampleHoldsOnlyItsOwnSource: a boundary whose sample blocks holds
// up the sender of that boundary (its reply comes after the sample), but no
// other source: the tracker's lock is not held while the observer works.
func TestSlowSampleHoldsOnlyItsOwnSource(t *testing.T) {
	obs := &slowObserver{blocked: make(chan struct{}), release: make(chan struct{})}
	f := newFixture(t, TrackerOptions{Observer: obs})
	slowReplied := make(chan protocol.Reply)
	go func() {
		slowReplied <- f.tracker.Handle(protocol.Msg{Type: protocol.TypeBegin, Name: "slow", Syntax: "socket", Ack: true})
	}()
	<-obs.blocked
	// Another source (the output scanner) begins and ends a phase, and
	// sends an event, while the slow sample is being taken.
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.tracker.Handle(protocol.Msg{Type: protocol.TypeBegin, Name: "fast", Syntax: "github"})
		f.tracker.Handle(protocol.Msg{Type: protocol.TypeEvent, Name: "tick", Syntax: "github"})
		f.tracker.Handle(protocol.Msg{Type: protocol.TypeEnd, Name: "fast", Syntax: "github"})
	}()
	select {
	case <-done:
	case r := <-slowReplied:
		t.Fatalf("the slow begin was answered (%+v) before its sample", r)
	case <-time.After(10 * time.Second): // a hang, not a slow machine
		t.Fatal("a second source was held up by the first one's sample")
	}
	select {
	case r := <-slowReplied:
		t.Fatalf("the slow begin was answered (%+v) before its sample", r)
	default:
	}
	close(obs.release)
	if r := <-slowReplied; !r.OK {
		t.Errorf("slow begin: %+v", r)
	}
	f.finish(t)
	want := "begin slow,begin fast,end fast,end slow"
	if got := strings.Join(obs.log, ","); got != want {
		t.Errorf("boundaries recorded in the order %s, want %s", got, want)
	}
	if got := strings.Join(obs.released, ","); got != "begin fast,end fast,begin slow,end slow" {
		t.Errorf("settled in the order %s", got)
	}
}

func TestObserverEndsPhases(t *testing.T) {
	obs := &observer{}
	f := newFixture(t, TrackerOptions{Observer: obs})
	h := f.tracker.Handle
	h(protocol.Msg{Type: protocol.TypeBegin, Name: "build", Syntax: "socket", Ack: true})
	h(protocol.Msg{Type: protocol.TypeBegin, Name: "compile", Syntax: "socket"})
	if c := f.tracker.Current(); c.Name != "compile" || c.Depth != 2 || len(c.SpanID) != 16 {
		t.Errorf("current %+v, want compile at depth 2", c)
	}
	h(protocol.Msg{Type: protocol.TypeEnd, Name: "compile", Syntax: "socket", Result: "failure"})
	if c := f.tracker.Current(); c.Name != "build" || c.Depth != 1 {
		t.Errorf("current %+v, want build at depth 1", c)
	}
	spans := f.finish(t)
	want := []string{"begin build true", "begin compile false", "end compile failure false", "end build error false"}
	if strings.Join(obs.log, ",") != strings.Join(want, ",") {
		t.Errorf("observer saw %q, want %q", obs.log, want)
	}
	for _, n := range []string{"build", "compile"} {
		if v, ok := attr(spans[n], "observed"); !ok || v.AsString() != n {
			t.Errorf("span %s was not ended by the observer", n)
		}
	}
	if c := f.tracker.Current(); c != (Current{}) {
		t.Errorf("current %+v after close", c)
	}
}

// TestChildrenLieInsideTheirParents gives the tracker times that disagree
// with the phase tree, as sources that stamp their messages differently do:
// every child must still lie inside its parent, and the job's markers are
// never refused for it.
func TestChildrenLieInsideTheirParents(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now := start.Add(time.Hour)
	f := newFixture(t, TrackerOptions{Start: start, Now: func() time.Time { return now }})
	at := func(typ protocol.Type, name string, d time.Duration, syntax string) {
		t.Helper()
		m := protocol.Msg{V: 1, Type: typ, Name: name, Syntax: syntax, Time: start.Add(d)}
		if r := f.tracker.Handle(m); !r.OK {
			t.Fatalf("%s %s: %+v", typ, name, r)
		}
	}
	s := time.Second
	// A group read from the output, then a phase begun over the socket
	// whose own time is 10 ms before the group's.
	at(protocol.TypeBegin, "Build", 10*s, protocol.SyntaxGitHub)
	at(protocol.TypeBegin, "compile", 10*s-10*time.Millisecond, protocol.SyntaxSocket)
	// Ended in order, but the child's time is after its parent's.
	at(protocol.TypeEnd, "compile", 20*s, protocol.SyntaxSocket)
	at(protocol.TypeEnd, "", 19*s, protocol.SyntaxGitHub)
	// Overlapping markers: "a" ends while "b", begun inside it, is open.
	at(protocol.TypeBegin, "a", 30*s, protocol.SyntaxPhase)
	at(protocol.TypeBegin, "b", 31*s, protocol.SyntaxPhase)
	at(protocol.TypeEnd, "a", 32*s, protocol.SyntaxPhase)
	at(protocol.TypeBegin, "c", 33*s, protocol.SyntaxPhase) // nests in b, the innermost open
	at(protocol.TypeEnd, "b", 34*s, protocol.SyntaxPhase)
	at(protocol.TypeEnd, "c", 35*s, protocol.SyntaxPhase)
	// An end before its begin; a begin before the job's start.
	at(protocol.TypeBegin, "backwards", 40*s, protocol.SyntaxSocket)
	at(protocol.TypeEnd, "backwards", 39*s, protocol.SyntaxSocket)
	at(protocol.TypeBegin, "early", -30*s, protocol.SyntaxSocket)
	at(protocol.TypeEnd, "early", 41*s, protocol.SyntaxSocket)
	spans := f.finish(t)
	if n := f.tracker.Stats().Unmatched; n != 0 {
		t.Errorf("%d unmatched ends, want 0", n)
	}
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, sp := range spans {
		byID[sp.SpanContext.SpanID()] = sp
	}
	for name, sp := range spans {
		if sp.EndTime.Before(sp.StartTime) {
			t.Errorf("%s ends before it begins: %v .. %v", name, sp.StartTime, sp.EndTime)
		}
		parent, ok := byID[sp.Parent.SpanID()]
		if !ok {
			continue
		}
		if sp.StartTime.Before(parent.StartTime) || sp.EndTime.After(parent.EndTime) {
			t.Errorf("%s (%v .. %v) is not inside its parent %s (%v .. %v)", name,
				sp.StartTime.Sub(start), sp.EndTime.Sub(start), parent.Name, parent.StartTime.Sub(start), parent.EndTime.Sub(start))
		}
	}
	want := map[string][2]time.Duration{
		"Build":     {10 * s, 20 * s},
		"compile":   {10 * s, 20 * s},
		"a":         {30 * s, 35 * s}, // until c, in b, in a, ends
		"b":         {31 * s, 35 * s},
		"c":         {33 * s, 35 * s},
		"backwards": {40 * s, 40 * s},
		"early":     {0, 41 * s},
	}
	for name, w := range want {
		sp := spans[name]
		if got := [2]time.Duration{sp.StartTime.Sub(start), sp.EndTime.Sub(start)}; got != w {
			t.Errorf("%s: %v .. %v, want %v .. %v", name, got[0], got[1], w[0], w[1])
		}
	}
	if spans["compile"].Parent.SpanID() != spans["Build"].SpanContext.SpanID() {
		t.Errorf("compile is not a child of Build")
	}
}

// Phases nest MaxDepth deep at most: the begin past it is refused, said
// once and counted, its end is expected (not an unmatched end), and the
// phases above it are unharmed. What the tracker keeps per open phase does not grow with
// the depth: the current phase is its own name, not its path.
func TestDepthIsCapped(t *testing.T) {
	f := newFixture(t, TrackerOptions{})
	long := strings.Repeat("n", protocol.MaxNameBytes-8)
	name := func(i int) string { return fmt.Sprintf("%s%08d", long, i) }
	const extra = 10
	for i := range MaxDepth + extra {
		r := f.tracker.Handle(msg(protocol.TypeBegin, name(i)))
		if ok := i < MaxDepth; r.OK != ok {
			t.Fatalf("begin %d: reply %+v, want ok=%v", i, r, ok)
		}
	}
	if c := f.tracker.Current(); c.Name != name(MaxDepth-1) || c.Depth != MaxDepth {
		t.Errorf("current %.20q at depth %d, want the deepest phase at %d", c.Name, c.Depth, MaxDepth)
	}
	for i := MaxDepth + extra - 1; i >= 0; i-- {
		f.tracker.Handle(msg(protocol.TypeEnd, name(i)))
	}
	st := f.tracker.Stats()
	if st.TooDeep != extra || st.Refused != extra || st.Phases != MaxDepth || st.Unmatched != 0 {
		t.Errorf("stats %+v, want %d too deep and refused, %d phases", st, extra, MaxDepth)
	}
	deep := 0
	for _, w := range f.warnings {
		if strings.Contains(w, "nested") {
			deep++
		}
	}
	if deep != 1 || len(f.warnings) != 1 {
		t.Errorf("%d warnings about the depth, want 1 and no other: %q", deep, f.warnings)
	}
	if n := len(f.finish(t)); n != MaxDepth+1 {
		t.Errorf("%d spans, want the job and %d phases", n, MaxDepth)
	}
}

// An added phase is a finished span under the job, or under the open phase
// its parent names, with the times and result given, kept in the phase
// tree: it begins no earlier than its parent, ends no later than now, and
// one that ended before its parent began is refused.
func TestAddedPhases(t *testing.T) {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	now := start.Add(time.Hour)
	obs := &observer{}
	f := newFixture(t, TrackerOptions{Start: start, Now: func() time.Time { return now }, Observer: obs})
	add := func(name, parent string, from, to time.Duration, result string) protocol.Reply {
		return f.tracker.Handle(protocol.Msg{V: 1, Type: protocol.TypeAdd, Name: name, Parent: parent, Result: result,
			Start: start.Add(from), End: start.Add(to), Syntax: protocol.SyntaxSocket, Ack: true,
			Attrs: []attribute.KeyValue{attribute.Int("step", 1)}})
	}
	if r := add("checkout", "", 10*time.Second, 20*time.Second, ""); !r.OK || r.Traceparent == "" {
		t.Errorf("add checkout: %+v", r)
	}
	if r := add("tests", "", 30*time.Second, 40*time.Second, protocol.ResultFailure); !r.OK {
		t.Errorf("add tests: %+v", r)
	}
	if r := add("set up", "", -10*time.Second, -AddTolerance-time.Nanosecond, ""); r.OK || !strings.Contains(r.Error, "before its parent began") {
		t.Errorf("a phase that ended before the job began: %+v, want it refused", r)
	}
	if r := add("cut", "", -2*time.Second, -AddTolerance, ""); !r.OK {
		t.Errorf("a phase that ended in the second the job began: %+v", r)
	}
	if r := add("early", "", -10*time.Second, 5*time.Second, ""); !r.OK {
		t.Errorf("add early: %+v", r)
	}
	if r := add("late", "", 50*time.Minute, 2*time.Hour, ""); !r.OK {
		t.Errorf("add late: %+v", r)
	}
	f.tracker.Handle(protocol.Msg{V: 1, Type: protocol.TypeBegin, Name: "post", Syntax: protocol.SyntaxSocket, Time: start.Add(time.Minute)})
	if r := add("upload", "post", 61*time.Second, 70*time.Minute, ""); !r.OK {
		t.Errorf("add upload: %+v", r)
	}
	f.tracker.Handle(protocol.Msg{V: 1, Type: protocol.TypeEnd, Name: "post", Syntax: protocol.SyntaxSocket, Time: start.Add(62 * time.Second)})
	spans := f.finish(t)
	for _, c := range []struct {
		name, parent string
		from, to     time.Duration
		failed       bool
	}{
		{"checkout", "job", 10 * time.Second, 20 * time.Second, false},
		{"tests", "job", 30 * time.Second, 40 * time.Second, true},
		{"early", "job", 0, 5 * time.Second, false},
		{"cut", "job", 0, 0, false},
		{"late", "job", 50 * time.Minute, time.Hour, false},
		{"upload", "post", 61 * time.Second, time.Hour, false},
	} {
		s, ok := spans[c.name]
		if !ok {
			t.Errorf("no span %s", c.name)
			continue
		}
		if s.Parent.SpanID() != spans[c.parent].SpanContext.SpanID() {
			t.Errorf("%s: not a child of %s", c.name, c.parent)
		}
		if !s.StartTime.Equal(start.Add(c.from)) || !s.EndTime.Equal(start.Add(c.to)) {
			t.Errorf("%s: from %v to %v, want %v to %v", c.name, s.StartTime.Sub(start), s.EndTime.Sub(start), c.from, c.to)
		}
		if failed := s.Status.Code == codes.Error; failed != c.failed {
			t.Errorf("%s: status %v", c.name, s.Status)
		}
		if v, _ := attr(s, "observed"); v.AsString() != c.name {
			t.Errorf("%s: not ended by the observer", c.name)
		}
		if v, _ := attr(s, "step"); v.AsInt64() != 1 {
			t.Errorf("%s: attributes %v", c.name, s.Attributes)
		}
	}
	if s := spans["post"]; !s.EndTime.Equal(now) {
		t.Errorf("post ended at %v, want no earlier than its added child (%v)", s.EndTime.Sub(start), now.Sub(start))
	}
	if v, _ := attr(spans["tests"], "cicd.pipeline.task.run.result"); v.AsString() != "failure" {
		t.Errorf("tests: result %v", v)
	}
	if want := "add checkout success true from 12:00:10 to 12:00:20"; obs.log[0] != want {
		t.Errorf("observer saw %q first, want %q", obs.log[0], want)
	}
}

// Steps of `jobtrace exec` started side by side (make -j, a shell's &)
// nest beside each other under the phase they were started in, not each in
// the one that began last; a step started by a step's command nests in
// that step, at the innermost phase its command opened.
func TestExecStepsSideBySide(t *testing.T) {
	f := newFixture(t, TrackerOptions{})
	job := "00-" + strings.Repeat("1", 32) + "-" + strings.Repeat("2", 16) + "-01" // the job's TRACEPARENT: no open phase
	step := func(name, traceparent string) protocol.Reply {
		m := msg(protocol.TypeBegin, name) // on the socket, as `jobtrace exec` sends it
		m.Parent, m.Attrs = traceparent, []attribute.KeyValue{AttrPhaseSource.String(protocol.SyntaxExec)}
		return f.tracker.Handle(m)
	}
	f.tracker.Handle(msg(protocol.TypeBegin, "build"))
	a := step("a", job)
	step("b", job)
	group := msg(protocol.TypeBegin, "b's group") // an output marker of b's command
	group.Syntax = protocol.SyntaxGitHub
	f.tracker.Handle(group)
	step("c", job)
	aOwn := msg(protocol.TypeBegin, "a's phase") // opened by a's command over the socket, by name
	aOwn.Parent = "a"
	f.tracker.Handle(aOwn)
	step("in a", a.Traceparent)
	spans := f.finish(t)
	for name, parent := range map[string]string{
		"a": "build", "b": "build", "c": "build", "b's group": "b", "in a": "a's phase",
	} {
		if got := spans[parent].SpanContext.SpanID(); spans[name].Parent.SpanID() != got {
			t.Errorf("%s: parent %v, want %s (%v)", name, spans[name].Parent.SpanID(), parent, got)
		}
	}
	// Without a step open, a step nests in the innermost phase, as any
	// begin does.
	g := newFixture(t, TrackerOptions{})
	g.tracker.Handle(msg(protocol.TypeBegin, "outer"))
	g.tracker.Handle(msg(protocol.TypeBegin, "inner"))
	m := msg(protocol.TypeBegin, "step")
	m.Parent, m.Attrs = job, []attribute.KeyValue{AttrPhaseSource.String(protocol.SyntaxExec)}
	g.tracker.Handle(m)
	gs := g.finish(t)
	if gs["step"].Parent.SpanID() != gs["inner"].SpanContext.SpanID() {
		t.Errorf("a step after two begins: parent %v, want inner", gs["step"].Parent.SpanID())
	}
}

// Two steps of one name side by side (`for d in a b; do jobtrace exec test
// -- make -C $d test & done`): each end names its step's span, so the
// result, the attributes and the end go to that step, not to the one of
// that name that began last.
func TestEndByItsSpan(t *testing.T) {
	f := newFixture(t, TrackerOptions{})
	step := []attribute.KeyValue{AttrPhaseSource.String(protocol.SyntaxExec)}
	var tps []string
	for _, d := range []string{"a", "b"} {
		m := msg(protocol.TypeBegin, "test")
		m.Attrs = append(step, attribute.String("dir", d))
		tps = append(tps, f.tracker.Handle(m).Traceparent)
	}
	end := func(tp, result string) {
		m := msg(protocol.TypeEnd, "test")
		m.Span, m.Result = tp, result
		if r := f.tracker.Handle(m); !r.OK {
			t.Fatalf("end: %+v", r)
		}
	}
	end(tps[0], protocol.ResultFailure) // a, begun first, fails first
	end(tps[1], protocol.ResultSuccess)
	var got []string
	for _, s := range f.exp.GetSpans() {
		if s.Name != "test" {
			continue
		}
		var dir, result string
		for _, kv := range s.Attributes {
			switch kv.Key {
			case "dir":
				dir = kv.Value.AsString()
			case "cicd.pipeline.task.run.result":
				result = kv.Value.AsString()
			}
		}
		got = append(got, dir+":"+result)
	}
	slices.Sort(got)
	if want := []string{"a:failure", "b:success"}; !slices.Equal(got, want) {
		t.Errorf("steps %v, want %v", got, want)
	}
}

// A marker sent from inside a step (`jobtrace phase|event` in the command
// of `jobtrace exec`) carries the step's TRACEPARENT as its scope, and
// applies within that step by the rule steps nest by: a begin nests in the
// step's innermost phase, an end ends the phase of that name in the step,
// an event goes to the step's innermost phase, leaving out the phases of
// the step that began after it and of a step its own command started.
// Before, each applied to the innermost open phase overall, the other
// step's. A scope naming the job or no open phase, or none, changes
// nothing, and an explicit parent wins.
func TestMarkersWithinTheirStep(t *testing.T) {
	f := newFixture(t, TrackerOptions{})
	job := Traceparent(f.root.SpanContext()) // the job script's TRACEPARENT
	step := func(name, traceparent string) string {
		m := msg(protocol.TypeBegin, name) // as `jobtrace exec` sends it
		m.Parent, m.Attrs = traceparent, []attribute.KeyValue{AttrPhaseSource.String(protocol.SyntaxExec)}
		return f.tracker.Handle(m).Traceparent
	}
	marker := func(typ protocol.Type, name, scope string) protocol.Msg {
		m := msg(typ, name) // as `jobtrace phase|event` sends it
		m.Scope = scope
		return m
	}
	handle := func(m protocol.Msg) {
		t.Helper()
		if r := f.tracker.Handle(m); !r.OK {
			t.Fatalf("%s %s: %+v", m.Type, m.Name, r)
		}
	}
	handle(msg(protocol.TypeBegin, "build"))
	a := step("a", job)
	b := step("b", job) // b begins after a
	handle(marker(protocol.TypeBegin, "compile", a))
	handle(marker(protocol.TypeBegin, "compile", b))
	handle(marker(protocol.TypeEvent, "in a's compile", a))
	failed := marker(protocol.TypeEnd, "compile", a)
	failed.Result = protocol.ResultFailure
	handle(failed)
	step("sub", a) // a's command starts a step of its own
	handle(marker(protocol.TypeEvent, "in a", a))
	handle(marker(protocol.TypeBegin, "in a too", a))
	handle(marker(protocol.TypeEvent, "in b's compile", b))
	handle(marker(protocol.TypeEnd, "compile", b))
	// The job's script, whose scope is the job's span, keeps out of the
	// steps it started in the background; a span the run does not know
	// nests under the innermost open phase, as without a scope.
	handle(marker(protocol.TypeBegin, "job's", job))
	handle(marker(protocol.TypeEnd, "job's", job))
	handle(marker(protocol.TypeBegin, "unknown", "00-"+strings.Repeat("3", 32)+"-"+strings.Repeat("4", 16)+"-01"))
	handle(marker(protocol.TypeEnd, "unknown", ""))
	explicit := marker(protocol.TypeBegin, "explicit", a)
	explicit.Parent = "build"
	handle(explicit)
	// A phase of that name open outside the scope only is ended as
	// without a scope.
	handle(marker(protocol.TypeEnd, "build", b))
	f.tracker.Close("success")
	f.root.End()

	spans := map[string]tracetest.SpanStub{}
	var compiles []tracetest.SpanStub
	for _, s := range f.exp.GetSpans() {
		if s.Name == "compile" {
			compiles = append(compiles, s)
		} else {
			spans[s.Name] = s
		}
	}
	for name, parent := range map[string]string{
		"a": "build", "b": "build", "sub": "a", "in a too": "a",
		"job's": "build", "unknown": "in a too", "explicit": "build",
	} {
		if got := spans[parent].SpanContext.SpanID(); spans[name].Parent.SpanID() != got {
			t.Errorf("%s: parent %v, want %s (%v)", name, spans[name].Parent.SpanID(), parent, got)
		}
	}
	events := func(s tracetest.SpanStub) (names []string) {
		for _, e := range s.Events {
			names = append(names, e.Name)
		}
		return names
	}
	if got := events(spans["a"]); !slices.Equal(got, []string{"in a"}) {
		t.Errorf("a's events %q, want [in a]", got)
	}
	got := map[string]string{} // the step each compile is in: its result and events
	for _, c := range compiles {
		step := "neither step"
		switch c.Parent.SpanID() {
		case spans["a"].SpanContext.SpanID():
			step = "a"
		case spans["b"].SpanContext.SpanID():
			step = "b"
		}
		result, _ := attr(c, "cicd.pipeline.task.run.result")
		got[step] += result.AsString() + " " + strings.Join(events(c), ",")
	}
	if want := map[string]string{"a": "failure in a's compile", "b": "success in b's compile"}; !maps.Equal(got, want) {
		t.Errorf("compile in each step: %q, want %q", got, want)
	}
}

// A begin is a step of `jobtrace exec` by the jobtrace.phase.source its
// span shows: the last the message sets (readback.Attr, as the span keeps
// it), a value that is no string none; without one, by its source.
func TestIsStepTakesTheLastSource(t *testing.T) {
	src := AttrPhaseSource
	for _, c := range []struct {
		m    protocol.Msg
		want bool
	}{
		{protocol.Msg{Syntax: protocol.SyntaxExec}, true},
		{protocol.Msg{Syntax: protocol.SyntaxSocket}, false},
		{protocol.Msg{Syntax: protocol.SyntaxSocket, Attrs: []attribute.KeyValue{src.String("socket"), src.String("exec")}}, true},
		{protocol.Msg{Syntax: protocol.SyntaxExec, Attrs: []attribute.KeyValue{src.String("exec"), src.String("socket")}}, false},
		{protocol.Msg{Syntax: protocol.SyntaxExec, Attrs: []attribute.KeyValue{src.String("exec"), src.Int(1)}}, false},
	} {
		if got := isStep(c.m); got != c.want {
			t.Errorf("isStep(%s, %v) = %v, want %v", c.m.Syntax, c.m.Attrs, got, c.want)
		}
	}
}

// A marker names a phase by its traceparent by the W3C rules
// (ParseTraceparent): a later version by its first 55 characters, which a
// tool of a later trace context passes on; version ff and an all-zero
// trace id name none. Before, only version 00 of exactly 55 characters
// named a span, and its trace id was not read.
func TestSpanRefsAreW3CTraceparents(t *testing.T) {
	f := newFixture(t, TrackerOptions{})
	outer := f.tracker.Handle(msg(protocol.TypeBegin, "outer")).Traceparent
	f.tracker.Handle(msg(protocol.TypeBegin, "other"))
	begin := func(name, parent string) {
		m := msg(protocol.TypeBegin, name)
		m.Parent = parent
		f.tracker.Handle(m)
	}
	begin("later-version", "01"+outer[2:]+"-a-field-of-its-own")
	f.tracker.Handle(msg(protocol.TypeEnd, "later-version"))
	begin("version-ff", "ff"+outer[2:])
	f.tracker.Handle(msg(protocol.TypeEnd, "version-ff"))
	begin("zero-trace", "00-"+strings.Repeat("0", 32)+outer[35:])
	f.tracker.Handle(msg(protocol.TypeEnd, "zero-trace"))
	spans := f.finish(t)
	want := map[string]string{"later-version": "outer", "version-ff": "other", "zero-trace": "other"}
	for name, parent := range want {
		if got := spans[name].Parent.SpanID(); got != spans[parent].SpanContext.SpanID() {
			t.Errorf("%s: parent %s, want %s's", name, got, parent)
		}
	}
}

// What the tracker hands out as a traceparent, and what the OpenTelemetry
// propagator writes into a job's environment, read back as the span
// context they carry.
func TestParseTraceparentReadsWhatIsWritten(t *testing.T) {
	f := newFixture(t, TrackerOptions{})
	tp := f.tracker.Handle(msg(protocol.TypeBegin, "p")).Traceparent
	f.finish(t)
	sc, ok := ParseTraceparent(tp)
	if !ok || Traceparent(sc) != tp || !sc.IsRemote() || !sc.IsSampled() {
		t.Errorf("ParseTraceparent(%q) = %v, %v; formatted back %q", tp, sc, ok, Traceparent(sc))
	}
	env := InjectEnv(trace.ContextWithSpanContext(context.Background(), sc))
	if got, ok := ParseTraceparent(env["TRACEPARENT"]); !ok || !got.Equal(sc) {
		t.Errorf("the propagator's %q read as %v, %v; want %v", env["TRACEPARENT"], got, ok, sc)
	}
	unsampled := sc.WithTraceFlags(0)
	env = InjectEnv(trace.ContextWithSpanContext(context.Background(), unsampled))
	if got, ok := ParseTraceparent(env["TRACEPARENT"]); !ok || got.IsSampled() {
		t.Errorf("an unsampled %q read as sampled: %v, %v", env["TRACEPARENT"], got, ok)
	}
}
