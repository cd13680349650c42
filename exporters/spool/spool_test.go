package spool

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/jobtrace/jobtrace/internal/otlptest"
	"github.com/jobtrace/jobtrace/internal/timingtest"
)

func TestMain(m *testing.M) {
	timingtest.VerifyTestMain(m)
}

// recordOnly records spans whose name starts with "unsampled" without
// sampling them, the decision a job under a not-sampled parent gets.
type recordOnly struct{}

func (recordOnly) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	if strings.HasPrefix(p.Name, "unsampled") {
		return sdktrace.SamplingResult{Decision: sdktrace.RecordOnly}
	}
	return sdktrace.SamplingResult{Decision: sdktrace.RecordAndSample}
}
func (recordOnly) Description() string { return "recordOnly" }

type readSpan struct {
	span *tracepb.Span
	res  map[string]string
}

func readAll(t *testing.T, path string) ([]readSpan, []int64) {
	t.Helper()
	var spans []readSpan
	var ends []int64
	err := ReadLines(path, 0, func(td ptrace.Traces, n int, end int64) error {
		req := otlptest.Proto(t, td)
		got := 0
		for _, rs := range req.ResourceSpans {
			res := map[string]string{}
			for _, kv := range rs.GetResource().GetAttributes() {
				res[kv.Key] = kv.Value.GetStringValue()
			}
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					spans = append(spans, readSpan{span: s, res: res})
					got++
				}
			}
		}
		if got != n {
			t.Errorf("ReadLines reported %d spans, line has %d", n, got)
		}
		ends = append(ends, end)
		return nil
	})
	if err != nil {
		t.Fatalf("ReadLines: %v", err)
	}
	return spans, ends
}

func TestSpansRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), TracesFile)
	c := NewTraceClient(path)
	var appended []int64
	var mu sync.Mutex
	c.OnAppend(func(end int64, n int) {
		mu.Lock()
		appended = append(appended, end)
		mu.Unlock()
	})
	p := NewSpanProcessor(c)
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSpanProcessor(p),
		sdktrace.WithSampler(recordOnly{}),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "jobtrace-test"))),
	)
	tr := tp.Tracer("jobtrace/spool-test")

	ctx, root := tr.Start(context.Background(), "job", trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("cicd.pipeline.name", "build"), attribute.Int("n", 7)))
	_, child := tr.Start(ctx, "compile")
	child.AddEvent("cache-miss", trace.WithAttributes(attribute.String("key", "deps")))
	child.SetStatus(codes.Error, "exit 2")
	child.End()
	root.End()
	_, un := tr.Start(context.Background(), "unsampled phase")
	un.End()
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	st := p.Stats()
	if st.Spans != 3 || st.Dropped != 0 || st.Errors != 0 || st.Lines < 1 {
		t.Errorf("Stats = %+v, want 3 spans, no drops or errors", st)
	}

	spans, ends := readAll(t, path)
	byName := map[string]*tracepb.Span{}
	for _, s := range spans {
		byName[s.span.Name] = s.span
		if s.res["service.name"] != "jobtrace-test" {
			t.Errorf("span %q resource = %v", s.span.Name, s.res)
		}
	}
	if len(byName) != 3 {
		t.Fatalf("read %d spans (%v), want job, compile, unsampled phase", len(spans), byName)
	}
	job, comp, uns := byName["job"], byName["compile"], byName["unsampled phase"]
	rootSC, childSC := root.SpanContext(), child.SpanContext()
	tid := rootSC.TraceID()
	if !bytes.Equal(job.TraceId, tid[:]) || !bytes.Equal(comp.TraceId, tid[:]) {
		t.Errorf("trace ids %x %x, want %x", job.TraceId, comp.TraceId, tid)
	}
	sid, csid := rootSC.SpanID(), childSC.SpanID()
	if !bytes.Equal(job.SpanId, sid[:]) || !bytes.Equal(comp.SpanId, csid[:]) {
		t.Errorf("span ids %x %x, want %x %x", job.SpanId, comp.SpanId, sid, csid)
	}
	if !bytes.Equal(comp.ParentSpanId, sid[:]) || len(job.ParentSpanId) != 0 {
		t.Errorf("parents: compile %x (want %x), job %x (want none)", comp.ParentSpanId, sid, job.ParentSpanId)
	}
	if job.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("job kind = %v", job.Kind)
	}
	gotAttrs := map[string]string{}
	for _, kv := range job.Attributes {
		gotAttrs[kv.Key] = kv.Value.String()
	}
	if !strings.Contains(gotAttrs["cicd.pipeline.name"], "build") || !strings.Contains(gotAttrs["n"], "7") {
		t.Errorf("job attributes = %v", gotAttrs)
	}
	if len(comp.Events) != 1 || comp.Events[0].Name != "cache-miss" ||
		len(comp.Events[0].Attributes) != 1 || comp.Events[0].Attributes[0].Value.GetStringValue() != "deps" {
		t.Errorf("compile events = %v", comp.Events)
	}
	if comp.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || comp.Status.GetMessage() != "exit 2" {
		t.Errorf("compile status = %v", comp.Status)
	}
	if comp.Flags&uint32(trace.FlagsSampled) == 0 {
		t.Errorf("compile flags %#x lack the sampled bit", comp.Flags)
	}
	if uns.Flags&uint32(trace.FlagsSampled) != 0 {
		t.Errorf("unsampled span flags %#x have the sampled bit", uns.Flags)
	}
	mu.Lock()
	if len(appended) == 0 || appended[len(appended)-1] != ends[len(ends)-1] {
		t.Errorf("OnAppend offsets %v, ReadLines ends %v", appended, ends)
	}
	mu.Unlock()

	// Each line is what the Collector's otlpjsonfile receiver reads.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", fi.Mode().Perm())
	}
	total := 0
	for _, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(line)
		if err != nil {
			t.Fatalf("pdata cannot read line %q: %v", line, err)
		}
		total += td.SpanCount()
	}
	if total != 3 {
		t.Errorf("pdata read %d spans, want 3", total)
	}
	for _, want := range []string{
		`"traceId":"` + hex.EncodeToString(tid[:]) + `"`,
		`"spanId":"` + hex.EncodeToString(csid[:]) + `"`,
		`"kind":2`,
		`"resourceSpans"`,
	} {
		if !bytes.Contains(data, []byte(want)) {
			t.Errorf("file lacks %s:\n%s", want, data)
		}
	}
}

