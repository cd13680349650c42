package forward

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/grpc/codes"

	"github.com/jobtrace/jobtrace/exporters/otlp"
	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/internal/otlptest"
	"github.com/jobtrace/jobtrace/internal/timingtest"
	"github.com/jobtrace/jobtrace/internal/warnlimit"
)

func TestMain(m *testing.M) {
	otlp.RouteErrors(func(string) {})
	timingtest.VerifyTestMain(m)
}

// job writes spans into a spool the way the agent does, one line per span.
type job struct {
	t    testing.TB
	path string
	tp   *sdktrace.TracerProvider
	p    *spool.SpanProcessor
}

func newJob(t testing.TB, dir string, onAppend func()) *job {
	c := spool.NewTraceClient(filepath.Join(dir, spool.TracesFile))
	if onAppend != nil {
		c.OnAppend(func(int64, int) { onAppend() })
	}
	p := spool.NewSpanProcessor(c)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p), sdktrace.WithSampler(skipUnsampled{}))
	j := &job{t: t, path: c.Path(), tp: tp, p: p}
	t.Cleanup(j.end)
	return j
}

// skipUnsampled records spans named "unsampled*" without sampling them.
type skipUnsampled struct{}

func (skipUnsampled) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	if strings.HasPrefix(p.Name, "unsampled") {
		return sdktrace.SamplingResult{Decision: sdktrace.RecordOnly}
	}
	return sdktrace.SamplingResult{Decision: sdktrace.RecordAndSample}
}
func (skipUnsampled) Description() string { return "skipUnsampled" }

func (j *job) spans(names ...string) {
	j.t.Helper()
	for _, n := range names {
		_, s := j.tp.Tracer("forward-test").Start(context.Background(), n)
		s.End()
		if err := j.p.ForceFlush(context.Background()); err != nil {
			j.t.Fatal(err)
		}
	}
}

func (j *job) end() { _ = j.tp.Shutdown(context.Background()) }

func seq(prefix string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s%d", prefix, i+1)
	}
	return out
}

type receiver interface {
	SpanNames() []string
}

func client(t *testing.T, protocol, addr string, timeout time.Duration) otlp.TraceClient {
	t.Helper()
	s := otlp.DefaultSettings()
	s.Endpoint, s.Protocol = "http://"+addr, protocol
	if timeout > 0 {
		s.Timeout = timeout
	}
	exp, err := otlp.Resolve(s, otlp.Signals{Traces: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := otlp.NewTraceClient(exp.Traces)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func start(t *testing.T, protocol, addr string) (receiver, string) {
	if protocol == otlp.ProtocolGRPC {
		g := otlptest.StartGRPC(t, addr, nil)
		return g, g.Addr
	}
	h := otlptest.StartHTTP(t, addr, nil)
	return h, h.Addr
}

var protocols = []string{otlp.ProtocolGRPC, otlp.ProtocolHTTPProtobuf}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timingtest.Patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) warn(s string) {
	w.mu.Lock()
	w.msgs = append(w.msgs, s)
	w.mu.Unlock()
}

func (w *warnings) has(sub string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.ContainsFunc(w.msgs, func(m string) bool { return strings.Contains(m, sub) })
}

func sentOffset(t *testing.T, path string) int64 {
	t.Helper()
	off, err := spool.ReadSent(path)
	if err != nil {
		t.Fatal(err)
	}
	return off
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

func TestDelivery(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			srv, addr := start(t, proto, "")
			dir := t.TempDir()
			path := filepath.Join(dir, spool.TracesFile)
			f := New(path, client(t, proto, addr, 0), Options{Warn: func(s string) { t.Log(s) }})
			j := newJob(t, dir, f.Notify)

			j.spans("a1", "a2", "unsampled1")
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { f.Run(ctx); close(done) }()
			waitFor(t, "first spans", func() bool { return len(srv.SpanNames()) == 2 })
			j.spans("b1", "unsampled2", "b2")
			waitFor(t, "later spans", func() bool { return len(srv.SpanNames()) == 4 })
			j.end()
			cancel()
			<-done

			ctx, cancel2 := context.WithTimeout(context.Background(), timingtest.Patience)
			defer cancel2()
			r := f.Finish(ctx)
			if r.Sent != 4 || r.Pending != 0 || r.Lines != 4 || r.Err != nil {
				t.Errorf("Result = %+v, want 4 sent in 4 lines", r)
			}
			if got := srv.SpanNames(); !slices.Equal(got, []string{"a1", "a2", "b1", "b2"}) {
				t.Errorf("collector got %v", got)
			}
			if off, size := sentOffset(t, path), fileSize(t, path); off != size {
				t.Errorf(".sent = %d, file size %d", off, size)
			}
		})
	}
}

