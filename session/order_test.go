//go:build unix

package session

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/internal/otlptest"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/scan"
	"github.com/jobtrace/jobtrace/spans/socket"
	"github.com/jobtrace/jobtrace/supervise"
)

// TestHelperPhaseClient is not a test: TestMarkerBeforeSocketBeginIsItsParent
// runs the test binary inside the job as `jobtrace phase begin|end` would.
func TestHelperPhaseClient(t *testing.T) {
	if os.Getenv("JOBTRACE_TEST_CLIENT") != "1" {
		t.Skip("helper process")
	}
	c, err := socket.Dial(os.Getenv(EnvSocket))
	if err != nil {
		os.Exit(3)
	}
	for _, typ := range []protocol.Type{protocol.TypeBegin, protocol.TypeEnd} {
		r, err := c.Request(protocol.Msg{V: protocol.Version, Type: typ, Name: "compile", Syntax: protocol.SyntaxSocket, Time: time.Now()})
		if err != nil || !r.OK {
			os.Exit(4)
		}
	}
	os.Exit(0)
}

// TestMarkerBeforeSocketBeginIsItsParent makes the race of the README's
// demo certain: the job prints `::group::Build`, then begins `compile` over
// the socket, and the scanner is held until the socket message is being
// handled, so it scans the group after the client stamped its message.
// compile must be a child of Build and lie inside it.
func TestMarkerBeforeSocketBeginIsItsParent(t *testing.T) {
	var once sync.Once
	syncing := make(chan struct{})
	checkMarkerThenSocketBegin(t, testHooks{
		sync: func() { once.Do(func() { close(syncing) }) },
		tap:  func() { <-syncing },
	})
}

// TestSocketBeginBeforeStartJobReturned: on a loaded machine the job can
// print its marker and talk to the socket before StartJob has returned to
// the agent. Here the agent is held there until the socket message is being
// handled, and the scanner until then too: the message must still wait for
// the output before it.
func TestSocketBeginBeforeStartJobReturned(t *testing.T) {
	var once sync.Once
	syncing := make(chan struct{})
	checkMarkerThenSocketBegin(t, testHooks{
		sync:    func() { once.Do(func() { close(syncing) }) },
		tap:     func() { <-syncing },
		started: func() { <-syncing },
	})
}

// checkMarkerThenSocketBegin runs a job that prints `::group::Build`, then
// begins and ends `compile` over the socket: compile must be a child of
// Build and lie inside it.
func checkMarkerThenSocketBegin(t *testing.T, hooks testHooks) {
	t.Helper()
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	errf, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer errf.Close()
	env := append(os.Environ(), "JOBTRACE_TEST_CLIENT=1")
	s := New(Settings{
		Name: "job", Out: filepath.Join(dir, "out"), ExportTimeout: time.Second,
		Scan:     scan.Options{Phase: true, GitHub: true, GitLab: true},
		Socket:   true,
		Resource: sdkresource.Empty(),
		Env:      env, Log: supervise.NewLogger(errf), Summary: "off",
		Child: true, hooks: hooks,
	})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	stdout, stderr := s.Output()
	job, err := supervise.Start(supervise.Options{
		Args:   []string{"sh", "-c", `echo "::group::Build"; "$0" -test.run='^TestHelperPhaseClient$' || exit 9; echo "::endgroup::"`, os.Args[0]},
		Env:    s.JobEnv(env),
		Stdout: out, Stderr: errf, OutStdout: stdout, OutStderr: stderr,
		GracePeriod: time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	s.JobStarted(job)
	code := job.Wait()
	if _, err := s.Shutdown(context.Background(), Outcome{Code: code}); err != nil {
		t.Fatal(err)
	}
	if code != 0 {
		logs, _ := os.ReadFile(errf.Name())
		t.Fatalf("exit code %d; stderr %s", code, logs)
	}
	got := map[string]*tracepb.Span{}
	err = spool.ReadLines(filepath.Join(dir, "out", spool.TracesFile), 0, func(td ptrace.Traces, _ int, _ int64) error {
		req := otlptest.Proto(t, td)
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					got[s.Name] = s
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	build, compile := got["Build"], got["compile"]
	if build == nil || compile == nil {
		t.Fatalf("spans %v", got)
	}
	if string(compile.ParentSpanId) != string(build.SpanId) {
		t.Errorf("compile is not a child of Build")
	}
	if compile.StartTimeUnixNano < build.StartTimeUnixNano || compile.EndTimeUnixNano > build.EndTimeUnixNano {
		t.Errorf("compile (%d .. %d) is not inside Build (%d .. %d)",
			compile.StartTimeUnixNano, compile.EndTimeUnixNano, build.StartTimeUnixNano, build.EndTimeUnixNano)
	}
}