// writeSpans writes n one-span lines to path through a TraceClient and
// returns the file's content.
func writeSpans(t *testing.T, path string, names ...string) []byte {
	t.Helper()
	c := NewTraceClient(path)
	p := NewSpanProcessor(c)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p))
	for _, n := range names {
		_, s := tp.Tracer("t").Start(context.Background(), n)
		s.End()
		if err := p.ForceFlush(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func names(t *testing.T, path string, from int64) ([]string, error) {
	t.Helper()
	var out []string
	err := ReadLines(path, from, func(td ptrace.Traces, _ int, _ int64) error {
		req := otlptest.Proto(t, td)
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					out = append(out, s.Name)
				}
			}
		}
		return nil
	})
	return out, err
}

func TestTornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), TracesFile)
	data := writeSpans(t, path, "a", "b")
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) != 3 { // two lines and the empty rest
		t.Fatalf("want 2 lines, got %q", data)
	}
	// The agent died in the middle of writing "b".
	torn := append(append([]byte{}, lines[0]...), lines[1][:len(lines[1])/2]...)
	if err := os.WriteFile(path, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := names(t, path, 0)
	if strings.Join(got, ",") != "a" {
		t.Errorf("read %v, want [a]", got)
	}
	if !errors.Is(err, ErrTorn) {
		t.Fatalf("err = %v, want ErrTorn", err)
	}
	les := LineErrors(err)
	if len(les) != 1 || les[0].Line != 2 || les[0].Offset != int64(len(lines[0])) {
		t.Errorf("line errors = %+v, want line 2 at byte %d", les, len(lines[0]))
	}

	// A later run appends: the torn line is closed off and reported as
	// malformed, and the new line reads fine.
	writeSpans(t, path, "c")
	got, err = names(t, path, 0)
	if strings.Join(got, ",") != "a,c" {
		t.Errorf("after append read %v, want [a c]", got)
	}
	if !errors.Is(err, ErrParse) || errors.Is(err, ErrTorn) {
		t.Errorf("after append err = %v, want only ErrParse", err)
	}
}

func TestMalformedLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), TracesFile)
	data := writeSpans(t, path, "a", "b")
	lines := bytes.SplitAfter(data, []byte("\n"))
	bad := bytes.Join([][]byte{lines[0], []byte("{\"resourceSpans\":[{\n"), []byte("\n"), lines[1]}, nil)
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := names(t, path, 0)
	if strings.Join(got, ",") != "a,b" {
		t.Errorf("read %v, want [a b]", got)
	}
	les := LineErrors(err)
	if !errors.Is(err, ErrParse) || len(les) != 1 || les[0].Line != 2 {
		t.Fatalf("err = %v, want one ErrParse on line 2", err)
	}
	if !strings.Contains(err.Error(), "spans.otlp.jsonl line 2") {
		t.Errorf("message %q does not name the file and line", err)
	}

	// Reading from the offset past "a" starts the count there.
	got, err = names(t, path, int64(len(lines[0])))
	if strings.Join(got, ",") != "b" || len(LineErrors(err)) != 1 || LineErrors(err)[0].Line != 1 {
		t.Errorf("from offset: read %v, err %v", got, err)
	}
}