func TestCollectorDownThenUp(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			addr := otlptest.Refused(t)
			dir := t.TempDir()
			path := filepath.Join(dir, spool.TracesFile)
			var w warnings
			f := New(path, client(t, proto, addr, 0), Options{RetryMin: 20 * time.Millisecond, RetryMax: 200 * time.Millisecond, Warn: w.warn})
			j := newJob(t, dir, f.Notify)

			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { f.Run(ctx); close(done) }()
			j.spans(seq("s", 5)...)
			waitFor(t, "a failure report", func() bool { return w.has("are retried") })
			if off := sentOffset(t, path); off != 0 {
				t.Errorf(".sent = %d while the collector is down", off)
			}

			srv, _ := start(t, proto, addr)
			waitFor(t, "delivery after the collector came back", func() bool { return len(srv.SpanNames()) == 5 })
			j.spans("s6")
			waitFor(t, "the next span", func() bool { return len(srv.SpanNames()) == 6 })
			cancel()
			<-done
			ctx, cancel2 := context.WithTimeout(context.Background(), timingtest.Patience)
			defer cancel2()
			r := f.Finish(ctx)
			if got := srv.SpanNames(); !slices.Equal(got, seq("s", 6)) {
				t.Errorf("collector got %v, want each span once in order", got)
			}
			if r.Sent != 6 || r.Pending != 0 || r.Err != nil {
				t.Errorf("Result = %+v", r)
			}
			if !w.has("reachable again") {
				t.Errorf("warnings %q lack the recovery", w.msgs)
			}
		})
	}
}

func TestFinishRefused(t *testing.T) {
	for _, proto := range protocols {
		for _, withRun := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/run=%v", proto, withRun), func(t *testing.T) {
				addr := otlptest.Refused(t)
				dir := t.TempDir()
				path := filepath.Join(dir, spool.TracesFile)
				f := New(path, client(t, proto, addr, 0), Options{})
				j := newJob(t, dir, f.Notify)
				j.spans(seq("s", 3)...)
				j.end()
				if withRun {
					ctx, cancel := context.WithCancel(context.Background())
					done := make(chan struct{})
					go func() { f.Run(ctx); close(done) }()
					time.Sleep(50 * time.Millisecond)
					cancel()
					<-done
				}

				ctx, cancel := context.WithTimeout(context.Background(), timingtest.Patience)
				defer cancel()
				start := time.Now()
				r := f.Finish(ctx)
				// The budget is 100 ms; a second is the margin of the timing suite.
				timingtest.Within(t, "Finish against a refused "+proto+" port", time.Since(start), time.Second)
				if r.Sent != 0 || r.Pending != 3 || r.Err == nil {
					t.Errorf("Result = %+v, want 3 pending with an error", r)
				}
				if off := sentOffset(t, path); off != 0 {
					t.Errorf(".sent = %d", off)
				}
			})
		}
	}
}

