package spool

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/jobtrace/jobtrace/internal/stackhint"
)

// MaxQueueSpans bounds the spans waiting to be written. The writer normally
// keeps the queue near empty (a line takes well under a millisecond to
// encode and append); a burst of spans fills it, and then the span that ends
// waits for room: the spool takes every span, and the code that ends spans
// (the phase tracker, fed by the socket) slows down instead, down to the job
// writing to the socket. At 2 to 3 KiB a span (the snapshot with its usage
// attributes) the bound keeps the queue near 8 to 12 MiB, a small part of
// the agent's memory budget, and it holds about a tenth of a second of
// writing: enough for any burst a job makes without waiting.
const MaxQueueSpans = 4096

// MaxLineSpans bounds the spans written as one line. Encoding a line holds
// two more copies of its spans (the pdata form and the JSON), so the bound
// caps what the writer holds at once, and it keeps a line (an OTLP request
// when the spool is sent) near half a MiB, below the 4 MiB a gRPC server
// takes by default.
const MaxLineSpans = 512

// firstLineBytes is the room the writer's line buffer starts with, which
// holds the lines of a run's first spans without growing; the buffer is
// reused for every line, and grows with the largest (MaxLineSpans bounds it).
const firstLineBytes = 16 << 10

// StallTimeout is how long a span that finds the queue full waits for the
// writer to take one span before the disk is taken as stalled (a hung
// network file system, a device that stopped answering). Then spans that
// find the queue full are dropped at once, counted, and said once, until the
// writer takes spans again: a dead disk must not hold up the job.
const StallTimeout = 5 * time.Second

// Stats counts what a SpanProcessor did.
type Stats struct {
	Spans   int64 // spans written to the file
	Dropped int64 // spans dropped because the disk stalled (StallTimeout) or the processor had shut down
	Lines   int64 // lines written
	Errors  int64 // writes that failed; their spans are lost
	Lost    int64 // spans of the writes that failed
}

type config struct {
	warn  func(string)
	stall time.Duration
}

// Option configures a SpanProcessor.
type Option func(*config)

// WithStallTimeout replaces StallTimeout, for tests.
func WithStallTimeout(d time.Duration) Option {
	return func(c *config) {
		if d > 0 {
			c.stall = d
		}
	}
}

// WithWarn sets where the processor reports dropped spans and failed writes.
// The default discards the messages; Stats still counts what they say.
func WithWarn(fn func(string)) Option {
	return func(c *config) {
		if fn != nil {
			c.warn = fn
		}
	}
}

var _ sdktrace.SpanProcessor = (*SpanProcessor)(nil)

// SpanProcessor writes every span that ends to the spool, sampled or not: a
// job whose parent trace is not sampled still gets its local artifacts (the
// forwarder leaves such spans out of what it sends).
//
// OnEnd appends to a bounded queue; when the queue is full it waits for room
// (backpressure), up to StallTimeout. One goroutine writes what is queued,
// up to MaxLineSpans a line (appendSpansLine: the OTLP/JSON of the SDK's own
// transform to OTLP, built more cheaply), right away rather than on a timer,
// so a crash loses at most the spans that ended in the last few
// milliseconds.
type SpanProcessor struct {
	client *TraceClient
	cfg    config
	queue  chan sdktrace.ReadOnlySpan
	fl     chan chan struct{}
	quit   chan struct{}
	done   chan struct{}

	batch []sdktrace.ReadOnlySpan // owned by the writer goroutine
	line  []byte                  // the line written last, owned by the writer goroutine

	// taken counts the batches the writer took from the queue; stalled
	// holds taken+1 at the moment the disk was found stalled, 0 otherwise.
	taken, stalled atomic.Int64
	closed         atomic.Bool

	spans, dropped, lines, errs, lost atomic.Int64
	shutdown                          sync.Once
}

// NewSpanProcessor returns a processor writing through c and starts its
// writer goroutine; Shutdown stops it and closes c.
func NewSpanProcessor(c *TraceClient, opts ...Option) *SpanProcessor {
	cfg := config{warn: func(string) {}, stall: StallTimeout}
	for _, o := range opts {
		o(&cfg)
	}
	p := &SpanProcessor{
		client: c,
		cfg:    cfg,
		queue:  make(chan sdktrace.ReadOnlySpan, MaxQueueSpans),
		fl:     make(chan chan struct{}),
		quit:   make(chan struct{}),
		done:   make(chan struct{}),
		batch:  make([]sdktrace.ReadOnlySpan, 0, MaxLineSpans),
	}
	go func() { stackhint.Grow(); p.loop() }()
	return p
}