// A line that is not one JSON object is malformed, whatever the OTLP
// decoder makes of it: it reads keys without their object's braces, values
// left out and trailing garbage as spans.
func TestLineNotJSONObjectIsMalformed(t *testing.T) {
	path := filepath.Join(t.TempDir(), TracesFile)
	data := writeSpans(t, path, "a")
	span := `{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"x"}`
	for _, line := range []string{
		`,"resourceSpans":,,"scopeSpans":,,"spans":,,"0000000":"00000000000000000000000000000000"}]}]}]}`,
		`"resourceSpans":[{"scopeSpans":[{"spans":[` + span + `]}]}]}`,
		`{"resourceSpans":[{"scopeSpans":[{"spans":[` + span + `]}]}]}]]]`,
		`{"resourceSpans":[{"scopeSpans":[{"spans":[` + span + `]}]}]} {}`,
		`[{"resourceSpans":[{"scopeSpans":[{"spans":[` + span + `]}]}]}]`,
		`{"resourceSpans":[{"scopeSpans":[{"spans":[` + span + `,]}]}]}`,
	} {
		if err := os.WriteFile(path, append(append([]byte(nil), data...), line+"\n"...), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := names(t, path, 0)
		les := LineErrors(err)
		if strings.Join(got, ",") != "a" || !errors.Is(err, ErrParse) || len(les) != 1 || les[0].Line != 2 {
			t.Errorf("%s: read %v, err %v; want [a] and one ErrParse on line 2", line, got, err)
		}
	}
}

func TestReadLinesStopsOnCallbackError(t *testing.T) {
	path := filepath.Join(t.TempDir(), TracesFile)
	writeSpans(t, path, "a", "b")
	stop := errors.New("stop")
	calls := 0
	err := ReadLines(path, 0, func(ptrace.Traces, int, int64) error {
		calls++
		return stop
	})
	if calls != 1 || !errors.Is(err, stop) {
		t.Errorf("calls %d, err %v", calls, err)
	}
	if err := ReadLines(filepath.Join(t.TempDir(), "none"), 0, nil); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// A burst of spans larger than the queue, against a writer held up, waits
// for room instead of being dropped: every span reaches the file, in lines
// of at most MaxLineSpans.
func TestBurstWaitsForRoomAndLosesNoSpan(t *testing.T) {
	path := filepath.Join(t.TempDir(), TracesFile)
	c := NewTraceClient(path)
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	c.OnAppend(func(int64, int) {
		select {
		case entered <- struct{}{}:
			<-release // only the first line is held
		default:
		}
	})
	p := NewSpanProcessor(c)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p))
	tr := tp.Tracer("t")

	// The first span holds the writer inside its write.
	_, s := tr.Start(context.Background(), "first")
	s.End()
	<-entered

	const burst = 3 * MaxQueueSpans
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		for range burst {
			_, s := tr.Start(context.Background(), "burst")
			s.End()
		}
	}()
	// The queue fills, and the burst waits for the writer.
	for len(p.queue) < MaxQueueSpans {
		time.Sleep(time.Millisecond)
	}
	select {
	case <-ended:
		t.Fatal("a burst of 3 queues ended against a held writer: spans were dropped")
	default:
	}
	close(release)
	<-ended
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := p.Stats()
	if st.Spans != burst+1 || st.Dropped != 0 || st.Errors != 0 {
		t.Errorf("Stats = %+v, want %d spans and none dropped", st, burst+1)
	}
	spans, ends := readAll(t, path)
	if len(spans) != burst+1 {
		t.Errorf("%d spans in the file, want %d", len(spans), burst+1)
	}
	if min := (burst + 1 + MaxLineSpans - 1) / MaxLineSpans; len(ends) < min {
		t.Errorf("%d lines for %d spans, want at least %d (at most %d spans a line)", len(ends), burst+1, min, MaxLineSpans)
	}
}

// A writer that takes nothing for the stall timeout (a dead disk) makes the
// spans that find the queue full be dropped, counted and said once, so the
// code ending spans goes on.
func TestStalledDiskDropsAfterTheStallTimeout(t *testing.T) {
	path := filepath.Join(t.TempDir(), TracesFile)
	c := NewTraceClient(path)
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	c.OnAppend(func(int64, int) {
		select {
		case entered <- struct{}{}:
		default:
		}
		<-release
	})
	var warns []string
	var wmu sync.Mutex
	p := NewSpanProcessor(c, WithStallTimeout(20*time.Millisecond), WithWarn(func(s string) {
		wmu.Lock()
		warns = append(warns, s)
		wmu.Unlock()
	}))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p))
	tr := tp.Tracer("t")
	_, s := tr.Start(context.Background(), "first")
	s.End()
	<-entered

	const extra = 5
	for range MaxQueueSpans + extra {
		_, s := tr.Start(context.Background(), "burst")
		s.End()
	}
	if st := p.Stats(); st.Dropped != extra {
		t.Errorf("dropped %d, want %d", st.Dropped, extra)
	}
	close(release)
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	st := p.Stats()
	if st.Spans != MaxQueueSpans+1 || st.Dropped != extra || st.Errors != 0 {
		t.Errorf("Stats = %+v", st)
	}
	wmu.Lock()
	defer wmu.Unlock()
	if len(warns) != 2 || !strings.Contains(warns[0], "took no span") || !strings.Contains(warns[1], "5 spans dropped") {
		t.Errorf("warnings = %q, want one for the stall and one total", warns)
	}
}

