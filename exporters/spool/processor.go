package spool

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// MaxQueueSpans bounds the spans waiting to be written. The writer normally
// keeps the queue near empty (a line takes well under a millisecond to
// encode and append), so the bound is only reached when the disk stalls. At
// about 1 KiB a span it caps the queue near 16 MiB, inside the agent's
// memory budget, and it is far above what a CI job ends in one burst: a test
// suite reporting each test as a span ends a few thousand at once, and a
// flood of 100,000 phases a second over the socket drops none (see
// BenchmarkSocketPhases in package agent).
const MaxQueueSpans = 16384

// Stats counts what a SpanProcessor did.
type Stats struct {
	Spans   int64 // spans written to the file
	Dropped int64 // spans dropped because the queue was full or the processor shut down
	Lines   int64 // lines written
	Errors  int64 // writes that failed; their spans are lost
	Lost    int64 // spans of the writes that failed
}

type config struct {
	warn func(string)
}

// Option configures a SpanProcessor.
type Option func(*config)

// WithWarn sets where the processor reports dropped spans and failed writes.
// The default discards the reports; Stats still counts them.
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
// OnEnd only appends to a bounded queue and never blocks. One goroutine
// writes whatever is queued as one line through otlptrace's exporter (the
// SDK's own transform to OTLP), right away rather than on a timer, so a crash
// loses at most the spans that ended in the last few milliseconds.
type SpanProcessor struct {
	exp  *otlptrace.Exporter
	cfg  config
	wake chan struct{}
	fl   chan chan struct{}
	quit chan struct{}
	done chan struct{}

	spare []sdktrace.ReadOnlySpan // owned by the writer goroutine

	mu       sync.Mutex
	queue    []sdktrace.ReadOnlySpan
	closed   bool
	dropping bool

	spans, dropped, lines, errs, lost atomic.Int64
	shutdown                          sync.Once
}

// NewSpanProcessor returns a processor writing through c and starts its
// writer goroutine; Shutdown stops it and closes c.
func NewSpanProcessor(c *TraceClient, opts ...Option) *SpanProcessor {
	cfg := config{warn: func(string) {}}
	for _, o := range opts {
		o(&cfg)
	}
	p := &SpanProcessor{
		exp:  otlptrace.NewUnstarted(c),
		cfg:  cfg,
		wake: make(chan struct{}, 1),
		fl:   make(chan chan struct{}),
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
	// TraceClient.Start only checks the context, so this cannot fail.
	_ = p.exp.Start(context.Background())
	go p.loop()
	return p
}

// OnStart does nothing.
func (*SpanProcessor) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd queues s for writing. When the queue holds MaxQueueSpans, s is
// dropped and counted, and the first drop of a run is reported.
func (p *SpanProcessor) OnEnd(s sdktrace.ReadOnlySpan) {
	p.mu.Lock()
	if p.closed || len(p.queue) >= MaxQueueSpans {
		first := !p.closed && !p.dropping
		p.dropping = !p.closed
		p.mu.Unlock()
		p.dropped.Add(1)
		if first {
			p.cfg.warn(fmt.Sprintf("span spool: queue full (%d spans), dropping spans until it drains", MaxQueueSpans))
		}
		return
	}
	p.queue = append(p.queue, s)
	p.dropping = false
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
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
		p.mu.Lock()
		p.closed = true
		p.mu.Unlock()
		close(p.quit)
		select {
		case <-p.done:
		case <-ctx.Done():
			err = ctx.Err()
		}
		if serr := p.exp.Shutdown(ctx); err == nil {
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
		case <-p.wake:
			p.drain()
		case ch := <-p.fl:
			p.drain()
			close(ch)
		case <-p.quit:
			p.drain()
			return
		}
	}
}

// drain writes until the queue is empty, one line per batch taken. The
// queue and spare slices trade places so a steady flow reuses two arrays.
func (p *SpanProcessor) drain() {
	for {
		p.mu.Lock()
		batch := p.queue
		p.queue = p.spare[:0]
		p.mu.Unlock()
		p.spare = batch[:0]
		if len(batch) == 0 {
			return
		}
		if err := p.exp.ExportSpans(context.Background(), batch); err != nil {
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
	}
}
