package spans

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/internal/readback"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/wire"
)

// Attribute keys of jobtrace's own, where no semantic convention exists.
// They are documented in docs/attributes.md.
const (
	AttrPhaseSource = attribute.Key("jobtrace.phase.source")
	AttrPhaseTitle  = attribute.Key("jobtrace.phase.title")
	AttrEventSource = attribute.Key("jobtrace.event.source")
	// CounterPrefix is put before a user's counter name to make the metric
	// name: a counter "tests.failed" becomes the metric
	// "jobtrace.user.tests.failed", and its job total the job span
	// attribute "jobtrace.user.tests.failed".
	CounterPrefix = "jobtrace.user."
)

// Default bounds of a Tracker.
const (
	// DefaultMaxOpenPhases bounds the phases open at once; a begin beyond it
	// is refused, so a marker loop that never ends phases cannot grow the
	// agent without bound.
	DefaultMaxOpenPhases = 10000
	// DefaultMaxCounters bounds the distinct counter names of a job: each
	// one is a metric stream.
	DefaultMaxCounters = 1000
)

// MaxDepth bounds how deep phases nest: a begin that would put a phase
// more than MaxDepth levels under the job is refused (its end is then an
// end without an open phase). Real jobs nest a handful of levels (a stage,
// a step, a tool, its sub-steps; make or exec calls inside each other);
// 64 is far beyond that, and bounds what a phase's place in the tree costs
// wherever it is followed (the report's indentation, the profile's tree,
// the ancestors kept when the spool is read back).
const MaxDepth = 64

// MaxTimeSkew bounds how far a message's own time ("ts") may lie outside
// the job: a ts before the job's start less MaxTimeSkew, or after now plus
// MaxTimeSkew, is not used, and the message takes the time it was received,
// as one without ts does. The bound leaves room for GitLab's section times,
// cut to the second, and for a clock a little off on a remote step; what it
// catches is a wrong unit or a garbage value (milliseconds given as seconds,
// a negative number), which would put a phase decades away from its job.
const MaxTimeSkew = time.Minute

// AddTolerance is how long before its parent began an added phase may end
// and still be added (its times moved to its parent's start): times cut to
// the second, as GitHub's REST API gives a step's, put the end of a phase
// that ended in the second its parent began up to a second before it. One
// that ended earlier is refused, and the reply says so.
const AddTolerance = time.Second

// TrackerOptions configure a Tracker.
type TrackerOptions struct {
	// Meter makes the counters; nil means counters are only summed for
	// the job span.
	Meter metric.Meter
	// Warn receives one line about each message that could not be applied.
	Warn func(string)
	// MaxOpenPhases and MaxCounters default to DefaultMaxOpenPhases and
	// DefaultMaxCounters when zero.
	MaxOpenPhases int
	MaxCounters   int
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// Start is when the job started, the lower end of the times a message
	// may carry (MaxTimeSkew); Now() at NewTracker when zero.
	Start time.Time
	// Observer, when set, is told of every phase's begin and end, and
	// ends the phase spans itself (so it can set attributes on them
	// first).
	Observer PhaseObserver
}

// PhaseObserver is told of phase boundaries, such as a resource sampler
// that measures what each phase cost.
//
// PhaseBegan and PhaseEnded are called with the Tracker's lock held, in the
// order of the boundaries: they must only record the boundary (no reading,
// no waiting, no sink) and may call only Current and Innermost of the
// Tracker. The work a boundary needs (taking a sample, feeding sinks,
// waiting for the sample when b.Wait is set) goes in the function they
// return, which the Tracker calls once its lock is released, in the
// goroutine that handed it the message, before Handle or Close returns.
// So one source's sample never holds up another source's messages, and
// the reply to a sender that waits (b.Wait) still comes after its sample.
// Settle functions of different goroutines may run in any order: what
// must keep the order of boundaries is recorded under the lock.
type PhaseObserver interface {
	// PhaseBegan is called when a phase span has started.
	PhaseBegan(b Boundary) (settle func())
	// PhaseEnded is called when a phase ends, with its result; the
	// observer must end the span, at b.Time, once it is done with it.
	PhaseEnded(b Boundary) (settle func())
	// PhaseAdded is called when a phase that had ended already is added
	// (an add message): it began at b.Start and ended at b.Time, with
	// b.Result. The observer must end the span, at b.Time, once it is
	// done with it.
	PhaseAdded(b Boundary) (settle func())
}