func TestWriteErrorCounted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing-dir", TracesFile)
	var warned []string
	p := NewSpanProcessor(NewTraceClient(path), WithWarn(func(s string) { warned = append(warned, s) }))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p))
	_, s := tp.Tracer("t").Start(context.Background(), "x")
	s.End()
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := p.Stats(); st.Errors != 1 || st.Spans != 0 {
		t.Errorf("Stats = %+v, want one error", st)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "1 spans lost") {
		t.Errorf("warnings = %q", warned)
	}
}

// A disk that stays full fails every write: the first failure is said, the
// others counted and said once, in total, at the end.
func TestRepeatedWriteErrorsSaidOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing-dir", TracesFile)
	var mu sync.Mutex
	var warned []string
	p := NewSpanProcessor(NewTraceClient(path), WithWarn(func(s string) {
		mu.Lock()
		warned = append(warned, s)
		mu.Unlock()
	}))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p))
	for range 5 {
		_, s := tp.Tracer("t").Start(context.Background(), "x")
		s.End()
		if err := p.ForceFlush(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st := p.Stats(); st.Errors != 5 || st.Lost != 5 || st.Spans != 0 {
		t.Errorf("Stats = %+v, want 5 failed writes of 5 spans", st)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(warned) != 2 || !strings.Contains(warned[0], "1 spans lost") || !strings.Contains(warned[1], "5 spans lost in 5 failed writes") {
		t.Errorf("warnings = %q, want the first failure and the total", warned)
	}
}

func TestAppendAfterStop(t *testing.T) {
	c := NewTraceClient(filepath.Join(t.TempDir(), TracesFile))
	if err := c.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	td := ptrace.NewTraces()
	td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty().SetName("x")
	if err := c.AppendTraces(td); !errors.Is(err, ErrClosed) {
		t.Errorf("err = %v, want ErrClosed", err)
	}
}

func TestSentOffset(t *testing.T) {
	path := filepath.Join(t.TempDir(), TracesFile)
	if off, err := ReadSent(path); off != 0 || err != nil {
		t.Errorf("missing: %d, %v", off, err)
	}
	for _, want := range []int64{0, 1234, 1 << 40} {
		if err := WriteSent(path, want); err != nil {
			t.Fatal(err)
		}
		if off, err := ReadSent(path); off != want || err != nil {
			t.Errorf("ReadSent = %d, %v; want %d", off, err, want)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 || entries[0].Name() != TracesFile+SentSuffix {
		t.Errorf("directory holds %v, want only the .sent file", entries)
	}
}

func TestParseSent(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0\n", 0, true},
		{"42", 42, true},
		{" 42 \n", 42, true},
		{"", 0, false},
		{"-1\n", 0, false},
		{"12abc", 0, false},
	} {
		got, err := parseSent([]byte(tc.in))
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("parseSent(%q) = %d, %v", tc.in, got, err)
		}
	}
}

// ReadSpans keeps to its bound, and past it still gives the ancestors of
// the spans it gave: the phase that holds them and the job span, which end
// after them.
func TestReadSpansKeepsTheBoundAndTheAncestors(t *testing.T) {
	path := filepath.Join(t.TempDir(), TracesFile)
	p := NewSpanProcessor(NewTraceClient(path))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p))
	tr := tp.Tracer("t")
	ctx, job := tr.Start(context.Background(), "job")
	octx, outer := tr.Start(ctx, "outer")
	const max, extra = 50, 30
	for range max + extra {
		_, s := tr.Start(octx, "leaf")
		s.End()
	}
	outer.End()
	_, late := tr.Start(ctx, "late sibling")
	late.End()
	job.End()
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	var names []string
	skipped, err := ReadSpans(path, max, func(_ pcommon.Resource, s ptrace.Span) { names = append(names, s.Name()) })
	if err != nil {
		t.Fatal(err)
	}
	if skipped != extra+1 {
		t.Errorf("skipped %d, want %d", skipped, extra+1)
	}
	if len(names) != max+2 || names[max] != "outer" || names[max+1] != "job" {
		t.Errorf("gave %d spans ending with %q, want %d leaves then outer and job", len(names), names[max:], max)
	}
}
