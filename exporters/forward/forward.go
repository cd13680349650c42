// Package forward uploads the span spool to a collector.
//
// The spool file (see package exporters/spool) is the export queue. A
// Forwarder reads it from the offset kept in <spool>.sent, uploads its lines
// with an OTLP client, several lines to a request (up to MaxUploadSpans
// spans and MaxUploadBytes of spool), and moves the offset past them only
// once the collector accepted them. What a failed upload means follows the
// OTLP specification (see otlp.Classify):
//   - the collector may take it later (a network error, a timeout, HTTP
//     429/502/503/504, gRPC Unavailable): the offset stays and the upload is
//     retried after a backoff, so a dead collector loses nothing and a
//     recovered one receives every line, in order;
//   - the collector rejected the data as invalid (HTTP 400, gRPC
//     InvalidArgument): it is never sent again; the lines of a rejected
//     request are sent one by one, each line still rejected is appended to
//     <spool>.rejected, counted and reported, and the lines after it go on;
//   - the collector refuses any data (HTTP 401, 403, 404, gRPC
//     Unauthenticated...): nothing more is sent in this run and the lines
//     stay pending for a replay once the settings are fixed.
//
// Delivery is at least once. OTLP has no way to tell whether a request whose
// answer never came was taken: an upload abandoned at its timeout or at the
// end-of-job deadline may have been, and is sent again (by the next attempt
// or by a replay). The forwarder counts such spans: Result.Resent for spans
// delivered again after an abandoned upload, Result.Uncertain for pending
// spans whose last upload was abandoned.
//
// At the end of a job the agent cancels Run's context and calls Finish with a
// context whose deadline is the export timeout: Finish makes one last pass
// and gives up at the deadline, whatever the collector does, leaving the rest
// for `jobtrace replay`, which calls Replay.
//
// Spans the job recorded under a parent that was not sampled are written to
// the spool (they are local artifacts) but never uploaded: their W3C sampled
// flag, kept in the OTLP span's flags, is honoured here.
package forward

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/jobtrace/jobtrace/exporters/otlp"
	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/internal/warnlimit"
)

// Defaults for zero Options fields. A zero Timeout is the export's own
// default, otlp.DefaultTimeout.
const (
	// DefaultRetryMin is the first wait after a failed upload. A collector
	// restarting takes about a second; a short first wait catches it
	// without hammering a dead one, since the wait doubles on each failure.
	DefaultRetryMin = 250 * time.Millisecond
	// DefaultRetryMax caps the wait between attempts, so a collector that
	// comes back is used again within this long.
	DefaultRetryMax = 10 * time.Second
)

// Bounds of one upload.
const (
	// MaxUploadSpans bounds the spans of one request. A backlog (lines
	// written while the collector was down or slow, the spans a job ends
	// with) goes in few requests instead of one per line, so it is
	// delivered within the export timeout even when each round trip is
	// slow. It is twice the OTel SDK's default batch of 512 spans.
	MaxUploadSpans = 1024
	// MaxUploadBytes bounds the spool bytes (OTLP/JSON) of one request.
	// Its protobuf form is smaller than the JSON, so a request stays well
	// under the 4 MiB that gRPC servers, the Collector's OTLP receiver
	// among them, take by default. A longer line goes alone.
	MaxUploadBytes = 1 << 20
)

// Options tune a Forwarder. Zero fields take the defaults above.
type Options struct {
	Timeout            time.Duration // per upload attempt
	RetryMin, RetryMax time.Duration // backoff between failed attempts, doubling from min to max
	Warn               func(string)  // where failures are reported; nil discards them
}

// Result says what was delivered.
type Result struct {
	Sent    int   // spans delivered
	Pending int   // spans in the spool not delivered yet
	Lines   int   // spool lines delivered
	Err     error // why spans are pending, or lines that could not be read

	// Rejected counts the spans, in RejectedLines lines, that the
	// collector rejected as invalid; they are in <spool>.rejected.
	Rejected, RejectedLines int
	// Discarded counts the spans a collector said it dropped from uploads
	// it accepted (an OTLP partial success); they are not sent again.
	Discarded int
	// Uncertain counts the pending spans whose last upload was abandoned
	// at its timeout or at the deadline: the collector may have them
	// already, and a replay then delivers them a second time.
	Uncertain int
	// Resent counts the spans delivered after an upload of theirs had been
	// abandoned: the collector may have them twice.
	Resent int
}

