package e2e

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func allSpans(span) bool { return true }

// jobEnv is the environment for jobtrace and its job: the test's clean
// environment, .cache/bin first on PATH (the job scripts call jobtrace and
// childspan by name), OTLP export to endpoint with protocol, and extra.
func jobEnv(endpoint, protocol string, extra ...string) []string {
	env := cleanEnv()
	for i, kv := range env {
		if strings.HasPrefix(kv, "PATH=") {
			env[i] = "PATH=" + binaries.dir + string(os.PathListSeparator) + strings.TrimPrefix(kv, "PATH=")
		}
	}
	env = append(env,
		"OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint,
		"OTEL_EXPORTER_OTLP_PROTOCOL="+protocol,
		"OTEL_EXPORTER_OTLP_INSECURE=true",
	)
	return append(env, extra...)
}

// jobtraceRun is a jobtrace process started by a test.
type jobtraceRun struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	done           chan struct{} // closed when cmd.Wait returned
	waitErr        error
	exitedAt       time.Time
	started        time.Time
}

// jobtraceResult is how a jobtrace process ended.
type jobtraceResult struct {
	ExitCode       int
	Stdout, Stderr string
	Elapsed        time.Duration
	ExitedAt       time.Time
}

// startJobtrace starts the jobtrace binary; no run may take longer than two
// minutes, so a hang fails the test instead of the whole suite.
func startJobtrace(t *testing.T, env []string, args ...string) *jobtraceRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	r := &jobtraceRun{done: make(chan struct{})}
	r.cmd = exec.CommandContext(ctx, requireJobtrace(t), args...)
	r.cmd.Env = env
	r.cmd.Stdout = &r.stdout
	r.cmd.Stderr = &r.stderr
	r.cmd.WaitDelay = 5 * time.Second
	r.started = time.Now()
	if err := r.cmd.Start(); err != nil {
		t.Fatalf("starting jobtrace %s: %v", strings.Join(args, " "), err)
	}
	go func() {
		r.waitErr = r.cmd.Wait()
		r.exitedAt = time.Now()
		close(r.done)
	}()
	return r
}

// exited reports whether the process has ended.
func (r *jobtraceRun) exited() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

func (r *jobtraceRun) wait(t *testing.T) jobtraceResult {
	t.Helper()
	<-r.done
	res := jobtraceResult{
		ExitCode: r.cmd.ProcessState.ExitCode(),
		Stdout:   r.stdout.String(),
		Stderr:   r.stderr.String(),
		Elapsed:  r.exitedAt.Sub(r.started),
		ExitedAt: r.exitedAt,
	}
	var exitErr *exec.ExitError
	if r.waitErr != nil && !errors.As(r.waitErr, &exitErr) {
		t.Fatalf("jobtrace %s: %v\nstderr:\n%s", strings.Join(r.cmd.Args[1:], " "), r.waitErr, res.Stderr)
	}
	return res
}

func runJobtrace(t *testing.T, env []string, args ...string) jobtraceResult {
	t.Helper()
	return startJobtrace(t, env, args...).wait(t)
}

// jobSpans reads DIR/spans.otlp.jsonl and returns its spans and the trace id
// of the job's root span, checking that the file holds one trace with no span
// twice.
func jobSpans(t *testing.T, dir, rootName string) ([]span, string) {
	t.Helper()
	path := filepath.Join(dir, "spans.otlp.jsonl")
	spans, err := readSpansFile(path)
	if err != nil {
		t.Fatalf("reading the spans artifact: %v", err)
	}
	root, ok := findSpan(spans, rootName)
	if !ok {
		t.Fatalf("%s has no root span %q; it has:\n%s", path, rootName, renderTree(spans, allSpans))
	}
	if root.ParentSpanID != "" {
		t.Errorf("root span %q has parent %s; the test gave jobtrace no TRACEPARENT", rootName, root.ParentSpanID)
	}
	seen := map[string]bool{}
	for _, s := range spans {
		if s.TraceID != root.TraceID {
			t.Errorf("span %q in %s has trace id %s, want the root's %s", s.Name, path, s.TraceID, root.TraceID)
		}
		if seen[s.SpanID] {
			t.Errorf("span %q (%s) is in %s twice", s.Name, s.SpanID, path)
		}
		seen[s.SpanID] = true
	}
	return spans, root.TraceID
}

