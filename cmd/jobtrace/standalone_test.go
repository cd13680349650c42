//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/jobtrace/jobtrace/internal/otlptest"
)

func TestStandalonePhaseSpansBothCalls(t *testing.T) {
	c := &otlptest.Collector{}
	h := otlptest.StartHTTP(t, "127.0.0.1:0", c)
	state := t.TempDir()
	tp := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	env := []string{"TRACEPARENT=" + tp, "JOBTRACE_STATE_DIR=" + state, "OTEL_EXPORTER_OTLP_ENDPOINT=http://" + h.Addr}
	if r := jt(t, env, "phase", "begin", "deploy", "--attr", "env=staging"); r.code != 0 || r.stderr != "" {
		t.Fatalf("begin: %d %q", r.code, r.stderr)
	}
	if len(c.SpanNames()) != 0 {
		t.Fatalf("exported before the end")
	}
	if r := jt(t, env, "phase", "end", "deploy", "--result", "failure"); r.code != 0 {
		t.Fatalf("end: %d %q", r.code, r.stderr)
	}
	if got := strings.Join(c.SpanNames(), ","); got != "deploy" {
		t.Fatalf("collector got %q", got)
	}
	if r := jt(t, env, "phase", "end", "deploy"); r.code != 0 || !strings.Contains(r.stderr, "no phase of that name") {
		t.Errorf("second end: %d %q", r.code, r.stderr)
	}
	entries, _ := os.ReadDir(state)
	if len(entries) != 0 {
		t.Errorf("state left behind: %v", entries)
	}
}

func TestStandaloneWithoutCollectorKeepsSpansInOut(t *testing.T) {
	state := t.TempDir()
	out := t.TempDir()
	env := []string{"JOBTRACE_STATE_DIR=" + state, "JOBTRACE_OUT=" + out}
	jt(t, env, "phase", "begin", "p")
	jt(t, env, "phase", "end", "p")
	jt(t, env, "event", "e", "--attr", "k=v")
	spans, _ := spansOf(t, out)
	if spans["p"] == nil || spans["e"] == nil || len(spans["e"].Events) != 1 {
		t.Errorf("spans kept: %v", spans)
	}
}

func TestSDKDisabledExportsNothing(t *testing.T) {
	c := &otlptest.Collector{}
	h := otlptest.StartHTTP(t, "127.0.0.1:0", c)
	r := jt(t, []string{"OTEL_SDK_DISABLED=true", "OTEL_EXPORTER_OTLP_ENDPOINT=http://" + h.Addr}, "run", "--", "true")
	if r.code != 0 || len(c.SpanNames()) != 0 {
		t.Errorf("code %d, %d spans exported", r.code, len(c.SpanNames()))
	}
	if spans, _ := spansOf(t, r.out); spans["true"] == nil {
		t.Errorf("no local artifacts")
	}
}

func TestLogFileTakesJobtracesMessages(t *testing.T) {
	log := filepath.Join(t.TempDir(), "jobtrace.log")
	r := jt(t, nil, "run", "--log", log, "--", "sh", "-c", "echo to-stderr >&2")
	data, _ := os.ReadFile(log)
	if r.stderr != "to-stderr\n" {
		t.Errorf("stderr = %q, want only the job's", r.stderr)
	}
	if !strings.Contains(string(data), "jobtrace: ") || !strings.Contains(string(data), "spans written") {
		t.Errorf("log file = %q", data)
	}
}

func TestOutputPatternsBecomeEventsAndCounters(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "jobtrace.yaml")
	os.WriteFile(cfg, []byte(`markers:
  patterns:
    - regex: 'HTTP 5\d\d'
      event: http-5xx
      counter: http_5xx
`), 0o644)
	r := jt(t, nil, "run", "--config", cfg, "--name", "job", "--", "sh", "-c", "echo 'GET / HTTP 503'; echo fine; echo 'HTTP 500 again' >&2")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	spans, _ := spansOf(t, r.out)
	job := spans["job"]
	var events []*tracepb.Span_Event
	for _, e := range job.Events {
		if e.Name == "http-5xx" {
			events = append(events, e)
		}
	}
	if len(events) != 2 {
		t.Errorf("%d pattern events, want 2: %v", len(events), job.Events)
	}
	if got := attrOf(job, "jobtrace.user.http_5xx"); got != "2" {
		t.Errorf("counter total %q, want 2", got)
	}
	if !strings.Contains(fmt.Sprint(events), "GET / HTTP 503") {
		t.Errorf("event lacks the line: %v", events)
	}
}
