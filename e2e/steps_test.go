package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// stepsJob is a job traced with `jobtrace start` and `jobtrace stop`, its
// steps run as separate processes as a CI system runs them, exporting to
// Jaeger's OTLP/HTTP receiver.
type stepsJob struct {
	t      *testing.T
	jaeger *Jaeger
	out    string
	env    []string // the environment of every process: no TRACEPARENT, no socket
}

func newStepsJob(t *testing.T) *stepsJob {
	requireJobtrace(t)
	jaeger := StartJaeger(t)
	j := &stepsJob{t: t, jaeger: jaeger, out: filepath.Join(t.TempDir(), "out"),
		env: jobEnv("http://"+jaeger.OTLPHTTP, "http/protobuf", "OTEL_METRICS_EXPORTER=none")}
	// An agent a failed test leaves is ended with it.
	t.Cleanup(func() { runJobtrace(t, j.env, "stop", "--out", j.out) })
	return j
}

// start starts the agent and returns the steps' environment: the job's
// plus what start printed.
func (j *stepsJob) start(args ...string) []string {
	j.t.Helper()
	res := runJobtrace(j.t, j.env, append([]string{"start", "--out", j.out, "--name", "steps", "--interval", "100ms", "--export-timeout", "10s"}, args...)...)
	if res.ExitCode != 0 {
		j.t.Fatalf("start exited %d\n%s", res.ExitCode, res.Stderr)
	}
	return append(append([]string{}, j.env...), strings.Fields(res.Stdout)...)
}

// step runs `jobtrace exec NAME -- sh -c SCRIPT` with env.
func (j *stepsJob) step(env []string, name, script string, code int) {
	j.t.Helper()
	if res := runJobtrace(j.t, env, "exec", name, "--", "sh", "-c", script); res.ExitCode != code {
		j.t.Fatalf("step %s exited %d, want %d\n%s", name, res.ExitCode, code, res.Stderr)
	}
}

// fromJaeger reads the job's trace back from Jaeger once it has every span
// of the spool, and checks its tree.
func (j *stepsJob) fromJaeger(wantTree string) []span {
	j.t.Helper()
	fileSpans, traceID := jobSpans(j.t, j.out, "steps")
	spans := j.jaeger.WaitForSpans(j.t, traceID, len(fileSpans), 30*time.Second)
	checkExactlyOnce(j.t, spans, fileSpans, func(span) bool { return false })
	if got := renderTree(spans, allSpans); got != wantTree {
		j.t.Errorf("trace tree in Jaeger (children sorted by name):\n%s\nwant:\n%s", got, wantTree)
	}
	return spans
}

// A job run as separate processes (start; three steps, one failing; stop
// from a process without the steps' environment) is one trace in Jaeger,
// the steps under the job's span, each with its resource figures.
func TestStepsStartStop(t *testing.T) {
	j := newStepsJob(t)
	env := j.start()
	j.step(env, "compile", "i=0; while [ $i -lt 50000 ]; do i=$((i+1)); done", 0)
	j.step(env, "test", "sleep 0.3; exit 3", 3)
	j.step(env, "package", "head -c 4000000 /dev/urandom | gzip > /dev/null", 0)
	res := runJobtrace(t, j.env, "stop", "--out", j.out, "--result", "failure")
	t.Logf("stop took %s; stderr:\n%s", res.Elapsed.Round(time.Millisecond), res.Stderr)
	if res.ExitCode != 0 || !strings.Contains(res.Stderr, "exported to") {
		t.Fatalf("stop exited %d\n%s", res.ExitCode, res.Stderr)
	}
	spans := j.fromJaeger(`steps [error]
  compile
  jobtrace shutdown
  jobtrace startup
  package
  test [error]
`)
	for _, name := range []string{"compile", "test", "package"} {
		s, _ := findSpan(spans, name)
		for _, k := range []string{"jobtrace.usage.samples", "jobtrace.usage.cpu.user", "jobtrace.system.cpu.utilization.avg", "jobtrace.system.memory.peak",
			"jobtrace.phase.verdict", "jobtrace.phase.verdict.reason"} {
			if s.Attrs[k] == "" {
				t.Errorf("step %s has no %s: %v", name, k, s.Attrs)
			}
		}
	}
	root, _ := findSpan(spans, "steps")
	if root.Attrs["jobtrace.phase.verdict"] == "" {
		t.Errorf("the job span has no verdict: %v", root.Attrs)
	}
	for k, want := range map[string]string{"cicd.pipeline.task.run.result": "failure", "jobtrace.job.stopped": "true", "jobtrace.job.end_reason": "stop"} {
		if got := root.Attrs[k]; got != want {
			t.Errorf("job span %s = %q, want %q", k, got, want)
		}
	}
	if test, _ := findSpan(spans, "test"); test.Attrs["process.exit.code"] != "3" {
		t.Errorf("step test: process.exit.code = %q", test.Attrs["process.exit.code"])
	}
}