// checkExactlyOnce fails unless every span in want is in got exactly once and
// got has nothing else, apart from spans accepted by also.
func checkExactlyOnce(t *testing.T, got, want []span, also func(span) bool) {
	t.Helper()
	count := map[string]int{}
	for _, s := range got {
		count[s.SpanID]++
	}
	wanted := map[string]bool{}
	for _, s := range want {
		wanted[s.SpanID] = true
		if n := count[s.SpanID]; n != 1 {
			t.Errorf("span %q (%s) is in Jaeger %d times, want once", s.Name, s.SpanID, n)
		}
	}
	for _, s := range got {
		if !wanted[s.SpanID] && !also(s) {
			t.Errorf("Jaeger has span %q (%s), which is not in the artifact", s.Name, s.SpanID)
		}
	}
}

func hasLine(out, line string) bool {
	for _, l := range strings.Split(out, "\n") {
		if l == line {
			return true
		}
	}
	return false
}

// TestDemoJobGRPC runs the demo job with export over OTLP/gRPC and checks the
// trace Jaeger shows.
func TestDemoJobGRPC(t *testing.T) { testDemoJob(t, "grpc") }

// TestDemoJobHTTP is the same over OTLP/HTTP with protobuf bodies.
func TestDemoJobHTTP(t *testing.T) { testDemoJob(t, "http/protobuf") }