// Boundary is a phase's begin or end, as told to a PhaseObserver.
type Boundary struct {
	Ctx    context.Context // the phase's context, holding its span
	Span   trace.Span
	Name   string
	Result string // at the end
	// Start is when an added phase began (PhaseAdded); Time is when it
	// ended.
	Start time.Time
	Time  time.Time
	// Wait is set when the sender waits for the reply (a socket client
	// such as `jobtrace phase`): the observer's settle function may finish
	// its work before returning, so that it happens before the sender
	// goes on.
	Wait bool
}

// TrackerStats count what a Tracker did.
type TrackerStats struct {
	Phases, Events, Counters uint64
	// Unmatched counts ends with no open phase of that name; Refused counts
	// messages dropped at a bound; LeftOpen counts phases ended by Close.
	Unmatched, Refused, LeftOpen uint64
	// BadTimes counts messages whose ts was outside the job's time
	// (MaxTimeSkew) and was replaced by the time received.
	BadTimes uint64
	// TooDeep counts begins refused at MaxDepth (they are in Refused too).
	TooDeep uint64
	// DroppedAttrs counts the attributes of messages and counters dropped
	// at MaxUserAttributes; DroppedEvents the events dropped at
	// MaxUserEvents.
	DroppedAttrs, DroppedEvents uint64
}

// spanRoom is what the job's messages have set on one span, against
// MaxUserAttributes and MaxUserEvents.
type spanRoom struct {
	keys   map[attribute.Key]struct{}
	events int
}

type phase struct {
	name   string
	syntax string
	step   bool // a step of `jobtrace exec` (isStep)
	span   trace.Span
	ctx    context.Context
	room   spanRoom

	// The phase tree, which keeps every phase inside its parent (see
	// inTree): parent is nil for a child of the job's span, whose depth
	// is 1.
	parent   *phase
	depth    int
	start    time.Time
	openKids int       // children begun and not finished
	kidsEnd  time.Time // the latest end of its finished children
	// ending holds the end of a phase that was ended while children of
	// it were open: it is finished when the last of them is.
	ending *phaseEnd
}

type phaseEnd struct {
	ts           time.Time
	result, desc string
	wait         bool
}

type counter struct {
	inst  metric.Float64Counter
	total float64
}

// Tracker turns phase messages into spans under a root span. It is safe for
// concurrent use.
type Tracker struct {
	mu       sync.Mutex
	tracer   trace.Tracer
	root     context.Context
	rootSpan trace.Span
	rootRoom spanRoom
	// rootStart is when the job's span began: no phase begins before.
	rootStart time.Time
	open      []*phase // in begin order; the last one is the innermost
	counters  map[string]*counter
	order     []string
	opts      TrackerOptions
	stats     TrackerStats
	closed    bool
	now       atomic.Pointer[now]
	// refused counts, by name, the begins refused at a bound whose end
	// has not come yet: that end is expected, not an error of the job.
	// It holds MaxOpenPhases names at most.
	refused  map[string]int
	nRefused int
	// settle holds what the observer returned for the boundaries of the
	// message being handled, to be called once mu is released.
	settle []func()
}

