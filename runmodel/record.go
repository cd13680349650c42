package runmodel

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sync"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/hostmetrics"
)

// MaxHeldRows bounds the rows a Recorder holds. A row in memory takes
// about 160 bytes, so the bound holds 2.5 MiB at most: four and a half
// hours at one sample a second. The agent's memory stays flat over a day
// of samples (docs/performance.md) because the rows past it are not held:
// Recorder.Run reads them from the file, through the same decoder, so the
// model is the same either way (RowsPastBound says so, and the end of a run
// prints it).
const MaxHeldRows = 1 << 14

// Recorder keeps what a run's model is built from while the run goes on:
// it is a span processor that keeps the spans as the SDK ends them, as many
// as a reader of the spool keeps (spool.SpanBound with spool.MaxReadSpans);
// its Tee is the usagecsv.Writer's, which keeps the rows as written; and
// its Samples is a sampler sink that keeps the statistics of the samples.
// It never blocks a span's end for longer than an append under a lock.
type Recorder struct {
	mu    sync.Mutex
	bound *spool.SpanBound
	spans []sdktrace.ReadOnlySpan

	rows   tee
	series *Series
}

var _ sdktrace.SpanProcessor = (*Recorder)(nil)

// NewRecorder returns an empty Recorder.
func NewRecorder() *Recorder {
	return &Recorder{bound: spool.NewSpanBound(spool.MaxReadSpans), rows: tee{max: MaxHeldRows}, series: NewSeries()}
}

// OnStart does nothing: a span is kept when it ends.
func (r *Recorder) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

// OnEnd keeps s when the bound lets it in. The SDK's ended span is not
// changed afterwards, so keeping it copies nothing.
func (r *Recorder) OnEnd(s sdktrace.ReadOnlySpan) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.bound.Keep(s.SpanContext().SpanID(), s.Parent().SpanID()) {
		r.spans = append(r.spans, s)
	}
}

// Shutdown does nothing: what was kept stays readable.
func (r *Recorder) Shutdown(context.Context) error { return nil }

// ForceFlush does nothing.
func (r *Recorder) ForceFlush(context.Context) error { return nil }

// Samples is the sampler sink that keeps the statistics of the job's
// samples (Series), in constant memory.
func (r *Recorder) Samples() hostmetrics.Sink { return r.series }

// Tee is the writer to give usagecsv.Options.Tee: it keeps the rows the
// file gets.
func (r *Recorder) Tee() io.Writer { return &r.rows }

// Run builds the model of what was recorded, with the statistics of the
// samples and the job's advice: the one the run set on the job's span
// (Advice), read back from it, else made from the statistics. dir is the artifacts
// directory, read only when the run had more than MaxHeldRows rows; the
// error is about those rows, and the model is whole without them.
func (r *Recorder) Run(dir string) (*Run, error) {
	r.mu.Lock()
	spans := make([]Span, len(r.spans))
	for i, s := range r.spans {
		spans[i] = fromSDK(s)
	}
	skipped := r.bound.Skipped()
	r.mu.Unlock()

	rows, overflow, err := r.rows.held()
	if overflow {
		rows, err = readRowsFile(filepath.Join(dir, usagecsv.FileName))
	}
	run := newRun(spans, rows)
	run.SkippedSpans = skipped
	run.SetStats(r.series.Stats())
	return run, err
}

// RowsPastBound reports whether the CSV got more than MaxHeldRows rows:
// Run then reads them from the file.
func (r *Recorder) RowsPastBound() bool {
	_, overflow, _ := r.rows.held()
	return overflow
}

// tee decodes the CSV as the Writer writes it: the header, then each row,
// one Write each, through the decoder the file is read with.
type tee struct {
	mu       sync.Mutex
	max      int
	buf      []byte
	feed     feed
	dec      *rowDecoder
	rows     []Row
	err      error // the first problem
	overflow bool
}

func (t *tee) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.overflow || t.dec == nil && t.err != nil {
		return len(p), nil
	}
	t.buf = append(t.buf[:0], p...)
	t.feed.b = t.buf
	if t.dec == nil {
		t.dec, t.err = newRowDecoder(&t.feed)
		return len(p), nil
	}
	if len(t.rows) >= t.max {
		t.overflow, t.rows = true, nil
		return len(p), nil
	}
	row, ok, err := t.dec.next()
	if err != nil && t.err == nil {
		t.err = fmt.Errorf("row %d: %w", len(t.rows)+1, err)
	}
	if ok {
		t.rows = append(t.rows, row)
	}
	return len(p), nil
}

// held returns the rows decoded, or overflow when there were more than
// max.
func (t *tee) held() ([]Row, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.rows, t.overflow, t.err
}

// feed gives the decoder the line written last; empty, it reads as the
// end of the file, which the decoder never reaches since it reads one
// whole line a Write.
type feed struct{ b []byte }

func (f *feed) Read(p []byte) (int, error) {
	if len(f.b) == 0 {
		return 0, io.EOF
	}
	n := copy(p, f.b)
	f.b = f.b[n:]
	return n, nil
}