func testDemoJob(t *testing.T, protocol string) {
	requireJobtrace(t)
	jaeger := StartJaeger(t)
	collector := StartCollector(t, jaeger.OTLPGRPC)
	endpoint := collector.GRPCEndpoint()
	if protocol == "http/protobuf" {
		endpoint = collector.HTTPEndpoint()
	}
	out := filepath.Join(t.TempDir(), "out")
	script, err := filepath.Abs(filepath.Join("testdata", "demo-job.sh"))
	if err != nil {
		t.Fatal(err)
	}

	res := runJobtrace(t, jobEnv(endpoint, protocol),
		"run", "--out", out, "--name", "demo", "--export-timeout", "10s", "--", "sh", script)
	t.Logf("jobtrace run took %s; stderr:\n%s", res.Elapsed.Round(time.Millisecond), res.Stderr)
	if res.ExitCode != 3 {
		t.Fatalf("jobtrace run exited %d, want the job's 3\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	// Marker lines stay in the output unchanged.
	for _, line := range []string{
		"BEGIN_PHASE build", "::group::Compile", "compiling", "::endgroup::", "linking",
		"vetting", "END_PHASE build", "integration: 1 test failed",
		"integration failed as expected", "signing",
	} {
		if !hasLine(res.Stdout, line) {
			t.Errorf("job output lacks the line %q\nstdout:\n%s", line, res.Stdout)
		}
	}
	for _, re := range []string{
		`(?m)^section_start:\d+:link\[collapsed=true\]\r\x1b\[0KLinking$`,
		`(?m)^section_end:\d+:link\r\x1b\[0K$`,
	} {
		if !regexp.MustCompile(re).MatchString(res.Stdout) {
			t.Errorf("job output has no line matching %s\nstdout:\n%s", re, res.Stdout)
		}
	}
	// jobtrace's own messages go to stderr, never into the job's stdout.
	for _, l := range strings.Split(res.Stdout, "\n") {
		if strings.HasPrefix(l, "jobtrace:") {
			t.Errorf("jobtrace wrote into the job's stdout: %q", l)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "spans.otlp.jsonl.sent")); err != nil {
		t.Errorf("delivery record: %v", err)
	}

	fileSpans, traceID := jobSpans(t, out, "demo")
	// The two childspan spans go from the child straight to the collector; they
	// are in Jaeger but not in jobtrace's artifact.
	spans := jaeger.WaitForSpans(t, traceID, len(fileSpans)+2, 30*time.Second)
	checkExactlyOnce(t, spans, fileSpans, func(s span) bool { return s.Resource["service.name"] == "childspan" })

	const wantTree = `demo [error]
  build
    Compile
    link
    vet
  jobtrace shutdown
  jobtrace startup
  package
    sign
  report
  test [error]
    integration [error]
    unit
      unit-child
`
	if got := renderTree(spans, allSpans); got != wantTree {
		t.Errorf("trace tree in Jaeger (children sorted by name):\n%s\nwant:\n%s", got, wantTree)
	}

	// Each phase says which marker source it came from (docs/attributes.md).
	for name, source := range map[string]string{
		"build": "phase", "Compile": "github", "link": "gitlab", "vet": "exec",
		"test": "socket", "unit": "exec", "integration": "exec",
		"package": "markerdir", "sign": "markerdir",
	} {
		s, _ := findSpan(spans, name)
		if got := s.Attrs["jobtrace.phase.source"]; got != source {
			t.Errorf("span %s: jobtrace.phase.source = %q, want %q", name, got, source)
		}
	}
	if link, _ := findSpan(spans, "link"); link.Attrs["jobtrace.phase.title"] != "Linking" {
		t.Errorf("span link: jobtrace.phase.title = %q, want the section header Linking", link.Attrs["jobtrace.phase.title"])
	}
	for name, want := range map[string]string{"integration": "1", "unit": "0", "vet": "0"} {
		s, _ := findSpan(spans, name)
		if got := s.Attrs["process.exit.code"]; got != want {
			t.Errorf("span %s: process.exit.code = %q, want %s", name, got, want)
		}
	}
	if test, _ := findSpan(spans, "test"); test.Attrs["cicd.pipeline.task.run.result"] != "failure" {
		t.Errorf("span test: cicd.pipeline.task.run.result = %q, want failure", test.Attrs["cicd.pipeline.task.run.result"])
	}

	root, _ := findSpan(spans, "demo")
	for k, want := range map[string]string{
		"cicd.pipeline.task.name":       "demo",
		"cicd.pipeline.task.run.result": "failure",
		"process.exit.code":             "3",
	} {
		if got, ok := root.Attrs[k]; !ok || got != want {
			t.Errorf("root span attribute %s = %q (present %v), want %q", k, got, ok, want)
		}
	}
	if root.Resource["service.name"] == "" {
		t.Errorf("root span has no service.name resource attribute: %v", root.Resource)
	}
	// The job's verdict and advice, and every phase's verdict, reach
	// Jaeger as the artifact has them; the phases that ran a process
	// (their usage measured) carry one.
	checkVerdictsInJaeger(t, jaeger, spans, fileSpans, traceID, "demo", []string{"build", "test", "unit", "integration", "vet"})

	test, _ := findSpan(spans, "test")
	var flaky *event
	for i, e := range test.Events {
		if e.Name == "flaky-test" {
			flaky = &test.Events[i]
		}
	}
	if flaky == nil {
		t.Errorf("span test has no event flaky-test; events: %+v", test.Events)
	} else if flaky.Attrs["test"] != "TestFlaky" {
		t.Errorf("event flaky-test attributes %v, want test=TestFlaky", flaky.Attrs)
	}

	// The child program joined the trace where jobtrace said: under the exec
	// span for `jobtrace exec unit`, and under the root for the job itself.
	for child, parent := range map[string]string{"unit-child": "unit", "report": "demo"} {
		c, _ := findSpan(spans, child)
		p, _ := findSpan(spans, parent)
		if c.ParentSpanID != p.SpanID || c.TraceID != traceID {
			t.Errorf("span %s: trace %s parent %s, want trace %s parent %s (%s)", child, c.TraceID, c.ParentSpanID, traceID, p.SpanID, parent)
		}
		if c.Resource["service.name"] != "childspan" || c.Attrs["e2e.child"] != "true" {
			t.Errorf("span %s is not from childspan: resource %v attributes %v", child, c.Resource, c.Attrs)
		}
	}
}

// TestCollectorOutageThenReplay stops the collector in the middle of a job:
// the job must still end with its own exit code, jobtrace must not wait past
// its export timeout, and `jobtrace replay` must later deliver every span of
// the artifact to Jaeger exactly once, however many were delivered before the
// outage.
func TestCollectorOutageThenReplay(t *testing.T) {
	requireJobtrace(t)
	jaeger := StartJaeger(t)
	collector := StartCollector(t, jaeger.OTLPGRPC)
	out := filepath.Join(t.TempDir(), "out")
	syncDir := t.TempDir()
	script, err := filepath.Abs(filepath.Join("testdata", "outage-job.sh"))
	if err != nil {
		t.Fatal(err)
	}
	env := jobEnv(collector.GRPCEndpoint(), "grpc", "E2E_SYNC="+syncDir)
	const exportTimeout = 3 * time.Second

	run := startJobtrace(t, env,
		"run", "--out", out, "--name", "outage", "--export-timeout", exportTimeout.String(), "--", "sh", script)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = poll(ctx, 50*time.Millisecond, func() error {
		if run.exited() {
			return nil
		}
		_, err := os.Stat(filepath.Join(syncDir, "stop-collector"))
		return err
	})
	if err != nil || run.exited() {
		res := run.wait(t)
		t.Fatalf("the job never asked for the outage (%v); jobtrace exit %d\nstdout:\n%s\nstderr:\n%s", err, res.ExitCode, res.Stdout, res.Stderr)
	}
	collector.Stop(t)
	if err := os.WriteFile(filepath.Join(syncDir, "collector-stopped"), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	res := run.wait(t)
	t.Logf("jobtrace run stderr:\n%s", res.Stderr)
	if res.ExitCode != 7 {
		t.Fatalf("jobtrace run exited %d, want the job's 7\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	jobExit, err := readUnixTime(filepath.Join(syncDir, "job-exit"))
	if err != nil {
		t.Fatal(err)
	}
	// A second of slack for process start-up and scheduling on a busy machine.
	delay := res.ExitedAt.Sub(jobExit)
	t.Logf("jobtrace ended %s after the job, with the collector down", delay.Round(time.Millisecond))
	if delay > exportTimeout+time.Second {
		t.Errorf("jobtrace ended %s after the job; the export timeout is %s", delay.Round(time.Millisecond), exportTimeout)
	}

	fileSpans, traceID := jobSpans(t, out, "outage")
	const wantTree = `outage [error]
  before-outage
    warmup
  during-outage
    step
  jobtrace shutdown
  jobtrace startup
`
	if got := renderTree(fileSpans, allSpans); got != wantTree {
		t.Errorf("trace tree in the artifact:\n%s\nwant:\n%s", got, wantTree)
	}
	before, err := jaeger.Trace(context.Background(), traceID)
	if err != nil && !errors.Is(err, errTraceNotFound) {
		t.Fatal(err)
	}
	t.Logf("before replay, Jaeger has %d of the %d spans in the artifact", len(before), len(fileSpans))

	collector.Start(t)
	rep := runJobtrace(t, env, "replay", out)
	t.Logf("jobtrace replay: exit %d\nstdout:\n%s\nstderr:\n%s", rep.ExitCode, rep.Stdout, rep.Stderr)
	if rep.ExitCode != 0 {
		t.Fatalf("jobtrace replay exited %d, want 0", rep.ExitCode)
	}
	jaeger.WaitForSpans(t, traceID, len(fileSpans), 30*time.Second)
	// Late duplicates would arrive within the collector's forwarding delay.
	time.Sleep(time.Second)
	spans, err := jaeger.Trace(context.Background(), traceID)
	if err != nil {
		t.Fatal(err)
	}
	checkExactlyOnce(t, spans, fileSpans, func(span) bool { return false })

	step, _ := findSpan(spans, "step")
	if len(step.Events) != 1 || step.Events[0].Name != "retry" || step.Events[0].Attrs["attempt"] != "2" {
		t.Errorf("span step events %+v, want one retry with attempt=2", step.Events)
	}

	// Everything is delivered now: a second replay sends nothing and succeeds.
	rep = runJobtrace(t, env, "replay", out)
	if rep.ExitCode != 0 {
		t.Fatalf("second jobtrace replay exited %d, want 0\nstdout:\n%s\nstderr:\n%s", rep.ExitCode, rep.Stdout, rep.Stderr)
	}
	time.Sleep(time.Second)
	spans, err = jaeger.Trace(context.Background(), traceID)
	if err != nil {
		t.Fatal(err)
	}
	checkExactlyOnce(t, spans, fileSpans, func(span) bool { return false })
}

// readUnixTime reads a `date +%s.%N` timestamp.
func readUnixTime(path string) (time.Time, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return time.Time{}, err
	}
	sec, frac, _ := strings.Cut(strings.TrimSpace(string(data)), ".")
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %w", path, err)
	}
	var ns int64
	if frac != "" {
		frac = (frac + "000000000")[:9]
		if ns, err = strconv.ParseInt(frac, 10, 64); err != nil {
			return time.Time{}, fmt.Errorf("%s: %w", path, err)
		}
	}
	return time.Unix(s, ns), nil
}

// TestCollectorNeverAnswers points jobtrace at an endpoint that accepts
// connections and never says a word, the worst case for an exporter: the
// job's exit code must stand and jobtrace must end within its export timeout
// after the job, over gRPC and over HTTP.
func TestCollectorNeverAnswers(t *testing.T) {
	requireJobtrace(t)
	for _, tc := range []struct{ name, protocol string }{
		{"grpc", "grpc"},
		{"http", "http/protobuf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := startSilentListener(t)
			out := filepath.Join(t.TempDir(), "out")
			syncDir := t.TempDir()
			env := jobEnv("http://"+addr, tc.protocol, "E2E_SYNC="+syncDir)
			const exportTimeout = 2 * time.Second
			job := `echo "BEGIN_PHASE work"; sleep 0.2; echo "END_PHASE work"; date +%s.%N > "$E2E_SYNC/job-exit"; exit 5`

			res := runJobtrace(t, env, "run", "--out", out, "--name", "silent",
				"--export-timeout", exportTimeout.String(), "--", "sh", "-c", job)
			t.Logf("jobtrace run stderr:\n%s", res.Stderr)
			if res.ExitCode != 5 {
				t.Fatalf("jobtrace run exited %d, want the job's 5\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
			}
			jobExit, err := readUnixTime(filepath.Join(syncDir, "job-exit"))
			if err != nil {
				t.Fatal(err)
			}
			delay := res.ExitedAt.Sub(jobExit)
			t.Logf("jobtrace ended %s after the job, with a collector that never answers", delay.Round(time.Millisecond))
			if delay > exportTimeout+time.Second {
				t.Errorf("jobtrace ended %s after the job; the export timeout is %s", delay.Round(time.Millisecond), exportTimeout)
			}
			spans, _ := jobSpans(t, out, "silent")
			if _, ok := findSpan(spans, "work"); !ok {
				t.Errorf("the artifact has no span work:\n%s", renderTree(spans, allSpans))
			}
		})
	}
}

// startSilentListener accepts TCP connections on a loopback port, reads and
// discards what arrives and never answers, until the test ends.
func startSilentListener(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go io.Copy(io.Discard, c)
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}