func TestFinishHanging(t *testing.T) {
	const deadline = 300 * time.Millisecond
	for _, proto := range protocols {
		for _, withRun := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/run=%v", proto, withRun), func(t *testing.T) {
				addr := otlptest.Hanging(t)
				dir := t.TempDir()
				path := filepath.Join(dir, spool.TracesFile)
				// Per-request timeouts far above the deadline: the
				// deadline alone must bound Finish.
				var mu sync.Mutex
				var warns []string
				f := New(path, client(t, proto, addr, time.Minute), Options{Timeout: time.Minute, Warn: func(s string) {
					mu.Lock()
					warns = append(warns, s)
					mu.Unlock()
				}})
				j := newJob(t, dir, f.Notify)
				j.spans(seq("s", 2)...)
				j.end()
				var done chan struct{}
				if withRun {
					// Run's upload is in flight and hanging when the job ends.
					ctx, cancel := context.WithCancel(context.Background())
					done = make(chan struct{})
					go func() { f.Run(ctx); close(done) }()
					time.Sleep(50 * time.Millisecond)
					cancel()
					// The agent waits for Run before calling Finish: Run
					// must not wait for the hanging upload.
					stopped := time.Now()
					select {
					case <-done:
						t.Logf("Run returned %v after cancel, upload in flight", time.Since(stopped))
					case <-time.After(30 * time.Second): // far below the upload's minute
						t.Fatal("Run did not return after its context was cancelled")
					}
				}

				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				defer cancel()
				start := time.Now()
				r := f.Finish(ctx)
				timingtest.Within(t, fmt.Sprintf("Finish against a hanging %s collector, deadline %v", proto, deadline),
					time.Since(start), deadline+500*time.Millisecond)
				if r.Sent != 0 || r.Pending != 2 || r.Err == nil {
					t.Errorf("Result = %+v, want 2 pending with an error", r)
				}
				// The Result says what is pending; nothing is retried
				// after Finish.
				mu.Lock()
				defer mu.Unlock()
				for _, w := range warns {
					if strings.Contains(w, "retried") {
						t.Errorf("Finish warned %q", w)
					}
				}
			})
		}
	}
}

func TestReplay(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, spool.TracesFile)
			j := newJob(t, dir, nil)
			j.spans("s1", "s2")
			firstTwo := fileSize(t, path)
			j.spans("s3", "unsampled", "s4")
			j.end()
			// An earlier run delivered s1 and s2 before the collector died.
			if err := spool.WriteSent(path, firstTwo); err != nil {
				t.Fatal(err)
			}
			srv, addr := start(t, proto, "")
			ctx, cancel := context.WithTimeout(context.Background(), timingtest.Patience)
			defer cancel()

			r := Replay(ctx, dir, client(t, proto, addr, 0), false, Options{})
			if r.Sent != 2 || r.Lines != 2 || r.Pending != 0 || r.Err != nil {
				t.Errorf("first replay = %+v, want s3 and s4", r)
			}
			if got := srv.SpanNames(); !slices.Equal(got, []string{"s3", "s4"}) {
				t.Errorf("collector got %v", got)
			}
			if off, size := sentOffset(t, path), fileSize(t, path); off != size {
				t.Errorf(".sent = %d, size %d", off, size)
			}

			r = Replay(ctx, dir, client(t, proto, addr, 0), false, Options{})
			if r.Sent != 0 || r.Pending != 0 || r.Err != nil || len(srv.SpanNames()) != 2 {
				t.Errorf("second replay = %+v, collector has %v", r, srv.SpanNames())
			}

			r = Replay(ctx, dir, client(t, proto, addr, 0), true, Options{})
			if r.Sent != 4 || r.Err != nil {
				t.Errorf("replay --all = %+v", r)
			}
			if got := srv.SpanNames(); !slices.Equal(got, []string{"s3", "s4", "s1", "s2", "s3", "s4"}) {
				t.Errorf("collector got %v", got)
			}
			if off, size := sentOffset(t, path), fileSize(t, path); off != size {
				t.Errorf(".sent = %d after --all, size %d", off, size)
			}
		})
	}
}

func TestReplayCollectorDown(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, spool.TracesFile)
	j := newJob(t, dir, nil)
	j.spans("s1", "s2")
	j.end()
	addr := otlptest.Refused(t)
	ctx, cancel := context.WithTimeout(context.Background(), timingtest.Patience)
	defer cancel()
	r := Replay(ctx, dir, client(t, otlp.ProtocolGRPC, addr, 0), false, Options{})
	if r.Sent != 0 || r.Pending != 2 || r.Err == nil {
		t.Errorf("Result = %+v", r)
	}
	if off := sentOffset(t, path); off != 0 {
		t.Errorf(".sent = %d", off)
	}
	r = Replay(ctx, filepath.Join(dir, "nowhere"), client(t, otlp.ProtocolGRPC, addr, 0), false, Options{})
	if !os.IsNotExist(errorsUnwrapAll(r.Err)) {
		t.Errorf("missing dir: %v", r.Err)
	}
}

func errorsUnwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestReplaySkipsBadLines(t *testing.T) {
	dir := t.TempDir()
	spoolWithBadLines(t, dir, 1)
	j2 := newJob(t, dir, nil)
	j2.spans("s2")
	j2.end()

	srv, addr := start(t, otlp.ProtocolHTTPProtobuf, "")
	ctx, cancel := context.WithTimeout(context.Background(), timingtest.Patience)
	defer cancel()
	r := Replay(ctx, dir, client(t, otlp.ProtocolHTTPProtobuf, addr, 0), false, Options{})
	if r.Sent != 2 || r.Pending != 0 || r.Err == nil || !strings.Contains(r.Err.Error(), "line 2") {
		t.Errorf("Result = %+v, want both spans and the bad line reported", r)
	}
	if got := srv.SpanNames(); !slices.Equal(got, []string{"s1", "s2"}) {
		t.Errorf("collector got %v", got)
	}
}

// A slow collector is about to accept an upload when the job ends: the
// upload completes and is not sent a second time by Finish.
func TestNoDuplicateAfterCancelMidUpload(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			c := &otlptest.Collector{}
			c.SetDelay(200 * time.Millisecond)
			var addr string
			if proto == otlp.ProtocolGRPC {
				addr = otlptest.StartGRPC(t, "", c).Addr
			} else {
				addr = otlptest.StartHTTP(t, "", c).Addr
			}
			dir := t.TempDir()
			f := New(filepath.Join(dir, spool.TracesFile), client(t, proto, addr, 0), Options{})
			j := newJob(t, dir, f.Notify)
			j.spans("s1")
			j.end()
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { f.Run(ctx); close(done) }()
			time.Sleep(50 * time.Millisecond)
			cancel()
			<-done

			ctx, cancel2 := context.WithTimeout(context.Background(), timingtest.Patience)
			defer cancel2()
			r := f.Finish(ctx)
			if r.Sent != 1 || r.Pending != 0 || r.Err != nil {
				t.Errorf("Result = %+v", r)
			}
			if got := c.SpanNames(); !slices.Equal(got, []string{"s1"}) {
				t.Errorf("collector got %v, want s1 once", got)
			}
		})
	}
}

func startCollector(t *testing.T, proto string, c *otlptest.Collector) string {
	if proto == otlp.ProtocolGRPC {
		return otlptest.StartGRPC(t, "", c).Addr
	}
	return otlptest.StartHTTP(t, "", c).Addr
}