// OnStart does nothing.
func (*SpanProcessor) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues s for writing. When the queue holds MaxQueueSpans, it waits
// until the writer has made room. If the writer takes nothing for
// StallTimeout, s is dropped and counted, the stall is reported, and later
// spans that find the queue full are dropped at once until the writer takes
// spans again. After Shutdown, s is dropped and counted.
func (p *SpanProcessor) OnEnd(s sdktrace.ReadOnlySpan) {
	if p.closed.Load() {
		p.dropped.Add(1)
		return
	}
	select {
	case p.queue <- s:
		return
	default:
	}
	if st := p.stalled.Load(); st != 0 && st == p.taken.Load()+1 {
		p.dropped.Add(1) // still stalled: the writer has taken nothing since
		return
	}
	t := time.NewTimer(p.cfg.stall)
	defer t.Stop()
	select {
	case p.queue <- s:
	case <-p.done:
		p.dropped.Add(1)
	case <-t.C:
		p.dropped.Add(1)
		taken := p.taken.Load()
		if p.stalled.Swap(taken+1) != taken+1 {
			p.cfg.warn(fmt.Sprintf("span spool: the disk took no span for %s with %d spans queued: dropping spans until it takes them again", p.cfg.stall, MaxQueueSpans))
		}
	}
}

// ForceFlush returns once every span that ended before the call is written,
// or when ctx is done.
func (p *SpanProcessor) ForceFlush(ctx context.Context) error {
	ch := make(chan struct{})
	select {
	case p.fl <- ch:
	case <-p.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Shutdown writes what is queued, stops the writer and closes the file. Spans
// that end afterwards are counted as dropped. If ctx ends first, the writer
// finishes in the background and Shutdown returns ctx's error.
func (p *SpanProcessor) Shutdown(ctx context.Context) error {
	var err error
	p.shutdown.Do(func() {
		p.closed.Store(true)
		close(p.quit)
		select {
		case <-p.done:
			// A span that came in while the writer made its last pass
			// is counted, not silently left behind.
			p.dropped.Add(int64(len(p.queue)))
		case <-ctx.Done():
			err = ctx.Err()
		}
		if serr := p.client.Stop(ctx); err == nil {
			err = serr
		}
		if d := p.dropped.Load(); d > 0 {
			p.cfg.warn(fmt.Sprintf("span spool: %d spans dropped", d))
		}
		if e := p.errs.Load(); e > 1 {
			p.cfg.warn(fmt.Sprintf("span spool: %d spans lost in %d failed writes", p.lost.Load(), e))
		}
	})
	return err
}

// Stats returns the counts so far.
func (p *SpanProcessor) Stats() Stats {
	return Stats{
		Spans:   p.spans.Load(),
		Dropped: p.dropped.Load(),
		Lines:   p.lines.Load(),
		Errors:  p.errs.Load(),
		Lost:    p.lost.Load(),
	}
}

func (p *SpanProcessor) loop() {
	defer close(p.done)
	for {
		select {
		case sp := <-p.queue:
			p.write(sp)
		case ch := <-p.fl:
			p.drain()
			close(ch)
		case <-p.quit:
			p.drain()
			return
		}
	}
}

// drain writes until the queue is empty.
func (p *SpanProcessor) drain() {
	for {
		select {
		case sp := <-p.queue:
			p.write(sp)
		default:
			return
		}
	}
}

// write writes first and whatever else is queued, up to MaxLineSpans, as
// one line.
func (p *SpanProcessor) write(first sdktrace.ReadOnlySpan) {
	batch := append(p.batch[:0], first)
more:
	for len(batch) < MaxLineSpans {
		select {
		case sp := <-p.queue:
			batch = append(batch, sp)
		default:
			break more
		}
	}
	p.taken.Add(1)
	if p.line == nil {
		p.line = make([]byte, 0, firstLineBytes)
	}
	p.line = appendSpansLine(p.line[:0], batch)
	err := p.client.appendLine(p.line, len(batch))
	if err != nil {
		// The first failure is said; a full disk fails every write
		// after it, and those are counted and said once at Shutdown.
		p.lost.Add(int64(len(batch)))
		if p.errs.Add(1) == 1 {
			p.cfg.warn(fmt.Sprintf("span spool: %d spans lost: %v", len(batch), err))
		}
	} else {
		p.spans.Add(int64(len(batch)))
		p.lines.Add(1)
	}
	clear(batch)
	p.batch = batch[:0]
}

// Relink has the spool written again at its path when it was removed while
// it was open (TraceClient.Relink).
func (p *SpanProcessor) Relink() (bool, error) { return p.client.Relink() }
