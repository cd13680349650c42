package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/otel/attribute"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/trace"
	"go.uber.org/goleak"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/internal/spooltest"
	"github.com/jobtrace/jobtrace/render/profile"
	htmlreport "github.com/jobtrace/jobtrace/render/report"
	"github.com/jobtrace/jobtrace/spans"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/socket"
	"github.com/jobtrace/jobtrace/supervise"
)

// syncBuffer is a log destination safe for the session's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// readSpool returns the spans of the spool in dir by name.
func readSpool(t *testing.T, dir string) map[string]spooltest.Span {
	return spooltest.Read(t, filepath.Join(dir, spool.TracesFile))
}

// A Go program drives a session without a child: phases begun and ended by
// Go calls and over the socket nest under the job's span, and every
// artifact is there once Shutdown returns.
func TestSessionDrivenFromGo(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	dir := filepath.Join(t.TempDir(), "out")
	var log syncBuffer
	s := New(Settings{
		Name: "build", Out: dir, ExportTimeout: time.Second,
		Socket: true, MarkerDir: true,
		Sampling: SamplingOptions{Interval: time.Hour},
		Resource: sdkresource.Empty(), Summary: "text",
		Log: supervise.NewLogger(&log),
	})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.Start(context.Background()); err == nil {
		t.Error("a second Start did not fail")
	}
	if err := s.Begin("compile", attribute.String("lang", "go")); err != nil {
		t.Fatal(err)
	}
	if err := s.Event("cache hit"); err != nil {
		t.Fatal(err)
	}
	// A step that talks to the socket, as `jobtrace phase` does, nests
	// under the phase the Go program began.
	sock := ""
	for _, kv := range s.JobEnv(nil) {
		if v, ok := strings.CutPrefix(kv, EnvSocket+"="); ok {
			sock = v
		}
	}
	c, err := socket.Dial(sock)
	if err != nil {
		t.Fatalf("socket %q: %v", sock, err)
	}
	for _, typ := range []protocol.Type{protocol.TypeBegin, protocol.TypeEnd} {
		r, err := c.Request(protocol.Msg{V: protocol.Version, Type: typ, Name: "link", Syntax: protocol.SyntaxSocket})
		if err != nil || !r.OK {
			t.Fatalf("%s link: %v %+v", typ, err, r)
		}
	}
	c.Close()
	if r := s.Handle(protocol.Msg{Type: protocol.TypeCounter, Name: "tests.passed", Value: 3}); !r.OK {
		t.Fatalf("counter: %+v", r)
	}
	if err := s.End("compile", ""); err != nil {
		t.Fatal(err)
	}
	if err := s.Begin("test"); err != nil {
		t.Fatal(err)
	}
	if err := s.End("test", protocol.ResultFailure); err != nil {
		t.Fatal(err)
	}
	if err := s.End("never begun", ""); !errors.Is(err, ErrRefused) {
		t.Errorf("End of a phase not open: %v", err)
	}
	res, err := s.Shutdown(context.Background(), Outcome{Code: 1})
	if err != nil {
		t.Fatal(err)
	}
	if res.Result != protocol.ResultFailure || res.Dir != dir || !res.TraceID.IsValid() || res.Export.Spans < 5 {
		t.Errorf("result %+v", res)
	}
	if err := s.Begin("late"); !errors.Is(err, ErrRefused) {
		t.Errorf("Begin after Shutdown: %v", err)
	}
	if _, err := s.Shutdown(context.Background(), Outcome{}); err == nil {
		t.Error("a second Shutdown did not fail")
	}

	got := readSpool(t, dir)
	for name, want := range map[string]string{"compile": "build", "link": "compile", "test": "build", "jobtrace startup": "build"} {
		if got[name].Parent != want {
			t.Errorf("%s: parent %q, want %q (spans %v)", name, got[name].Parent, want, got)
		}
	}
	if src := got["compile"].Attrs[string(spans.AttrPhaseSource)]; src != protocol.SyntaxGo {
		t.Errorf("compile's source %v, want %q", src, protocol.SyntaxGo)
	}
	if n := got["build"].Attrs[spans.CounterPrefix+"tests.passed"]; fmt.Sprint(n) != "3" {
		t.Errorf("the job's counter tests.passed is %v, want 3", n)
	}
	if got["compile"].Attrs["lang"] != "go" {
		t.Errorf("compile's attributes %v", got["compile"].Attrs)
	}
	for _, name := range []string{usagecsv.FileName, htmlreport.HTMLName, htmlreport.SVGName, profile.FileName} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("artifact: %v", err)
		}
	}
	// The job's usage reaches the summary from the model of the run, the
	// job's span there: the total line has figures.
	if m := regexp.MustCompile(`total +\S+ +(\S+)`).FindStringSubmatch(log.String()); m == nil || m[1] == "–" {
		t.Errorf("the summary's total has no usage %q:\n%s", m, log.String())
	}
	if out := log.String(); !strings.Contains(out, "compile") || !strings.Contains(out, "spans written to") {
		t.Errorf("no summary in the log:\n%s", out)
	}
	if _, err := os.Stat(s.PrivateDir()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("private directory %q left behind: %v", s.PrivateDir(), err)
	}
}

