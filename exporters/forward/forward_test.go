package forward

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.uber.org/goleak"

	"github.com/jobtrace/jobtrace/config"
	"github.com/jobtrace/jobtrace/exporters/otlp"
	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/internal/otlptest"
)

func TestMain(m *testing.M) {
	otlp.RouteErrors(func(string) {})
	goleak.VerifyTestMain(m)
}

// job writes spans into a spool the way the agent does, one line per span.
type job struct {
	t    *testing.T
	path string
	tp   *sdktrace.TracerProvider
	p    *spool.SpanProcessor
}

func newJob(t *testing.T, dir string, onAppend func()) *job {
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

func client(t *testing.T, protocol, addr string, timeout time.Duration) otlptrace.Client {
	t.Helper()
	exp, err := config.ResolveOTLP(config.OTLP{Endpoint: "http://" + addr, OTLPSettings: config.OTLPSettings{Protocol: protocol, Timeout: timeout}})
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
	if protocol == config.ProtocolGRPC {
		g := otlptest.StartGRPC(t, addr, nil)
		return g, g.Addr
	}
	h := otlptest.StartHTTP(t, addr, nil)
	return h, h.Addr
}

var protocols = []string{config.ProtocolGRPC, config.ProtocolHTTPProtobuf}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
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

			ctx, cancel2 := context.WithTimeout(context.Background(), 3*time.Second)
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
			ctx, cancel2 := context.WithTimeout(context.Background(), 3*time.Second)
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

				ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
				defer cancel()
				start := time.Now()
				r := f.Finish(ctx)
				took := time.Since(start)
				t.Logf("Finish against a refused %s port took %v", proto, took)
				if took > time.Second {
					t.Errorf("Finish took %v, budget 100ms", took)
				}
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
				f := New(path, client(t, proto, addr, time.Minute), Options{Timeout: time.Minute})
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
					case <-time.After(time.Second):
						t.Fatal("Run did not return after its context was cancelled")
					}
				}

				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				defer cancel()
				start := time.Now()
				r := f.Finish(ctx)
				took := time.Since(start)
				t.Logf("Finish against a hanging %s collector took %v (deadline %v)", proto, took, deadline)
				if took > deadline+500*time.Millisecond {
					t.Errorf("Finish took %v, deadline %v", took, deadline)
				}
				if r.Sent != 0 || r.Pending != 2 || r.Err == nil {
					t.Errorf("Result = %+v, want 2 pending with an error", r)
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
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()

			r := Replay(ctx, dir, client(t, proto, addr, 0), false)
			if r.Sent != 2 || r.Lines != 2 || r.Pending != 0 || r.Err != nil {
				t.Errorf("first replay = %+v, want s3 and s4", r)
			}
			if got := srv.SpanNames(); !slices.Equal(got, []string{"s3", "s4"}) {
				t.Errorf("collector got %v", got)
			}
			if off, size := sentOffset(t, path), fileSize(t, path); off != size {
				t.Errorf(".sent = %d, size %d", off, size)
			}

			r = Replay(ctx, dir, client(t, proto, addr, 0), false)
			if r.Sent != 0 || r.Pending != 0 || r.Err != nil || len(srv.SpanNames()) != 2 {
				t.Errorf("second replay = %+v, collector has %v", r, srv.SpanNames())
			}

			r = Replay(ctx, dir, client(t, proto, addr, 0), true)
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
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	r := Replay(ctx, dir, client(t, config.ProtocolGRPC, addr, 0), false)
	if r.Sent != 0 || r.Pending != 2 || r.Err == nil {
		t.Errorf("Result = %+v", r)
	}
	if off := sentOffset(t, path); off != 0 {
		t.Errorf(".sent = %d", off)
	}
	r = Replay(ctx, filepath.Join(dir, "nowhere"), client(t, config.ProtocolGRPC, addr, 0), false)
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
	path := filepath.Join(dir, spool.TracesFile)
	j := newJob(t, dir, nil)
	j.spans("s1")
	j.end()
	fh, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString("garbage\n")
	fh.Close()
	j2 := newJob(t, dir, nil)
	j2.spans("s2")
	j2.end()

	srv, addr := start(t, config.ProtocolHTTPProtobuf, "")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	r := Replay(ctx, dir, client(t, config.ProtocolHTTPProtobuf, addr, 0), false)
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
			if proto == config.ProtocolGRPC {
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

			ctx, cancel2 := context.WithTimeout(context.Background(), 3*time.Second)
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