// NewTracker returns a Tracker whose phases are children of the span in
// root, made with tracer.
func NewTracker(root context.Context, tracer trace.Tracer, opts TrackerOptions) *Tracker {
	if opts.MaxOpenPhases <= 0 {
		opts.MaxOpenPhases = DefaultMaxOpenPhases
	}
	if opts.MaxCounters <= 0 {
		opts.MaxCounters = DefaultMaxCounters
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	if opts.Start.IsZero() {
		opts.Start = opts.Now()
	}
	return &Tracker{
		tracer:    tracer,
		root:      root,
		rootSpan:  trace.SpanFromContext(root),
		rootStart: startOf(trace.SpanFromContext(root), opts.Start),
		counters:  map[string]*counter{},
		opts:      opts,
	}
}

// Handle applies one message and returns the reply a socket client asked
// for. m keeps the rules protocol.Validate checks, which are not checked
// again here: every source's messages do (Parse checks the socket's and
// the marker dir's, the output scanner makes only such ones, but for a
// GitHub endgroup, which has no name, and a session checks a Go
// program's). What cannot be applied (no open phase of the name, a limit)
// is warned about and dropped.
func (t *Tracker) Handle(m protocol.Msg) protocol.Reply {
	var r protocol.Reply
	t.locked(func() { r = t.handle(m) })
	return r
}

// locked runs fn with t.mu held, then, with the lock released, what the
// observer returned for the boundaries fn recorded, in their order.
func (t *Tracker) locked(fn func()) {
	t.mu.Lock()
	fn()
	settle := t.settle
	t.settle = nil
	t.mu.Unlock()
	for _, f := range settle {
		f()
	}
}

// observed records what the observer returned for a boundary. The caller
// holds t.mu.
func (t *Tracker) observed(settle func()) {
	if settle != nil {
		t.settle = append(t.settle, settle)
	}
}

func (t *Tracker) handle(m protocol.Msg) protocol.Reply {
	if t.closed {
		return protocol.Reply{Error: "the job has ended"}
	}
	ts := m.Time
	if ts.IsZero() {
		ts = t.opts.Now()
	} else if now := t.opts.Now(); ts.Before(t.opts.Start.Add(-MaxTimeSkew)) || ts.After(now.Add(MaxTimeSkew)) {
		t.stats.BadTimes++
		if t.stats.BadTimes == 1 {
			t.opts.Warn(fmt.Sprintf("%s %q: ts %s is outside the job's time (from its start less %s to now plus %s): the time received is used instead; further ones are counted",
				m.Type, m.Name, ts.UTC().Format(time.RFC3339Nano), MaxTimeSkew, MaxTimeSkew))
		}
		ts = now
	}
	switch m.Type {
	case protocol.TypeBegin:
		return t.begin(m, ts)
	case protocol.TypeEnd:
		return t.end(m, ts)
	case protocol.TypeEvent:
		p := t.current(t.scopeOf(m))
		room := t.roomOf(p)
		if room.events >= MaxUserEvents {
			t.stats.DroppedEvents++
			if t.stats.DroppedEvents == 1 {
				t.opts.Warn(fmt.Sprintf("event %q dropped: its span has %d events already (limit); further ones are counted", m.Name, MaxUserEvents))
			}
			return protocol.Reply{Error: fmt.Sprintf("a span holds %d events at most", MaxUserEvents)}
		}
		room.events++
		attrs := append([]attribute.KeyValue{AttrEventSource.String(m.Syntax)}, m.Attrs...)
		t.spanOf(p).AddEvent(m.Name, trace.WithTimestamp(ts), trace.WithAttributes(attrs...))
		t.stats.Events++
		return protocol.Reply{OK: true}
	case protocol.TypeCounter:
		return t.count(m)
	case protocol.TypeAdd:
		return t.add(m)
	case protocol.TypeAttr:
		var p *phase
		scope := t.scopeOf(m)
		if m.Name == "" {
			p = t.current(scope)
		} else if i := t.findIn(m.Name, scope); i >= 0 {
			p = t.open[i]
		} else {
			t.stats.Unmatched++
			t.opts.Warn(fmt.Sprintf("attributes for phase %q, which is not open: dropped", m.Name))
			return protocol.Reply{Error: "no open phase " + m.Name}
		}
		t.spanOf(p).SetAttributes(t.admit(t.roomOf(p), m.Attrs)...)
		return protocol.Reply{OK: true}
	}
	t.stats.Refused++
	t.opts.Warn(fmt.Sprintf("message of unknown type %q: dropped", m.Type))
	return protocol.Reply{Error: "unknown type"}
}

func (t *Tracker) begin(m protocol.Msg, ts time.Time) protocol.Reply {
	if m.Syntax == protocol.SyntaxGitHub {
		// GitHub Actions groups do not nest: a new group ends the last one.
		if i := t.find("", protocol.SyntaxGitHub); i >= 0 {
			t.endAt(i, ts, wire.ResultSuccess, "", false)
		}
	}
	if len(t.open) >= t.opts.MaxOpenPhases {
		t.stats.Refused++
		t.refuse(m.Name)
		t.opts.Warn(fmt.Sprintf("phase %q not started: %d phases are open already (limit max_open_phases)", m.Name, len(t.open)))
		return protocol.Reply{Error: "too many open phases"}
	}
	step := isStep(m)
	var parent *phase
	if step {
		parent = t.stepParent(m.Parent)
	} else {
		parent = t.parentOf(m.Parent, t.scopeOf(m))
	}
	depth := 1
	if parent != nil {
		depth = parent.depth + 1
	}
	if depth > MaxDepth {
		t.refuse(m.Name)
		return t.tooDeep(m.Name, "started", depth)
	}
	ts = t.beginTime(ts, parent)
	attrs := make([]attribute.KeyValue, 0, len(m.Attrs)+2)
	attrs = append(attrs, AttrPhaseSource.String(m.Syntax))
	if m.Title != "" && m.Title != m.Name {
		attrs = append(attrs, AttrPhaseTitle.String(m.Title))
	}
	p := &phase{name: m.Name, syntax: m.Syntax, step: step, parent: parent, depth: depth, start: ts}
	attrs = append(attrs, t.admit(&p.room, m.Attrs)...)
	parentCtx := t.root
	if parent != nil {
		parentCtx = parent.ctx
		parent.openKids++
	}
	p.ctx, p.span = t.tracer.Start(parentCtx, m.Name, trace.WithTimestamp(ts), trace.WithAttributes(attrs...), trace.WithSpanKind(trace.SpanKindInternal))
	ctx, sp := p.ctx, p.span
	t.open = append(t.open, p)
	t.stats.Phases++
	t.publish()
	if t.opts.Observer != nil {
		t.observed(t.opts.Observer.PhaseBegan(Boundary{Ctx: ctx, Span: sp, Name: m.Name, Time: ts, Wait: m.Ack}))
	}
	return protocol.Reply{OK: true, Traceparent: Traceparent(sp.SpanContext())}
}

// tooDeep refuses the phase name, which would be nested depth deep, past
// MaxDepth: said once, counted after.
func (t *Tracker) tooDeep(name, what string, depth int) protocol.Reply {
	t.stats.Refused++
	t.stats.TooDeep++
	if t.stats.TooDeep == 1 {
		t.opts.Warn(fmt.Sprintf("phase %q not %s: it would be nested %d deep (limit %d); further ones are counted", name, what, depth, MaxDepth))
	}
	return protocol.Reply{Error: fmt.Sprintf("phases nest %d deep at most", MaxDepth)}
}

// refuse notes a begin refused at a bound, so that its end is not taken for
// an end without a begin.
func (t *Tracker) refuse(name string) {
	if t.nRefused >= t.opts.MaxOpenPhases {
		return
	}
	if t.refused == nil {
		t.refused = map[string]int{}
	}
	t.refused[name]++
	t.nRefused++
}

func (t *Tracker) end(m protocol.Msg, ts time.Time) protocol.Reply {
	var i int
	if m.Syntax == protocol.SyntaxGitHub && m.Name == "" {
		i = t.find("", protocol.SyntaxGitHub)
	} else if m.Span != "" {
		i = t.findSpan(m.Name, m.Span)
	} else {
		i = t.findIn(m.Name, t.scopeOf(m))
	}
	if i < 0 && t.refused[m.Name] > 0 {
		t.refused[m.Name]--
		t.nRefused--
		if t.refused[m.Name] == 0 {
			delete(t.refused, m.Name)
		}
		return protocol.Reply{Error: "phase " + m.Name + " was not started (a limit)"}
	}
	if i < 0 {
		t.stats.Unmatched++
		name := m.Name
		if name == "" {
			name = "::endgroup::"
		}
		t.opts.Warn(fmt.Sprintf("end of phase %q, but no phase of that name is open: ignored", name))
		return protocol.Reply{Error: "no open phase " + m.Name}
	}
	t.open[i].span.SetAttributes(t.admit(&t.open[i].room, m.Attrs)...)
	t.endAt(i, ts, wire.NormalResult(m.Result), m.Status, m.Ack)
	return protocol.Reply{OK: true}
}

// endAt ends the open phase i and removes it from the open list. A phase
// with children still open is finished when the last of them is (see
// inTree).
func (t *Tracker) endAt(i int, ts time.Time, result, desc string, wait bool) {
	p := t.open[i]
	t.open = append(t.open[:i], t.open[i+1:]...)
	t.publish()
	if now := t.opts.Now(); ts.After(now) {
		ts = now
	}
	p.ending = &phaseEnd{ts: ts, result: result, desc: desc, wait: wait}
	for p != nil && p.ending != nil && p.openKids == 0 {
		p = t.finish(p)
	}
}

// finish ends the span of p, which has no open children, and returns its
// parent.
func (t *Tracker) finish(p *phase) *phase {
	e := p.ending
	p.ending = nil
	end := latest(e.ts, p.start, p.kidsEnd)
	SetResult(p.span, e.result, e.desc)
	if t.opts.Observer != nil {
		t.observed(t.opts.Observer.PhaseEnded(Boundary{Ctx: p.ctx, Span: p.span, Name: p.name, Result: e.result, Time: end, Wait: e.wait}))
	} else {
		p.span.End(trace.WithTimestamp(end))
	}
	if q := p.parent; q != nil {
		q.openKids--
		q.kidsEnd = latest(q.kidsEnd, end)
	}
	return p.parent
}

// add makes the span of a phase that has ended already, from its start
// and end (an add message), under the job or under the open phase that
// m.Parent names. It is kept in the phase tree as a phase of its own: it
// begins no earlier than its parent and ends no later than now, and its
// parent ends no earlier than it. One that ended before its parent began
// (by more than AddTolerance) is refused.
func (t *Tracker) add(m protocol.Msg) protocol.Reply {
	var parent *phase
	if m.Parent != "" {
		if parent = t.openPhase(m.Parent, t.scopeOf(m)); parent == nil {
			t.opts.Warn(fmt.Sprintf("parent phase %q of added phase %q is not open: added under the job", m.Parent, m.Name))
		}
	}
	depth := 1
	if parent != nil {
		depth = parent.depth + 1
	}
	if depth > MaxDepth {
		return t.tooDeep(m.Name, "added", depth)
	}
	floor := t.rootStart
	if parent != nil {
		floor = parent.start
	}
	if m.End.Before(floor.Add(-AddTolerance)) {
		return protocol.Reply{Error: fmt.Sprintf("phase %s ended at %s, before its parent began (%s): not added",
			m.Name, m.End.UTC().Format(time.RFC3339Nano), floor.UTC().Format(time.RFC3339Nano))}
	}
	start := t.beginTime(m.Start, parent)
	end := latest(m.End, start)
	if now := t.opts.Now(); end.After(now) {
		end = now
	}
	result := wire.NormalResult(m.Result)
	attrs := make([]attribute.KeyValue, 0, len(m.Attrs)+1)
	attrs = append(attrs, AttrPhaseSource.String(m.Syntax))
	attrs = append(attrs, t.admit(&spanRoom{}, m.Attrs)...)
	parentCtx := t.root
	if parent != nil {
		parentCtx = parent.ctx
		parent.kidsEnd = latest(parent.kidsEnd, end)
	}
	ctx, sp := t.tracer.Start(parentCtx, m.Name, trace.WithTimestamp(start), trace.WithAttributes(attrs...), trace.WithSpanKind(trace.SpanKindInternal))
	SetResult(sp, result, m.Status)
	t.stats.Phases++
	if t.opts.Observer != nil {
		t.observed(t.opts.Observer.PhaseAdded(Boundary{Ctx: ctx, Span: sp, Name: m.Name, Result: result, Start: start, Time: end, Wait: m.Ack}))
	} else {
		sp.End(trace.WithTimestamp(end))
	}
	return protocol.Reply{OK: true, Traceparent: Traceparent(sp.SpanContext())}
}

// The phase tree is kept in one place, here: every phase lies inside its
// parent, in every artifact made from the spans. The times of a phase come
// from its sources (the output scanner stamps a marker with the time it was
// read, a socket client with the time it sent the message, GitLab with a
// whole second), which do not agree to the millisecond: a phase begun by
// `jobtrace phase begin` right after a `::group::` line may carry a time
// before the group's. So:
//
//   - a phase begins no earlier than its parent (or the job) began, and no
//     later than now;
//   - a phase ends no earlier than it began, and no earlier than its
//     children ended, and no later than now;
//   - a phase ended while children of it are still open (a GitHub group
//     ended by the next group, overlapping BEGIN/END markers) ends when the
//     last of them ends: the job's markers are never refused for it.

// beginTime is the time a child of parent (nil: the job) that says it
// began at ts is given.
func (t *Tracker) beginTime(ts time.Time, parent *phase) time.Time {
	floor := t.rootStart
	if parent != nil {
		floor = parent.start
	}
	if now := t.opts.Now(); ts.After(now) {
		ts = now
	}
	return latest(ts, floor)
}

func latest(ts ...time.Time) time.Time {
	var l time.Time
	for _, t := range ts {
		if t.After(l) {
			l = t
		}
	}
	return l
}

// now is what Current and Innermost return: the innermost open phase at
// the last change, published without the lock so that an observer and its
// sinks may read it from any goroutine, the Tracker's lock held or not. It
// costs the same however deep the phase is.
type now struct {
	cur Current
	ctx context.Context
}

// Current is the innermost open phase.
type Current struct {
	Name   string
	SpanID string // 16 hex digits
	Depth  int    // 1 directly under the job; 0 when no phase is open
}

// publish records the innermost open phase for Current and Innermost. The
// caller holds t.mu.
func (t *Tracker) publish() {
	n := &now{ctx: t.innermostCtx()}
	if k := len(t.open); k > 0 {
		p := t.open[k-1]
		n.cur = Current{Name: p.name, SpanID: p.span.SpanContext().SpanID().String(), Depth: p.depth}
	}
	t.now.Store(n)
}

func (t *Tracker) count(m protocol.Msg) protocol.Reply {
	c := t.counters[m.Name]
	if c == nil {
		if len(t.counters) >= t.opts.MaxCounters {
			t.stats.Refused++
			t.opts.Warn(fmt.Sprintf("counter %q dropped: the job has %d counters already (limit)", m.Name, len(t.counters)))
			return protocol.Reply{Error: "too many counters"}
		}
		c = &counter{}
		if t.opts.Meter != nil {
			inst, err := t.opts.Meter.Float64Counter(CounterPrefix+m.Name, metric.WithDescription("Counter reported by the job"))
			if err != nil {
				t.opts.Warn(fmt.Sprintf("counter %q: %v", m.Name, err))
			} else {
				c.inst = inst
			}
		}
		t.counters[m.Name] = c
		t.order = append(t.order, m.Name)
	}
	c.total += m.Value
	if c.inst != nil {
		c.inst.Add(context.Background(), m.Value, metric.WithAttributes(m.Attrs...))
	}
	t.stats.Counters++
	return protocol.Reply{OK: true}
}

// find returns the index of the innermost open phase with that name (if
// name is set) and syntax (if set), or -1.
func (t *Tracker) find(name, syntax string) int {
	for i := len(t.open) - 1; i >= 0; i-- {
		p := t.open[i]
		if (name == "" || p.name == name) && (syntax == "" || p.syntax == syntax) {
			return i
		}
	}
	return -1
}

// findSpan returns the index of the open phase of that name whose span is
// ref (a traceparent or a span id), or -1: the phase an end names by its
// span (a step of `jobtrace exec`), which phases of the same name open
// beside it do not stand in for.
func (t *Tracker) findSpan(name, ref string) int {
	id, ok := parseSpanRef(ref)
	if !ok {
		return t.find(name, "")
	}
	for i := len(t.open) - 1; i >= 0; i-- {
		if p := t.open[i]; p.name == name && p.span.SpanContext().SpanID() == id {
			return i
		}
	}
	return -1
}

// innermost returns the innermost open phase, nil when none is (the job).
func (t *Tracker) innermost() *phase {
	if n := len(t.open); n > 0 {
		return t.open[n-1]
	}
	return nil
}

// roomOf returns what the job has set on p's span, the job's when p is nil.
func (t *Tracker) roomOf(p *phase) *spanRoom {
	if p == nil {
		return &t.rootRoom
	}
	return &p.room
}

// spanOf returns p's span, the job's when p is nil.
func (t *Tracker) spanOf(p *phase) trace.Span {
	if p == nil {
		return t.rootSpan
	}
	return p.span
}

// admit returns those of attrs that the span of room has room for
// (MaxUserAttributes distinct keys; a key set before is always admitted),
// and counts the others. The caller holds t.mu.
func (t *Tracker) admit(room *spanRoom, attrs []attribute.KeyValue) []attribute.KeyValue {
	if room.keys == nil {
		room.keys = map[attribute.Key]struct{}{}
	}
	kept := attrs[:0:0]
	for _, kv := range attrs {
		if _, ok := room.keys[kv.Key]; !ok {
			if len(room.keys) >= MaxUserAttributes {
				t.stats.DroppedAttrs++
				if t.stats.DroppedAttrs == 1 {
					t.opts.Warn(fmt.Sprintf("attribute %q dropped: its span has %d of the job's attributes already (limit); further ones are counted", kv.Key, MaxUserAttributes))
				}
				continue
			}
			room.keys[kv.Key] = struct{}{}
		}
		kept = append(kept, kv)
	}
	return kept
}

func (t *Tracker) innermostCtx() context.Context {
	if n := len(t.open); n > 0 {
		return t.open[n-1].ctx
	}
	return t.root
}

// openPhase returns the open phase that ref names: a W3C traceparent or a
// 16-hex-digit span id of it, or its name (the innermost of that name, in
// scope first: findIn); nil when none is open.
func (t *Tracker) openPhase(ref string, scope msgScope) *phase {
	if id, ok := parseSpanRef(ref); ok {
		return t.openSpan(id)
	}
	if i := t.findIn(ref, scope); i >= 0 {
		return t.open[i]
	}
	return nil
}

// openSpan returns the open phase whose span is id, nil when none is.
func (t *Tracker) openSpan(id trace.SpanID) *phase {
	for i := len(t.open) - 1; i >= 0; i-- {
		if t.open[i].span.SpanContext().SpanID() == id {
			return t.open[i]
		}
	}
	return nil
}

// parentOf resolves a begin's parent: a W3C traceparent or a 16-hex-digit
// span id of an open phase, or the name of an open phase. Anything else,
// including the job span itself, means the current phase of the message's
// scope (current); nil is the job.
func (t *Tracker) parentOf(parent string, scope msgScope) *phase {
	if parent == "" {
		return t.current(scope)
	}
	if p := t.openPhase(parent, scope); p != nil {
		return p
	}
	if _, ok := parseSpanRef(parent); !ok {
		t.opts.Warn(fmt.Sprintf("parent phase %q is not open: nesting under the innermost open phase", parent))
	}
	return t.current(scope)
}

// stepParent resolves the parent of a step of `jobtrace exec`: the
// innermost open phase inside the one ref names (its TRACEPARENT; the job
// when that names no open phase) that is not inside another open exec
// step (within). A step that the command of an exec step starts names
// that step; one started beside other steps (make -j, a shell's &) names
// none of them, so it nests beside them, not in the one that began last.
func (t *Tracker) stepParent(ref string) *phase {
	top := t.openPhase(ref, msgScope{})
	if i := t.within(top, ""); i >= 0 {
		return t.open[i]
	}
	return top
}

// msgScope is where a message applies: within top (nil: the job), the
// phases inside it but not inside another open exec step, when set; when
// not, anywhere, the innermost open phase first.
type msgScope struct {
	top *phase
	set bool
}

// scopeOf returns m's scope: the TRACEPARENT its sender was started with,
// a step of `jobtrace exec`, any phase whose traceparent a tool passed on,
// or the job's span, which the job's script has. A message with a scope
// applies within it, by the rule steps nest by (within), so that a marker
// of one step never lands in another step open beside it, nor a marker of
// the script in a step it started in the background. A message without a
// scope, or with a span the run does not know (any longer), applies to the
// innermost open phase.
func (t *Tracker) scopeOf(m protocol.Msg) msgScope {
	id, ok := parseSpanRef(m.Scope)
	switch {
	case !ok:
		return msgScope{}
	case id == t.rootSpan.SpanContext().SpanID():
		return msgScope{set: true} // the job script's own: no search
	}
	if p := t.openSpan(id); p != nil {
		return msgScope{top: p, set: true}
	}
	return msgScope{}
}

// current returns the phase a message in scope applies to when it names
// none: the innermost open phase within the scope, else the scope's top;
// without a scope, the innermost open phase (nil: the job).
func (t *Tracker) current(scope msgScope) *phase {
	if !scope.set {
		return t.innermost()
	}
	if i := t.within(scope.top, ""); i >= 0 {
		return t.open[i]
	}
	return scope.top
}

// findIn returns the index of the open phase of that name a message in
// scope means: the innermost one within the scope, else the innermost one
// of that name (as without a scope: a phase begun outside the step, by the
// script around it); -1 when none is open.
func (t *Tracker) findIn(name string, scope msgScope) int {
	if scope.set {
		if i := t.within(scope.top, name); i >= 0 {
			return i
		}
	}
	return t.find(name, "")
}

// within returns the index of the innermost open phase (of that name, when
// name is set) inside top (nil: the job) that is not inside another open
// exec step, or -1. It is the one rule of what is inside a step: where a
// step nests (stepParent), and where a marker sent from inside one
// applies (scopeOf).
func (t *Tracker) within(top *phase, name string) int {
	for i := len(t.open) - 1; i >= 0; i-- {
		if p := t.open[i]; (name == "" || p.name == name) && withinStep(p, top) {
			return i
		}
	}
	return -1
}

// isStep reports whether m begins a step of `jobtrace exec`: its
// jobtrace.phase.source, which the span shows, says exec (the last of the
// message's, readback.Attr, as the span keeps it); without one, its source.
func isStep(m protocol.Msg) bool {
	if v, ok := readback.Attr(m.Attrs, AttrPhaseSource); ok {
		return v.Type() == attribute.STRING && v.AsString() == protocol.SyntaxExec
	}
	return m.Syntax == protocol.SyntaxExec
}

// withinStep reports whether p is top, or below it with no open exec step
// on the way (p included); top nil is the job.
func withinStep(p, top *phase) bool {
	for q := p; q != nil; q = q.parent {
		if q == top {
			return true
		}
		if q.step && q.ending == nil {
			return false
		}
	}
	return top == nil
}

// startOf is when sp began, where the span says (an SDK span does), else
// def.
func startOf(sp trace.Span, def time.Time) time.Time {
	if s, ok := sp.(interface{ StartTime() time.Time }); ok && !s.StartTime().IsZero() {
		return s.StartTime()
	}
	return def
}

// Close ends every phase still open with the job's result, or error when
// the job succeeded: with the status Error, noting that it was still open
// when the job ended, unless the job was cancelled or skipped. It sets the
// counters' totals on the job span and refuses further messages. It
// returns the names of the phases it ended.
func (t *Tracker) Close(result string) []string {
	var names []string
	t.locked(func() { names = t.close(result) })
	return names
}

func (t *Tracker) close(result string) []string {
	if t.closed {
		return nil
	}
	t.closed = true
	now := t.opts.Now()
	var names []string
	if wire.NormalResult(result) == wire.ResultSuccess {
		result = wire.ResultError
	}
	for len(t.open) > 0 {
		i := len(t.open) - 1
		names = append(names, t.open[i].name)
		t.stats.LeftOpen++
		t.endAt(i, now, result, "phase still open when the job ended", false)
	}
	totals := make([]attribute.KeyValue, 0, len(t.order))
	for _, name := range t.order {
		c := t.counters[name]
		key := attribute.Key(CounterPrefix + name)
		if c.total == math.Trunc(c.total) && math.Abs(c.total) < 1<<53 {
			totals = append(totals, key.Int64(int64(c.total)))
		} else {
			totals = append(totals, key.Float64(c.total))
		}
	}
	t.rootSpan.SetAttributes(t.admit(&t.rootRoom, totals)...)
	return names
}

// Stats returns what the tracker has done so far.
func (t *Tracker) Stats() TrackerStats {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stats
}

// Current returns the innermost open phase, the zero Current when none is.
// It takes no lock: a phase observer's callees may call it.
func (t *Tracker) Current() Current {
	if n := t.now.Load(); n != nil {
		return n.cur
	}
	return Current{}
}

// Innermost returns the context of the innermost open phase, or the root.
// It takes no lock: a phase observer's callees may call it.
func (t *Tracker) Innermost() context.Context {
	if n := t.now.Load(); n != nil {
		return n.ctx
	}
	return t.root
}