// A session that cannot start leaves nothing running.
func TestStartFailureLeavesNothingRunning(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	s := New(Settings{
		Out: filepath.Join(file, "out"), Socket: true, MarkerDir: true,
		Sampling: SamplingOptions{Interval: time.Hour},
		Resource: sdkresource.Empty(), Log: supervise.NewLogger(&log),
	})
	if err := s.Start(context.Background()); err == nil {
		t.Fatal("Start with an output directory below a file did not fail")
	}
	if _, err := s.Shutdown(context.Background(), Outcome{}); !errors.Is(err, ErrNotStarted) {
		t.Errorf("Shutdown of a session not started: %v", err)
	}
}

// boundarySampled are the settings of a session named build that writes
// to dir and logs to log, sampled at its boundaries only.
func boundarySampled(dir string, log *syncBuffer) Settings {
	return Settings{
		Name: "build", Out: dir, ExportTimeout: time.Second,
		Sampling: SamplingOptions{Interval: time.Hour},
		Resource: sdkresource.Empty(), Summary: "text",
		Log: supervise.NewLogger(log),
	}
}

// csvRows returns the reason and time of every row of the run's CSV.
func csvRows(t *testing.T, dir string) (reasons, times []string) {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, usagecsv.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := usagecsv.NewDecoder(f)
	if err != nil {
		t.Fatal(err)
	}
	for {
		err := d.Next()
		if errors.Is(err, io.EOF) {
			return reasons, times
		}
		if err != nil {
			t.Fatal(err)
		}
		reasons = append(reasons, d.Text(usagecsv.Index("reason")))
		times = append(times, d.Text(usagecsv.Index("time_utc")))
	}
}

// The job's usage is read from the last sample, the one that ends the run:
// a run that ends right after it started reads two samples, its first and
// its last, and no third one just before the last.
func TestJobUsageFromTheLastSample(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var log syncBuffer
	set := boundarySampled(dir, &log)
	set.Summary = "off"
	s := New(set)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Shutdown(context.Background(), Outcome{}); err != nil {
		t.Fatal(err)
	}
	reasons, _ := csvRows(t, dir)
	if got := strings.Join(reasons, ","); got != "start,end" {
		t.Errorf("samples %s, want start,end", got)
	}
	// The job's usage covers every sample written, the last one included.
	if n := readSpool(t, dir)["build"].Attrs[string(usage.AttrSamples)]; fmt.Sprint(n) != fmt.Sprint(len(reasons)) {
		t.Errorf("the job's usage is from %v samples, want the %d written", n, len(reasons))
	}
}