// A line the collector refuses as invalid (HTTP 400, gRPC InvalidArgument)
// is never sent again: it is kept in the .rejected file, counted, and the
// lines after it are delivered, by replay and while the job runs.
func TestRejectedLineIsSetAsideAndTheRestDelivered(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto+"/replay", func(t *testing.T) {
			c := &otlptest.Collector{}
			c.RejectSpans("bad")
			addr := startCollector(t, proto, c)
			dir := t.TempDir()
			path := filepath.Join(dir, spool.TracesFile)
			j := newJob(t, dir, nil)
			j.spans("s1", "bad1", "s2", "bad2", "s3")
			j.end()
			ctx, cancel := context.WithTimeout(context.Background(), timingtest.Patience)
			defer cancel()
			r := Replay(ctx, dir, client(t, proto, addr, 0), false, Options{})
			if r.Sent != 3 || r.Rejected != 2 || r.RejectedLines != 2 || r.Pending != 0 {
				t.Errorf("Result = %+v, want 3 sent, 2 rejected, none pending", r)
			}
			if got := c.SpanNames(); !slices.Equal(got, []string{"s1", "s2", "s3"}) {
				t.Errorf("collector got %v", got)
			}
			if off, size := sentOffset(t, path), fileSize(t, path); off != size {
				t.Errorf(".sent = %d, size %d", off, size)
			}
			var kept []string
			if err := spool.ReadLines(path+spool.RejectedSuffix, 0, func(td ptrace.Traces, _ int, _ int64) error {
				req := otlptest.Proto(t, td)
				for _, rs := range req.ResourceSpans {
					for _, ss := range rs.ScopeSpans {
						for _, s := range ss.Spans {
							kept = append(kept, s.Name)
						}
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(kept, []string{"bad1", "bad2"}) {
				t.Errorf("%s holds %v", spool.RejectedSuffix, kept)
			}
			refused := c.Rejected()
			r = Replay(ctx, dir, client(t, proto, addr, 0), false, Options{})
			if r.Sent != 0 || r.Rejected != 0 || c.Rejected() != refused || len(c.SpanNames()) != 3 {
				t.Errorf("second replay = %+v, %d rejections (was %d)", r, c.Rejected(), refused)
			}
		})
		t.Run(proto+"/run", func(t *testing.T) {
			c := &otlptest.Collector{}
			c.RejectSpans("bad")
			addr := startCollector(t, proto, c)
			dir := t.TempDir()
			var w warnings
			f := New(filepath.Join(dir, spool.TracesFile), client(t, proto, addr, 0), Options{RetryMin: 10 * time.Millisecond, RetryMax: 20 * time.Millisecond, Warn: w.warn})
			j := newJob(t, dir, f.Notify)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { f.Run(ctx); close(done) }()
			j.spans("s1", "bad1", "s2")
			waitFor(t, "the span after the rejected one", func() bool { return len(c.SpanNames()) == 2 })
			refused := c.Rejected()
			// Retrying would send it again within a few RetryMax.
			time.Sleep(100 * time.Millisecond)
			j.spans("s3")
			waitFor(t, "a later span", func() bool { return len(c.SpanNames()) == 3 })
			cancel()
			<-done
			ctx2, cancel2 := context.WithTimeout(context.Background(), timingtest.Patience)
			defer cancel2()
			r := f.Finish(ctx2)
			if c.Rejected() != refused {
				t.Errorf("the rejected line was sent again: %d rejections, then %d", refused, c.Rejected())
			}
			if r.Sent != 3 || r.Rejected != 1 || r.Pending != 0 {
				t.Errorf("Result = %+v", r)
			}
			if !w.has("rejected") {
				t.Errorf("no warning about the rejected line: %q", w.msgs)
			}
		})
	}
}

// An OTLP partial success is a success: the request is not sent again.
func TestPartialSuccessIsNotSentAgain(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			c := &otlptest.Collector{}
			c.SetPartial(1)
			addr := startCollector(t, proto, c)
			dir := t.TempDir()
			j := newJob(t, dir, nil)
			j.spans(seq("s", 3)...)
			j.end()
			ctx, cancel := context.WithTimeout(context.Background(), timingtest.Patience)
			defer cancel()
			r := Replay(ctx, dir, client(t, proto, addr, 0), false, Options{})
			total, unique := c.SpanCount()
			if r.Sent != 3 || r.Pending != 0 || total != 3 || unique != 3 {
				t.Errorf("Result = %+v; collector got %d spans, %d unique", r, total, unique)
			}
		})
	}
}

// A backlog goes in few requests, bounded by MaxUploadSpans and
// MaxUploadBytes, each span once.
func TestBacklogIsSentInBoundedBatches(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			c := &otlptest.Collector{}
			addr := startCollector(t, proto, c)
			dir := t.TempDir()
			j := newJob(t, dir, nil)
			j.spans(seq("s", MaxUploadSpans+1)...)
			// Spans big enough that MaxUploadBytes splits them.
			big := strings.Repeat("x", MaxUploadBytes/4)
			for i := range 6 {
				_, s := j.tp.Tracer("forward-test").Start(context.Background(), fmt.Sprint("big", i))
				s.SetAttributes(attribute.String("big", big))
				s.End()
				if err := j.p.ForceFlush(context.Background()); err != nil {
					t.Fatal(err)
				}
			}
			j.end()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			r := Replay(ctx, dir, client(t, proto, addr, 10*time.Second), false, Options{Timeout: 10 * time.Second})
			total, unique := c.SpanCount()
			want := MaxUploadSpans + 1 + 6
			if r.Sent != want || total != want || unique != want {
				t.Errorf("Result = %+v; collector got %d spans, %d unique; want %d", r, total, unique, want)
			}
			// MaxUploadSpans in the first request, the rest of the small
			// ones with the first big ones up to MaxUploadBytes, and so on.
			if n := c.Requests(); n < 3 || n > 5 {
				t.Errorf("%d requests for %d lines", n, want)
			}
			if got := c.SpanNames(); got[0] != "s1" || got[want-1] != "big5" {
				t.Errorf("out of order: first %s, last %s", got[0], got[want-1])
			}
		})
	}
}

