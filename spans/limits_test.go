package spans

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/spans/protocol"
)

// fullUsage is a usage with every figure present and its verdict: every
// key of usage.AttributeKeys and verdict.AttributeKeys.
func fullUsage() []attribute.KeyValue {
	all := usage.Stalls{HasCPUSome: true, HasMemorySome: true, HasMemoryFull: true, HasIOSome: true, HasIOFull: true}
	u := usage.Usage{Samples: 2, HasCPU: true, HasMemory: true, HasIO: true, HasPressure: true, Pressure: all, HasOOMKills: true,
		HasSystemCPU: true, HasSystemMemory: true, HasSystemDisk: true, HasNetwork: true, HasSystemPressure: true, SystemPressure: all}
	return append(u.Attributes(), verdict.Judge(u).Attributes()...)
}

// fullAdvice is the job's advice with every figure present.
func fullAdvice() []attribute.KeyValue {
	a := sizing.Advise(sizing.Figures{Duration: time.Hour, HasCPU: true, CPUBusyP95: 1, HasMemory: true,
		HasMemoryStall: true, HasOOMKills: true, HasSwap: true})
	return a.Attributes()
}

// usageObserver sets a full usage on every phase as it ends, as the
// session's does.
type usageObserver struct{}

func (usageObserver) PhaseBegan(Boundary) func() { return nil }
func (usageObserver) PhaseEnded(b Boundary) func() {
	b.Span.SetAttributes(fullUsage()...)
	b.Span.End(trace.WithTimestamp(b.Time))
	return nil
}
func (o usageObserver) PhaseAdded(b Boundary) func() { return o.PhaseEnded(b) }

// limited is a Tracker on a provider with jobtrace's SpanLimits.
type limited struct {
	exp      *tracetest.InMemoryExporter
	root     trace.Span
	tracker  *Tracker
	warnings []string
}

func newLimited() *limited {
	l := &limited{exp: tracetest.NewInMemoryExporter()}
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(l.exp), sdktrace.WithRawSpanLimits(SpanLimits()))
	ctx, root := tp.Tracer("test").Start(context.Background(), "job")
	l.root = root
	l.tracker = NewTracker(ctx, tp.Tracer("test"), TrackerOptions{Observer: usageObserver{},
		Warn: func(s string) { l.warnings = append(l.warnings, s) }})
	return l
}

// attrs sends n attributes named prefix.i in attr messages to the phase
// named phase (the innermost, or the job, when empty).
func (l *limited) attrs(t *testing.T, phase, prefix string, n int) {
	t.Helper()
	for i := 0; i < n; i += protocol.MaxAttrs {
		m := msg(protocol.TypeAttr, phase)
		for j := i; j < n && j < i+protocol.MaxAttrs; j++ {
			m.Attrs = append(m.Attrs, attribute.Int(fmt.Sprintf("%s.%d", prefix, j), j))
		}
		l.tracker.Handle(m)
	}
}

// finish closes the tracker, sets what jobtrace sets on the job's span
// (a full usage and MaxJobAttributes others), ends it and returns the
// spans by name.
func (l *limited) finish() map[string]tracetest.SpanStub {
	l.tracker.Close("success")
	l.root.SetAttributes(fullUsage()...)
	for i := 0; i < MaxJobAttributes; i++ {
		l.root.SetAttributes(attribute.Int(fmt.Sprintf("jobtrace.own.%d", i), i))
	}
	l.root.End()
	out := map[string]tracetest.SpanStub{}
	for _, s := range l.exp.GetSpans() {
		out[s.Name] = s
	}
	return out
}

func count(s tracetest.SpanStub, prefix string) int {
	n := 0
	for _, kv := range s.Attributes {
		if strings.HasPrefix(string(kv.Key), prefix) {
			n++
		}
	}
	return n
}

func warned(ws []string, what string) int {
	n := 0
	for _, w := range ws {
		if strings.Contains(w, what) {
			n++
		}
	}
	return n
}

