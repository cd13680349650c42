package session

import (
	"context"
	"sync"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/spans"
)

// heldSource is a hostmetrics.Source whose reads, once held, wait until
// released; reading says when one starts waiting.
type heldSource struct {
	mu      sync.Mutex
	held    bool
	reads   int
	reading chan struct{}
	release chan struct{}
}

func (h *heldSource) Read(s *hostmetrics.Sample) error {
	h.mu.Lock()
	held := h.held
	h.mu.Unlock()
	if held {
		select {
		case h.reading <- struct{}{}:
		default:
		}
		<-h.release
	}
	h.mu.Lock()
	h.reads++
	h.mu.Unlock()
	return nil
}

func (h *heldSource) hold() {
	h.mu.Lock()
	h.held = true
	h.mu.Unlock()
}

func (h *heldSource) SetJob(int)                      {}
func (h *heldSource) JobOutsideCgroup()               {}
func (h *heldSource) JobExited(hostmetrics.ExitUsage) {}
func (h *heldSource) Unavailable() string             { return "" }
func (h *heldSource) Close() error                    { return nil }

// boundaryFixture is a phase observer over a sampler whose reads the test
// holds, with a clock the test moves.
type boundaryFixture struct {
	src     *heldSource
	usage   *phaseUsage
	sampler *hostmetrics.Sampler
	spans   *tracetest.InMemoryExporter
	tracer  *sdktrace.TracerProvider
	mu      sync.Mutex
	now     time.Time
}

func newBoundaryFixture(t *testing.T) *boundaryFixture {
	t.Helper()
	f := &boundaryFixture{
		src:   &heldSource{reading: make(chan struct{}, 1), release: make(chan struct{})},
		usage: newPhaseUsage(),
		spans: tracetest.NewInMemoryExporter(),
		now:   time.Now(),
	}
	f.tracer = sdktrace.NewTracerProvider(sdktrace.WithSyncer(f.spans))
	f.sampler = hostmetrics.NewSampler(f.src, hostmetrics.Options{Interval: -1, Sinks: []hostmetrics.Sink{f.usage}, Now: f.clock})
	f.usage.sampler = f.sampler
	f.sampler.Start()
	// The last sample is SyncGap old: a boundary may be sampled at once.
	f.mu.Lock()
	f.now = f.now.Add(hostmetrics.SyncGap)
	f.mu.Unlock()
	f.src.hold()
	return f
}

func (f *boundaryFixture) clock() time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.now
}

func (f *boundaryFixture) boundary(name string) spans.Boundary {
	ctx, sp := f.tracer.Tracer("test").Start(context.Background(), name)
	return spans.Boundary{Ctx: ctx, Span: sp, Name: name, Time: time.Now(), Wait: true}
}

// settleWhileReading calls settle in a goroutine and returns, once the
// sample settle asked for is being read, a channel closed when settle has
// returned.
func (f *boundaryFixture) settleWhileReading(settle func()) <-chan struct{} {
	settled := make(chan struct{})
	go func() {
		settle()
		close(settled)
	}()
	<-f.src.reading
	return settled
}

// waitsForItsSample checks that settle, a boundary's settle function, does
// not return while the sample it asked for is being read, and returns once
// it is.
func (f *boundaryFixture) waitsForItsSample(t *testing.T, what string, settle func()) {
	t.Helper()
	settled := f.settleWhileReading(settle)
	select {
	case <-settled:
		t.Fatalf("the %s's reply did not wait for its sample", what)
	default:
	}
	close(f.src.release)
	<-settled
	f.sampler.Stop()
}

// The reply to `jobtrace phase end` comes after the end's sample, as a
// begin's does: a process of the job that exits once the sender has its
// reply (the step's shell) must still be in the tree the end's sample reads,
// or its usage would fall outside the phase.
func TestEndReplyWaitsForItsSample(t *testing.T) {
	f := newBoundaryFixture(t)
	f.waitsForItsSample(t, "end", f.usage.PhaseEnded(f.boundary("compile")))
	if n := len(f.spans.GetSpans()); n != 1 {
		t.Errorf("%d spans ended after the end's sample, want 1", n)
	}
}

// The reply to `jobtrace phase begin` comes after the begin's sample, so
// that the phase's usage covers the work its sender starts on the reply.
func TestBeginReplyWaitsForItsSample(t *testing.T) {
	f := newBoundaryFixture(t)
	f.waitsForItsSample(t, "begin", f.usage.PhaseBegan(f.boundary("compile")))
	if n := len(f.usage.windows); n != 1 {
		t.Errorf("%d usage windows open, want the phase's", n)
	}
}