// An upload abandoned at the deadline may have been taken by the collector:
// the spans stay pending, are counted as possibly delivered, and a replay
// delivers them (a second time, when the collector had taken them).
func TestAbandonedUploadIsReportedAsPossiblyDelivered(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			c := &otlptest.Collector{}
			release := c.Hold()
			defer release()
			addr := startCollector(t, proto, c)
			dir := t.TempDir()
			f := New(filepath.Join(dir, spool.TracesFile), client(t, proto, addr, 0), Options{})
			j := newJob(t, dir, nil)
			j.spans("s1", "s2")
			j.end()
			ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
			defer cancel()
			r := f.Finish(ctx)
			if r.Sent != 0 || r.Pending != 2 || r.Uncertain != 2 {
				t.Errorf("Result = %+v, want 2 pending, both possibly delivered", r)
			}
			// The collector takes the abandoned upload after all.
			release()
			waitFor(t, "the collector to take the abandoned upload", func() bool { return c.Requests() == 1 })
			ctx2, cancel2 := context.WithTimeout(context.Background(), timingtest.Patience)
			defer cancel2()
			// The run left a record for the replay, which says it sends
			// them again.
			path := filepath.Join(dir, spool.TracesFile)
			if off, err := spool.ReadUncertain(path); err != nil || off != fileSize(t, path) {
				t.Errorf("%s = %d (%v), want the end of both lines", spool.UncertainSuffix, off, err)
			}
			r = Replay(ctx2, dir, client(t, proto, addr, 0), false, Options{})
			total, unique := c.SpanCount()
			if r.Sent != 2 || r.Resent != 2 || total != 4 || unique != 2 {
				t.Errorf("replay = %+v; collector got %d spans, %d unique", r, total, unique)
			}
			if _, err := os.Stat(path + spool.UncertainSuffix); !os.IsNotExist(err) {
				t.Errorf("%s left after the replay delivered the lines: %v", spool.UncertainSuffix, err)
			}
		})
	}
}

// A timed-out upload that the collector took, sent again while the job
// runs, is counted in Result.Resent.
func TestResentAfterTimeoutIsCounted(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			c := &otlptest.Collector{}
			release := c.Hold()
			defer release()
			addr := startCollector(t, proto, c)
			dir := t.TempDir()
			var w warnings
			// The held upload times out whatever the timeout; the one
			// after the release must not, however loaded the machine.
			f := New(filepath.Join(dir, spool.TracesFile), client(t, proto, addr, 0),
				Options{Timeout: 2 * time.Second, RetryMin: 50 * time.Millisecond, Warn: w.warn})
			j := newJob(t, dir, f.Notify)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { f.Run(ctx); close(done) }()
			j.spans("s1")
			waitFor(t, "a timed-out upload", func() bool { return w.has("are retried") })
			release()
			waitFor(t, "delivery", func() bool { return sentOffset(t, j.path) == fileSize(t, j.path) })
			cancel()
			<-done
			ctx2, cancel2 := context.WithTimeout(context.Background(), timingtest.Patience)
			defer cancel2()
			r := f.Finish(ctx2)
			total, unique := c.SpanCount()
			if r.Sent != 1 || r.Resent != 1 || r.Pending != 0 || total < 2 || unique != 1 {
				t.Errorf("Result = %+v, collector got %d spans, %d unique; want 1 sent, resent after a timeout", r, total, unique)
			}
		})
	}
}