// A phase and the job flooded with the job's attributes and counters keep
// every attribute jobtrace sets on them; the excess is counted and said
// once.
func TestFloodedSpansKeepJobtracesAttributes(t *testing.T) {
	l := newLimited()
	l.tracker.Handle(msg(protocol.TypeBegin, "p"))
	l.attrs(t, "p", "user", 200)
	end := msg(protocol.TypeEnd, "p")
	end.Result = "failure"
	end.Attrs = []attribute.KeyValue{attribute.Int("user.0", -1), attribute.Int("user.late", 1)}
	l.tracker.Handle(end)
	l.attrs(t, "", "user", 100)
	for i := 0; i < 100; i++ {
		c := msg(protocol.TypeCounter, fmt.Sprintf("c%d", i))
		c.Value = 1
		l.tracker.Handle(c)
	}
	got := l.finish()

	for _, name := range []string{"p", "job"} {
		s := got[name]
		if s.DroppedAttributes != 0 {
			t.Errorf("%s: the SDK dropped %d attributes", name, s.DroppedAttributes)
		}
		for _, k := range append(usage.AttributeKeys(), verdict.AttributeKeys()...) {
			if _, ok := attr(s, string(k)); !ok {
				t.Errorf("%s: %s lost", name, k)
			}
		}
		if n := count(s, "user.") + count(s, CounterPrefix); n != MaxUserAttributes {
			t.Errorf("%s: %d of the job's attributes, want %d", name, n, MaxUserAttributes)
		}
	}
	if v, ok := attr(got["p"], "cicd.pipeline.task.run.result"); !ok || v.AsString() != "failure" {
		t.Errorf("phase result = %v %v", v.Emit(), ok)
	}
	if v, _ := attr(got["p"], "user.0"); v.AsInt64() != -1 {
		t.Errorf("an attribute set again at the bound was not updated: %v", v.Emit())
	}
	if n := count(got["job"], "jobtrace.own."); n != MaxJobAttributes {
		t.Errorf("job: %d of jobtrace's own attributes, want %d", n, MaxJobAttributes)
	}
	// phase: 201 distinct, job: 100 + 100 counters.
	if st := l.tracker.Stats(); st.DroppedAttrs != 201-MaxUserAttributes+200-MaxUserAttributes {
		t.Errorf("dropped attributes = %d, want %d", st.DroppedAttrs, 201-MaxUserAttributes+200-MaxUserAttributes)
	}
	if n := warned(l.warnings, "attribute"); n != 1 {
		t.Errorf("%d warnings about attributes, want 1: %q", n, l.warnings)
	}
}

// The bound on the job's attributes of a span: MaxUserAttributes are kept,
// one more is dropped.
func TestUserAttributesBound(t *testing.T) {
	for _, n := range []int{MaxUserAttributes, MaxUserAttributes + 1} {
		l := newLimited()
		l.tracker.Handle(msg(protocol.TypeBegin, "p"))
		l.attrs(t, "", "user", n)
		l.tracker.Handle(msg(protocol.TypeEnd, "p"))
		got := l.finish()
		if k := count(got["p"], "user."); k != MaxUserAttributes {
			t.Errorf("%d attributes: %d kept, want %d", n, k, MaxUserAttributes)
		}
		if st := l.tracker.Stats(); st.DroppedAttrs != uint64(n-MaxUserAttributes) {
			t.Errorf("%d attributes: %d dropped, want %d", n, st.DroppedAttrs, n-MaxUserAttributes)
		}
		if k := count(got["p"], "jobtrace.usage."); k == 0 {
			t.Errorf("%d attributes: usage lost", n)
		}
	}
}

// The bound on events of a span: MaxUserEvents are kept, one more is
// dropped, counted and said once; an event with the most attributes a
// message has keeps its source.
func TestUserEventsBound(t *testing.T) {
	for _, n := range []int{MaxUserEvents, MaxUserEvents + 2} {
		l := newLimited()
		l.tracker.Handle(msg(protocol.TypeBegin, "p"))
		for i := 0; i < n; i++ {
			e := msg(protocol.TypeEvent, fmt.Sprintf("e%d", i))
			for j := 0; j < protocol.MaxAttrs; j++ {
				e.Attrs = append(e.Attrs, attribute.Int(fmt.Sprintf("a%d", j), j))
			}
			r := l.tracker.Handle(e)
			if r.OK != (i < MaxUserEvents) {
				t.Errorf("%d events: event %d: %+v", n, i, r)
			}
		}
		l.tracker.Handle(msg(protocol.TypeEnd, "p"))
		got := l.finish()
		p := got["p"]
		if len(p.Events) != MaxUserEvents || p.DroppedEvents != 0 {
			t.Errorf("%d events: %d kept, the SDK dropped %d", n, len(p.Events), p.DroppedEvents)
		}
		for _, e := range p.Events {
			if len(e.Attributes) != protocol.MaxAttrs+1 || e.DroppedAttributeCount != 0 || e.Attributes[0].Key != AttrEventSource {
				t.Fatalf("event %s: %d attributes, %d dropped", e.Name, len(e.Attributes), e.DroppedAttributeCount)
			}
		}
		if st := l.tracker.Stats(); st.DroppedEvents != uint64(n-MaxUserEvents) {
			t.Errorf("%d events: %d dropped, want %d", n, st.DroppedEvents, n-MaxUserEvents)
		}
		if w := warned(l.warnings, "event"); w != min(n-MaxUserEvents, 1) {
			t.Errorf("%d events: %d warnings: %q", n, w, l.warnings)
		}
	}
}

// What jobtrace sets on a span fits the room SpanLimits keeps for it.
func TestOwnAttributesFitTheRoom(t *testing.T) {
	own := len(fullUsage()) + usage.NumWindowKeys + len(ownPhaseKeys) + len(fullAdvice()) + MaxJobAttributes
	if own > OwnAttributes() {
		t.Errorf("jobtrace sets %d attributes on a span, the room is %d", own, OwnAttributes())
	}
	if l := SpanLimits(); l.AttributeCountLimit != MaxUserAttributes+OwnAttributes() || l.EventCountLimit < MaxUserEvents {
		t.Errorf("limits %+v", l)
	}
}