// An agent killed in the middle of the job: stop says so and exits 1, the
// report is rendered from the spool, and the step the agent wrote there is
// in Jaeger, whether the agent had delivered it before the kill or stop
// sent it (the spans a killed agent had not delivered).
func TestStepsAgentKilled(t *testing.T) {
	j := newStepsJob(t)
	env := j.start()
	j.step(env, "before", "true", 0)
	var state struct {
		Pid int `json:"pid"`
	}
	data, err := os.ReadFile(filepath.Join(j.out, "jobtrace-agent.json"))
	if err == nil {
		err = json.Unmarshal(data, &state)
	}
	if err != nil || state.Pid <= 1 {
		t.Fatalf("the agent's state: %v\n%s", err, data)
	}
	// The step's span reaches the spool (and the collector) a moment after
	// the step returns.
	var fileSpans []span
	deadline := time.Now().Add(time.Minute)
	for {
		fileSpans, _ = readSpansFile(filepath.Join(j.out, "spans.otlp.jsonl"))
		if _, ok := findSpan(fileSpans, "before"); ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the step's span never reached the spool")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(state.Pid, syscall.SIGKILL); err != nil {
		t.Fatalf("kill %d: %v", state.Pid, err)
	}
	res := runJobtrace(t, j.env, "stop", "--out", j.out)
	if res.ExitCode != 1 || !strings.Contains(res.Stderr, "is gone") || !strings.Contains(res.Stderr, "jobtrace report "+j.out) {
		t.Errorf("stop after the kill exited %d\n%s", res.ExitCode, res.Stderr)
	}
	if _, err := os.Stat(filepath.Join(j.out, "report.html")); err != nil {
		t.Errorf("no report: %v", err)
	}
	before, _ := findSpan(fileSpans, "before")
	spans := j.jaeger.WaitForSpans(t, before.TraceID, 1, 30*time.Second)
	if _, ok := findSpan(spans, "before"); !ok {
		t.Errorf("the step exported before the kill is not in Jaeger: %v", spans)
	}
}

// An agent that is never stopped ends by itself (here after --idle) and
// exports its job, marked as not stopped.
func TestStepsWithoutStop(t *testing.T) {
	j := newStepsJob(t)
	env := j.start("--idle", "2s")
	j.step(env, "only", "sleep 0.2", 0)
	deadline := time.Now().Add(time.Minute)
	for {
		data, _ := os.ReadFile(filepath.Join(j.out, "jobtrace-agent.json"))
		if strings.Contains(string(data), `"end"`) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the agent did not end by itself:\n%s", data)
		}
		time.Sleep(100 * time.Millisecond)
	}
	spans := j.fromJaeger(`steps [error]
  jobtrace shutdown
  jobtrace startup
  only
`)
	root, _ := findSpan(spans, "steps")
	for k, want := range map[string]string{"cicd.pipeline.task.run.result": "timeout", "jobtrace.job.stopped": "false", "jobtrace.job.end_reason": "idle"} {
		if got := root.Attrs[k]; got != want {
			t.Errorf("job span %s = %q, want %q", k, got, want)
		}
	}
}