// A collector that refuses every upload (a missing credential: HTTP 401,
// gRPC Unauthenticated) is not asked again in this run; the spans stay
// pending for a replay.
func TestRefusedUploadsAreNotRetried(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			c := &otlptest.Collector{}
			c.RefuseAll(http.StatusUnauthorized, codes.Unauthenticated)
			addr := startCollector(t, proto, c)
			dir := t.TempDir()
			path := filepath.Join(dir, spool.TracesFile)
			var w warnings
			f := New(path, client(t, proto, addr, 0), Options{RetryMin: 10 * time.Millisecond, RetryMax: 20 * time.Millisecond, Warn: w.warn})
			j := newJob(t, dir, f.Notify)
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan struct{})
			go func() { f.Run(ctx); close(done) }()
			j.spans("s1", "s2")
			waitFor(t, "the refusal", func() bool { return w.has("refuses") })
			asked := c.Rejected()
			// A retry would come within RetryMax.
			time.Sleep(100 * time.Millisecond)
			j.spans("s3")
			time.Sleep(100 * time.Millisecond)
			cancel()
			<-done
			ctx2, cancel2 := context.WithTimeout(context.Background(), timingtest.Patience)
			defer cancel2()
			r := f.Finish(ctx2)
			if c.Rejected() != asked {
				t.Errorf("asked the collector %d times, then %d", asked, c.Rejected())
			}
			if r.Sent != 0 || r.Pending != 3 || r.Rejected != 0 || r.Err == nil || sentOffset(t, path) != 0 {
				t.Errorf("Result = %+v, want 3 pending", r)
			}
			c.RefuseAll(0, codes.OK)
			r = Replay(ctx2, dir, client(t, proto, addr, 0), false, Options{})
			if r.Sent != 3 || r.Pending != 0 {
				t.Errorf("replay once the collector takes them = %+v", r)
			}
		})
	}
}

// Unreadable lines are each said once: the first few in full, then
// counted, and the count is said when the forwarder finishes.
func TestForwardCountsBadLinesPastTheFirstFew(t *testing.T) {
	dir := t.TempDir()
	const bad = warnlimit.DefaultVerbatim + 3
	path := spoolWithBadLines(t, dir, bad)

	_, addr := start(t, otlp.ProtocolHTTPProtobuf, "")
	var w warnings
	f := New(path, client(t, otlp.ProtocolHTTPProtobuf, addr, 0), Options{Warn: w.warn})
	ctx, cancel := context.WithTimeout(context.Background(), timingtest.Patience)
	defer cancel()
	if r := f.Finish(ctx); r.Sent != 1 {
		t.Errorf("Result = %+v, want the span sent", r)
	}
	skipped := 0
	for _, m := range w.msgs {
		if strings.HasPrefix(m, "export: skipped ") {
			skipped++
		}
	}
	if skipped != warnlimit.DefaultVerbatim || !w.has("export: 3 warnings suppressed in total") {
		t.Errorf("%d of %d bad lines said in full, want %d and a count: %q", skipped, bad, warnlimit.DefaultVerbatim, w.msgs)
	}
}

// spoolWithBadLines writes in dir a spool of a job with one span, s1,
// followed by n lines that are not OTLP/JSON, and returns its path.
func spoolWithBadLines(t *testing.T, dir string, n int) string {
	t.Helper()
	path := filepath.Join(dir, spool.TracesFile)
	j := newJob(t, dir, nil)
	j.spans("s1")
	j.end()
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString(strings.Repeat("garbage\n", n))
	fh.Close()
	return path
}

// slowClient's upload blocks until its context ends, then takes a moment
// more to return, as a real client unwinding its request does.
type slowClient struct {
	entered  chan struct{}
	returned atomic.Bool
	stopped  atomic.Bool
}

func (c *slowClient) Upload(ctx context.Context, _ ptrace.Traces) error {
	select {
	case c.entered <- struct{}{}:
	default:
	}
	<-ctx.Done()
	time.Sleep(100 * time.Millisecond)
	c.returned.Store(true)
	return ctx.Err()
}

func (c *slowClient) Stop(context.Context) error {
	c.stopped.Store(true)
	return nil
}

// A run that exports nothing stops the forwarder in Finish's place: the
// upload Run left in flight is cut short and has returned when Stop does,
// so that nothing of the forwarder's runs or writes after the run's end.
func TestStopWaitsForTheUploadInFlight(t *testing.T) {
	dir := t.TempDir()
	c := &slowClient{entered: make(chan struct{}, 1)}
	f := New(filepath.Join(dir, spool.TracesFile), c, Options{Timeout: time.Hour})
	j := newJob(t, dir, f.Notify)
	j.spans("s1")
	j.end()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { f.Run(ctx); close(done) }()
	<-c.entered
	cancel()
	<-done
	f.Stop(context.Background())
	if !c.returned.Load() {
		t.Error("Stop returned before the upload in flight")
	}
	if !c.stopped.Load() {
		t.Error("the client was not stopped")
	}
	f.Stop(context.Background()) // a second Stop does nothing
}