// BeginContext hands the program the phase's span context, so that what
// it traces itself during the phase nests under it.
func TestBeginContext(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var log syncBuffer
	s := New(Settings{
		Name: "task", Out: dir, ExportTimeout: time.Second,
		Resource: sdkresource.Empty(), Summary: "off", Log: supervise.NewLogger(&log),
	})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	ctx, err := s.BeginContext(context.Background(), "pull")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.End("pull", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BeginContext(context.Background(), ""); !errors.Is(err, ErrRefused) {
		t.Errorf("BeginContext without a name: %v", err)
	}
	if _, err := s.Shutdown(context.Background(), Outcome{}); err != nil {
		t.Fatal(err)
	}
	sc := trace.SpanContextFromContext(ctx)
	if got := readSpool(t, dir)["pull"].SpanID; !sc.IsValid() || pcommon.SpanID(sc.SpanID()) != got {
		t.Errorf("the context's span %v, the phase's %v", sc.SpanID(), got)
	}
}

// lines is a Logger of a Go program's own, not supervise's: it keeps what
// it is given.
type lines struct {
	mu                      sync.Mutex
	printed, warned, blocks []string
	flushed                 int
}

func (l *lines) Printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.printed = append(l.printed, fmt.Sprintf(format, args...))
}

func (l *lines) Warn(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.warned = append(l.warned, msg)
}

func (l *lines) Block(b []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.blocks = append(l.blocks, string(b))
}

func (l *lines) FlushWarnings() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.flushed++
}