// errInterrupted stops a pass between two lines when Run's context ends.
var errInterrupted = errors.New("forward: interrupted")

// Forwarder uploads new spool lines as they are appended.
type Forwarder struct {
	path   string
	client otlp.TraceClient
	opts   Options
	notify chan struct{}
	done   chan struct{} // closed by Finish

	abortCtx context.Context // cancelled to stop an upload Run has in flight
	abort    context.CancelFunc

	mu          sync.Mutex // held for a whole pass; guards what follows
	loaded      bool       // offset read from the .sent file
	offset      int64      // end of the last line delivered or skipped
	written     int64      // offset last written to the .sent file
	floor       int64      // the .sent file never goes below this
	finished    bool
	failing     bool
	sent, lines int
	bad         *warnlimit.Limiter // unreadable lines, each said once, by offset
	sentWarned  bool

	rejected, rejectedLines int
	discarded, resent       int
	maybeEnd                int64 // lines ending here or before were in an abandoned upload
	refused                 error // the collector refuses any data: no more uploads
	rejectWarned            bool
	dropWarned              bool
}

// New returns a forwarder for the spool at spoolPath. It takes ownership of
// client: it starts it before the first upload and stops it in Finish.
func New(spoolPath string, client otlp.TraceClient, opts Options) *Forwarder {
	if opts.Timeout <= 0 {
		opts.Timeout = otlp.DefaultTimeout
	}
	if opts.RetryMin <= 0 {
		opts.RetryMin = DefaultRetryMin
	}
	if opts.RetryMax < opts.RetryMin {
		opts.RetryMax = max(DefaultRetryMax, opts.RetryMin)
	}
	if opts.Warn == nil {
		opts.Warn = func(string) {}
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Forwarder{
		path:     spoolPath,
		client:   client,
		opts:     opts,
		notify:   make(chan struct{}, 1),
		done:     make(chan struct{}),
		abortCtx: ctx,
		abort:    cancel,
		bad:      warnlimit.New("export: ", opts.Warn, warnlimit.DefaultVerbatim),
	}
}

// Notify tells Run that lines were appended. It never blocks.
func (f *Forwarder) Notify() {
	select {
	case f.notify <- struct{}{}:
	default:
	}
}

// Run uploads new lines whenever Notify is called, until ctx ends or Finish
// is called. After a failed upload it waits (RetryMin doubling up to
// RetryMax) and tries again from the same line.
//
// Run returns as soon as ctx ends. An upload in flight at that moment is not
// cancelled: it goes on in the background within its timeout, so that a
// collector about to accept it does not get it twice. Finish waits for it,
// and cuts it short if Finish's own deadline comes first.
func (f *Forwarder) Run(ctx context.Context) {
	var delay time.Duration
	failed := make(chan bool, 1)
	for {
		go func() {
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.finished || ctx.Err() != nil {
				failed <- false
				return
			}
			bad, err := f.pass(f.abortCtx, ctx)
			f.warnBad(bad, false)
			if f.abortCtx.Err() != nil {
				// Cut short by Finish, whose Result says what is pending.
				err = errInterrupted
			}
			failed <- f.noteResult(err)
		}()
		var retry bool
		select {
		case retry = <-failed:
		case <-ctx.Done():
			return
		case <-f.done:
			return
		}

		if retry {
			delay = min(max(2*delay, f.opts.RetryMin), f.opts.RetryMax)
			t := time.NewTimer(delay)
			select {
			case <-t.C:
				continue
			case <-ctx.Done():
			case <-f.done:
			}
			t.Stop()
			return
		}
		delay = 0
		select {
		case <-f.notify:
		case <-ctx.Done():
			return
		case <-f.done:
			return
		}
	}
}

// Finish makes one last pass bounded by ctx, records the offset reached in
// the .sent file, stops the client and returns what was delivered since New
// and what is still pending. Call it after cancelling Run's context; when
// ctx ends, an upload Run still has in flight is cancelled too, so Finish
// returns by ctx's deadline whatever the collector does.
func (f *Forwarder) Finish(ctx context.Context) Result {
	stop := context.AfterFunc(ctx, f.abort)
	defer stop()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.finished {
		r := f.result()
		r.Err = errors.New("forward: Finish called twice")
		return r
	}
	f.finished = true
	close(f.done)

	err := ctx.Err()
	if err == nil {
		var bad []*spool.LineError
		bad, err = f.pass(ctx, ctx)
		f.warnBad(bad, true)
		if err == nil || f.refused != nil {
			f.noteResult(err)
		}
		// Else the Result says what is pending and why: nothing is
		// retried after Finish.
	}
	f.bad.Flush()
	f.abort()
	f.saveOffset()
	f.saveUncertain()
	f.stopClient(ctx)
	r := f.result()
	if r.Pending > 0 {
		r.Err = err
		if r.Err == nil {
			r.Err = errors.New("forward: spans left undelivered")
		}
	}
	return r
}

// Stop ends f without a last pass, in Finish's place, for a run that
// exports nothing: it cuts short an upload Run still has in flight, waits
// for it to return, and stops the client, so that nothing of f's runs or
// writes after it. Call it after cancelling Run's context.
func (f *Forwarder) Stop(ctx context.Context) {
	f.abort()
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.finished {
		return
	}
	f.finished = true
	close(f.done)
	f.stopClient(ctx)
}

// Replay uploads the spool in dir (the file spool.TracesFile) with client:
// the lines past the .sent offset, or every line when all is true. It starts
// and stops client. Lines the collector rejects as invalid are set aside
// and the rest go on; it stops at the first other failed upload, so that
// what was not delivered stays after the offset for the next replay.
// Result.Err also reports lines that could not be read. Of opts, only
// Timeout (per upload) and Warn are used.
func Replay(ctx context.Context, dir string, client otlp.TraceClient, all bool, opts Options) Result {
	path := filepath.Join(dir, spool.TracesFile)
	if _, err := os.Stat(path); err != nil {
		return Result{Err: fmt.Errorf("replay: %w", err)}
	}
	f := New(path, client, opts)
	defer f.abort()
	f.mu.Lock()
	defer f.mu.Unlock()
	f.finished = true
	var errs []error
	off, err := spool.ReadSent(path)
	if err != nil {
		errs = append(errs, err)
	}
	f.loaded, f.offset, f.written = true, off, off
	f.loadUncertain()
	if all {
		f.offset, f.floor = 0, off
	}
	bad, err := f.pass(ctx, ctx)
	if errors.Is(err, errInterrupted) {
		err = ctx.Err()
	}
	for _, b := range bad {
		errs = append(errs, b)
	}
	f.saveOffset()
	f.saveUncertain()
	f.stopClient(ctx)
	if f.sentWarned {
		errs = append(errs, fmt.Errorf("replay: could not record the offset in %s", path+spool.SentSuffix))
	}
	r := f.result()
	r.Err = errors.Join(append([]error{err}, errs...)...)
	return r
}

// pass uploads the lines after the offset, in order, until the end of the
// file or the first failure. Uploads run under upCtx; live is checked between
// lines. It returns the failure and the lines that could not be read.
func (f *Forwarder) pass(upCtx, live context.Context) ([]*spool.LineError, error) {
	if f.refused != nil {
		return nil, f.refused
	}
	if !f.loaded {
		off, err := spool.ReadSent(f.path)
		if err != nil {
			f.opts.Warn(fmt.Sprintf("export: %v; sending the spool from its start", err))
		}
		f.loaded, f.offset, f.written = true, off, off
		f.loadUncertain()
	}
	st, err := os.Stat(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if st.Size() < f.offset {
		f.opts.Warn(fmt.Sprintf("export: %s is shorter than its sent offset %d; sending it from its start", filepath.Base(f.path), f.offset))
		f.offset, f.floor = 0, 0
	}
	if st.Size() == f.offset {
		return nil, nil
	}
	var b []line
	var spans int
	var size int64
	prev := f.offset
	var upErr error
	rerr := spool.ReadLines(f.path, f.offset, func(td ptrace.Traces, _ int, end int64) error {
		if err := live.Err(); err != nil {
			return errInterrupted
		}
		n := sampledOnly(td)
		if len(b) > 0 && (spans+n > MaxUploadSpans || size+end-prev > MaxUploadBytes) {
			if err := f.flush(upCtx, live, b); err != nil {
				upErr = err
				return err
			}
			b, spans, size = nil, 0, 0
		}
		b = append(b, line{td: td, spans: n, end: end})
		spans += n
		size += end - prev
		prev = end
		return nil
	})
	bad := spool.LineErrors(rerr)
	switch {
	case upErr != nil, errors.Is(rerr, errInterrupted):
	case rerr != nil && len(bad) == 0:
		upErr = rerr
	default:
		upErr = f.flush(upCtx, live, b)
	}
	return bad, upErr
}

// line is a spool line read for an upload: its sampled spans and the
// offset just past it.
type line struct {
	td    ptrace.Traces
	spans int
	end   int64
	moved int // resources moved into a request of several lines (merge)
}

// flush uploads lines as one request. When the collector rejects it as
// invalid, the lines are sent again one by one, so that only the invalid
// ones are set aside.
func (f *Forwarder) flush(upCtx, live context.Context, lines []line) error {
	if len(lines) == 0 {
		return nil
	}
	if live.Err() != nil {
		return errInterrupted
	}
	err := f.send(upCtx, lines)
	if otlp.Classify(err) != otlp.Rejected {
		return err
	}
	if len(lines) == 1 {
		return f.reject(lines[0], err)
	}
	for i := range lines {
		if live.Err() != nil {
			return errInterrupted
		}
		err := f.send(upCtx, lines[i:i+1])
		if otlp.Classify(err) == otlp.Rejected {
			err = f.reject(lines[i], err)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// send uploads the spans of lines in one request and, once the collector
// took them, moves the offset past the last line. A Rejected failure is
// returned for the caller to deal with; any other failure leaves the offset.
func (f *Forwarder) send(upCtx context.Context, lines []line) error {
	td := lines[0].td
	if len(lines) > 1 {
		td = merge(lines)
		// The lines get their spans back, to be sent one by one if the
		// collector rejects the request.
		defer split(td, lines)
	}
	n := 0
	for _, l := range lines {
		n += l.spans
	}
	end := lines[len(lines)-1].end
	if n > 0 {
		ctx, cancel := context.WithTimeout(upCtx, f.opts.Timeout)
		err := f.client.Upload(ctx, td)
		abandoned := err != nil && (ctx.Err() != nil || otlp.Abandoned(err))
		cancel()
		switch otlp.Classify(err) {
		case otlp.Accepted:
			var pe *otlp.PartialError
			if errors.As(err, &pe) {
				f.discarded += int(pe.Rejected)
				if !f.dropWarned {
					f.dropWarned = true
					f.opts.Warn(fmt.Sprintf("export: %v (not sent again)", pe))
				}
			}
		case otlp.Refused:
			f.refused = err
			return err
		default:
			if abandoned {
				f.maybeEnd = max(f.maybeEnd, end)
			}
			return err
		}
		f.sent += n
		for _, l := range lines {
			if l.spans > 0 {
				f.lines++
			}
			if l.end <= f.maybeEnd {
				f.resent += l.spans
			}
		}
	}
	f.offset = end
	f.saveOffset()
	return nil
}

// merge moves the spans of lines into one request, and leaves each line
// the number of its resources in place of them (see split).
func merge(lines []line) ptrace.Traces {
	td := ptrace.NewTraces()
	for i := range lines {
		from := lines[i].td.ResourceSpans()
		lines[i].moved = from.Len()
		from.MoveAndAppendTo(td.ResourceSpans())
	}
	return td
}

// split moves the spans of td back to the lines merge took them from.
func split(td ptrace.Traces, lines []line) {
	rss, k := td.ResourceSpans(), 0
	for i := range lines {
		to := lines[i].td.ResourceSpans()
		for range lines[i].moved {
			rss.At(k).MoveTo(to.AppendEmpty())
			k++
		}
	}
}

// reject sets aside a line the collector rejected as invalid: it is
// appended to <spool>.rejected, counted, and the offset moves past it.
func (f *Forwarder) reject(l line, why error) error {
	kept := f.path + spool.RejectedSuffix
	w := spool.NewTraceClient(kept)
	err := w.AppendTraces(l.td)
	if cerr := w.Stop(context.Background()); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("export: the collector rejected %d spans as invalid (%v) and they could not be set aside: %w", l.spans, why, err)
	}
	f.rejected += l.spans
	f.rejectedLines++
	if !f.rejectWarned {
		f.rejectWarned = true
		f.opts.Warn(fmt.Sprintf("export: the collector rejected %d spans as invalid: %v; they are not sent again and are kept in %s", l.spans, why, filepath.Base(kept)))
	}
	f.offset = l.end
	f.saveOffset()
	return nil
}

// noteResult reports the start and end of a run of failed uploads, and
// returns whether err is a failure to retry.
func (f *Forwarder) noteResult(err error) bool {
	if err == nil || errors.Is(err, errInterrupted) {
		if f.failing && err == nil {
			f.opts.Warn("export: collector reachable again; delivering the spool")
		}
		f.failing = f.failing && err != nil
		return false
	}
	if f.refused != nil {
		if !f.failing {
			f.opts.Warn(fmt.Sprintf("export: %v; the collector refuses the uploads, which are not retried: spans stay in %s for `jobtrace replay` once the settings are fixed", err, filepath.Base(f.path)))
		}
		f.failing = true
		return false
	}
	if !f.failing {
		f.opts.Warn(fmt.Sprintf("export: %v; spans stay in %s and are retried", err, filepath.Base(f.path)))
	}
	f.failing = true
	return true
}

// warnBad warns once about each unreadable line (the first
// warnlimit.DefaultVerbatim in full, then counted; the count is said at the
// end). A torn last line is only reported at the end: while the job runs it
// may be a line being written.
func (f *Forwarder) warnBad(bad []*spool.LineError, final bool) {
	for _, b := range bad {
		if !final && errors.Is(b, spool.ErrTorn) {
			continue
		}
		f.bad.WarnKey(strconv.FormatInt(b.Offset, 10), fmt.Sprintf("skipped %v", b))
	}
}

// saveOffset records the offset in the .sent file when it moved.
func (f *Forwarder) saveOffset() {
	off := max(f.offset, f.floor)
	if !f.loaded || off == f.written {
		return
	}
	if err := spool.WriteSent(f.path, off); err != nil {
		if !f.sentWarned {
			f.opts.Warn(fmt.Sprintf("export: %v (a replay may send some spans again)", err))
		}
		f.sentWarned = true
		return
	}
	f.written = off
}

// loadUncertain reads the end of the lines an earlier run or replay left
// pending after an abandoned upload, so that sending them again is counted
// in Result.Resent.
func (f *Forwarder) loadUncertain() {
	if off, err := spool.ReadUncertain(f.path); err == nil && off > f.offset {
		f.maybeEnd = max(f.maybeEnd, off)
	}
}

// saveUncertain records, for a later replay, the end of the pending lines
// whose last upload was abandoned, or removes the record when there are
// none.
func (f *Forwarder) saveUncertain() {
	off := f.maybeEnd
	if off <= max(f.offset, f.floor) {
		off = 0
	}
	_ = spool.WriteUncertain(f.path, off)
}

func (f *Forwarder) stopClient(ctx context.Context) {
	// Nothing is in flight (f.mu is held), so stopping is quick; a done ctx
	// still closes the connections.
	_ = f.client.Stop(ctx)
}

// result is what was done so far, with the pending spans counted: all
// those after the offset, and those of them whose last upload was abandoned.
func (f *Forwarder) result() Result {
	r := Result{Sent: f.sent, Lines: f.lines, Rejected: f.rejected, RejectedLines: f.rejectedLines,
		Discarded: f.discarded, Resent: f.resent}
	_ = spool.ReadLines(f.path, f.offset, func(td ptrace.Traces, _ int, end int64) error {
		k := sampledOnly(td)
		r.Pending += k
		if end <= f.maybeEnd {
			r.Uncertain += k
		}
		return nil
	})
	return r
}

// flagSampled is the W3C sampled flag, in the low byte of a span's flags;
// a span whose flags lack spool.FlagHasIsRemote carries none at all.
const flagSampled = 0x01

func sampled(s ptrace.Span) bool {
	return s.Flags()&spool.FlagHasIsRemote == 0 || s.Flags()&flagSampled != 0
}

// sampledOnly removes from td the spans that were not sampled, and the
// scopes and resources left empty, and returns how many spans are left.
func sampledOnly(td ptrace.Traces) int {
	kept, all := 0, true
	rss := td.ResourceSpans()
	for i := range rss.Len() {
		sss := rss.At(i).ScopeSpans()
		for j := range sss.Len() {
			spans := sss.At(j).Spans()
			for k := range spans.Len() {
				if sampled(spans.At(k)) {
					kept++
				} else {
					all = false
				}
			}
		}
	}
	if all {
		return kept
	}
	rss.RemoveIf(func(rs ptrace.ResourceSpans) bool {
		rs.ScopeSpans().RemoveIf(func(ss ptrace.ScopeSpans) bool {
			ss.Spans().RemoveIf(func(s ptrace.Span) bool { return !sampled(s) })
			return ss.Spans().Len() == 0
		})
		return rs.ScopeSpans().Len() == 0
	})
	return kept
}
