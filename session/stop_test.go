package session

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/socket"
	"github.com/jobtrace/jobtrace/supervise"
)

// envOf returns the value of key among env's KEY=VALUE entries.
func envOf(env []string, key string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// A stop message on the socket reaches Settings.Stop, whose reply the
// sender gets; the session then ends with the result told, which its span
// carries without an exit code, with the outcome's attributes.
func TestStopMessageAndToldResult(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var log syncBuffer
	stops := make(chan protocol.Msg, 1)
	s := New(Settings{
		Name: "steps", Out: dir, ExportTimeout: time.Second, Socket: true,
		Resource: sdkresource.Empty(), Summary: "text", Log: supervise.NewLogger(&log),
		Stop: func(m protocol.Msg) protocol.Reply { stops <- m; return protocol.Reply{OK: true} },
	})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	env := s.StepEnv()
	if envOf(env, "TRACEPARENT") == "" || envOf(env, EnvMarkerDir) != "" {
		t.Errorf("step environment %q: want TRACEPARENT and the socket, no marker dir (off)", env)
	}
	before := s.Messages()
	c, err := socket.Dial(envOf(env, EnvSocket))
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Request(protocol.Msg{V: protocol.Version, Type: protocol.TypeStop, Result: protocol.ResultCancellation})
	c.Close()
	if err != nil || !r.OK {
		t.Fatalf("stop: %v %+v", err, r)
	}
	if m := <-stops; m.Result != protocol.ResultCancellation {
		t.Errorf("Stop was given %+v", m)
	}
	if after := s.Messages(); after <= before {
		t.Errorf("Messages did not grow with a connection and a message: %d, then %d", before, after)
	}
	res, err := s.Shutdown(context.Background(), Outcome{Result: protocol.ResultCancellation,
		Attrs: []attribute.KeyValue{attribute.Bool("jobtrace.job.stopped", true)}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Result != protocol.ResultCancellation {
		t.Errorf("result %q", res.Result)
	}
	job := readSpool(t, dir)["steps"].Attrs
	if _, ok := job[string(semconv.ProcessExitCodeKey)]; ok || job["jobtrace.job.stopped"] != true ||
		job[string(semconv.CICDPipelineTaskRunResultKey)] != protocol.ResultCancellation {
		t.Errorf("job span attributes %v", job)
	}
	if out := log.String(); !strings.Contains(out, `job "steps" ended with result cancellation`) {
		t.Errorf("end line missing:\n%s", out)
	}
}

// A job that was cancelled (told so, or killed by a signal) or skipped
// did not fail: its span carries the result without the status Error, as
// a phase's does (wire.Failed), and a phase still open ends with the job's
// result, without it too. A job that failed has the status Error.
func TestCancelledOrSkippedJobIsNotAnError(t *testing.T) {
	for _, c := range []struct {
		name   string
		o      Outcome
		result string
		status ptrace.StatusCode
	}{
		{"told cancellation", Outcome{Result: protocol.ResultCancellation}, protocol.ResultCancellation, ptrace.StatusCodeUnset},
		{"killed by SIGTERM", Outcome{Code: supervise.ExitSignalBase + 15}, protocol.ResultCancellation, ptrace.StatusCodeUnset},
		{"told skip", Outcome{Result: protocol.ResultSkip}, protocol.ResultSkip, ptrace.StatusCodeUnset},
		{"exit 2", Outcome{Code: 2}, protocol.ResultFailure, ptrace.StatusCodeError},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			var log syncBuffer
			s := New(Settings{Name: "job", Out: dir, ExportTimeout: time.Second,
				Resource: sdkresource.Empty(), Summary: "off", Log: supervise.NewLogger(&log)})
			if err := s.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			if err := s.Begin("left-open"); err != nil {
				t.Fatal(err)
			}
			res, err := s.Shutdown(context.Background(), c.o)
			if err != nil {
				t.Fatal(err)
			}
			if res.Result != c.result {
				t.Errorf("result %q, want %q", res.Result, c.result)
			}
			spans := readSpool(t, dir)
			for _, name := range []string{"job", "left-open"} {
				sp := spans[name]
				if got := sp.Attrs[string(semconv.CICDPipelineTaskRunResultKey)]; got != c.result || sp.Status != c.status {
					t.Errorf("%s span: result %v, status %v; want %s, %v", name, got, sp.Status, c.result, c.status)
				}
			}
		})
	}
}

// A session without Stop (jobtrace run's) refuses a stop message.
func TestStopRefusedWithoutStop(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var log syncBuffer
	s := New(Settings{Out: dir, ExportTimeout: time.Second, Socket: true,
		Resource: sdkresource.Empty(), Summary: "off", Log: supervise.NewLogger(&log)})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(context.Background(), Outcome{})
	if r := s.handleSocket(protocol.Msg{Type: protocol.TypeStop}); r.OK || !strings.Contains(r.Error, "jobtrace start") {
		t.Errorf("stop without Settings.Stop: %+v", r)
	}
}