// A Go program gives a session a Logger of its own: the session's
// messages, its warnings and the summary reach it, and its warnings are
// flushed once, at the end.
func TestSessionLogsToTheProgramsLogger(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var log lines
	s := New(Settings{
		Name: "build", Out: filepath.Join(t.TempDir(), "out"), ExportTimeout: time.Second,
		Resource: sdkresource.Empty(), Summary: "markdown", Log: &log,
	})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.End("never begun", ""); !errors.Is(err, ErrRefused) {
		t.Errorf("End of a phase not open: %v", err)
	}
	if _, err := s.Shutdown(context.Background(), Outcome{}); err != nil {
		t.Fatal(err)
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	all := strings.Join(log.printed, "\n")
	if len(log.warned) != 1 || !strings.Contains(log.warned[0], "never begun") ||
		len(log.blocks) != 1 || !strings.Contains(log.blocks[0], "**build**") ||
		!strings.Contains(all, "spans written to") || log.flushed != 1 {
		t.Errorf("warned %q, blocks %q, flushed %d, printed:\n%s", log.warned, log.blocks, log.flushed, all)
	}
}

// A job that fills a phase's and its own span with attributes and counters
// does not crowd out what jobtrace sets on them: every attribute jobtrace
// sets fits the room spans.OwnAttributes keeps, the excess is counted and
// said once, and the summary keeps the phase's figures.
func TestJobsAttributesLeaveJobtracesRoom(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var log syncBuffer
	set := boundarySampled(dir, &log)
	set.RecordArgs, set.Command = true, []string{"make", "all"}
	s := New(set)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	flood := func(phase, prefix string, n int) {
		for i := 0; i < n; i += protocol.MaxAttrs {
			m := protocol.Msg{Type: protocol.TypeAttr, Name: phase}
			for j := i; j < n && j < i+protocol.MaxAttrs; j++ {
				m.Attrs = append(m.Attrs, attribute.Int(fmt.Sprintf("%s.%d", prefix, j), j))
			}
			s.Handle(m)
		}
	}
	if err := s.Begin("p"); err != nil {
		t.Fatal(err)
	}
	flood("p", "user", 200)
	if err := s.End("p", protocol.ResultFailure); err != nil {
		t.Fatal(err)
	}
	flood("", "user", 100)
	for i := 0; i < 100; i++ {
		s.Handle(protocol.Msg{Type: protocol.TypeCounter, Name: fmt.Sprintf("c%d", i), Value: 1})
	}
	// An end without a begin is counted on the job's span too.
	s.Handle(protocol.Msg{Type: protocol.TypeEnd, Name: "never begun"})
	if _, err := s.Shutdown(context.Background(), Outcome{Code: 3, Attrs: []attribute.KeyValue{attribute.String("step.kind", "x")}}); err != nil {
		t.Fatal(err)
	}
	got := readSpool(t, dir)
	for _, name := range []string{"p", "build"} {
		sp := got[name]
		if sp.DroppedAttrs != 0 {
			t.Errorf("%s: the SDK dropped %d attributes", name, sp.DroppedAttrs)
		}
		user, own := 0, 0
		for k := range sp.Attrs {
			if strings.HasPrefix(k, "user.") || strings.HasPrefix(k, spans.CounterPrefix) {
				user++
			} else {
				own++
			}
		}
		if user != spans.MaxUserAttributes {
			t.Errorf("%s: %d of the job's attributes, want %d", name, user, spans.MaxUserAttributes)
		}
		if own > spans.OwnAttributes() {
			t.Errorf("%s: jobtrace set %d attributes, more than the room spans.OwnAttributes keeps (%d)", name, own, spans.OwnAttributes())
		}
		if _, ok := sp.Attrs[string(usage.AttrSamples)]; !ok {
			t.Errorf("%s: no usage: %v", name, sp.Attrs)
		}
		if sp.Attrs["cicd.pipeline.task.run.result"] == nil {
			t.Errorf("%s: no result", name)
		}
	}
	if n := got["build"].Attrs["jobtrace.dropped.attributes"]; fmt.Sprint(n) != fmt.Sprint(200-spans.MaxUserAttributes+200-spans.MaxUserAttributes) {
		t.Errorf("jobtrace.dropped.attributes = %v", n)
	}
	out := log.String()
	if strings.Count(out, "attribute \"") != 1 || !strings.Contains(out, "attributes past a span's limit") {
		t.Errorf("the excess is not said once and in the summary:\n%s", out)
	}
}

// A Go program's calls are checked by the rules a socket message is
// (protocol.Validate): refused alike, with the reason, and nothing
// recorded. Before, a call had a check of its own, the same bounds written
// again with messages of their own, which did not say which rule refused.
func TestCallsAreCheckedAsSocketMessages(t *testing.T) {
	s := New(Settings{Name: "job", Out: t.TempDir(), Summary: "off"})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	many := make([]attribute.KeyValue, protocol.MaxAttrs+1)
	for i := range many {
		many[i] = attribute.Int(fmt.Sprintf("k%d", i), i)
	}
	for what, err := range map[string]error{
		"65 attributes":     s.Event("e", many...),
		"an unknown result": s.End("p", "ok"),
		"an add backwards":  s.AddPhase("p", time.Now(), time.Now().Add(-time.Second), ""),
		"no name":           s.Begin(""),
		"an empty key":      s.Event("e", attribute.String("", "v")),
		"a key too long":    s.Begin("p", attribute.String(strings.Repeat("k", protocol.MaxNameBytes+1), "v")),
	} {
		if !errors.Is(err, ErrRefused) || !errors.Is(err, protocol.ErrParse) {
			t.Errorf("%s: %v, want ErrRefused and the message's rule (protocol.ErrParse)", what, err)
		}
	}
	if r := s.Handle(protocol.Msg{Type: protocol.TypeAttr, Attrs: []attribute.KeyValue{attribute.String("", "v")}, Syntax: protocol.SyntaxGo}); r.OK {
		t.Errorf("Handle of an empty key: %+v, want refused", r)
	}
	if _, err := s.Shutdown(context.Background(), Outcome{}); err != nil {
		t.Fatal(err)
	}
}
