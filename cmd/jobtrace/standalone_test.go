//go:build unix

package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/internal/otlptest"
	"github.com/jobtrace/jobtrace/internal/timingtest"
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

// A counter outside a run with no collector says in one warning that it
// is not recorded, and nothing else: it made no span, so there is nothing
// to keep in --out. Before, a second warning said that the spans could not
// be kept, naming the private spool it had never written.
func TestStandaloneCounterWithoutCollectorSaysOneThing(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	r := jt(t, []string{"JOBTRACE_OUT=" + out}, "counter", "tests.failed", "--value", "3")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if want := "jobtrace: warning: counter outside 'jobtrace run' with no collector configured: not recorded\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
	if _, err := os.Stat(filepath.Join(out, "spans.otlp.jsonl")); err == nil {
		t.Error("a spool was written for a counter")
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

// `jobtrace phase add` outside a run makes a span with the times given;
// inside one, a child of the job's span with its usage.
func TestPhaseAdd(t *testing.T) {
	out := t.TempDir()
	r := jt(t, []string{"JOBTRACE_OUT=" + out}, "phase", "add", "checkout",
		"--start", "2026-11-29T12:00:01Z", "--end", "2026-11-29T12:00:04.5Z", "--result", "skip", "--attr", "k=v")
	if r.code != 0 {
		t.Fatalf("phase add: %d %q", r.code, r.stderr)
	}
	spans, _ := spansOf(t, out)
	s := spans["checkout"]
	if s == nil || s.StartTimeUnixNano != 1795953601e9 || s.EndTimeUnixNano != 1795953604.5e9 ||
		attrOf(s, "cicd.pipeline.task.run.result") != "skip" || attrOf(s, "k") != "v" {
		t.Errorf("standalone phase add: %v", s)
	}

	// Times cut to the second, as GitHub gives them: the step ends at
	// least a second after it began, so after the job began.
	r = jt(t, nil, "run", "--name", "job", "--", "sh", "-c", `a=$(date -u +%Y-%m-%dT%H:%M:%SZ)
jobtrace phase begin x; sleep 1.1; jobtrace phase end x
b=$(date -u +%Y-%m-%dT%H:%M:%SZ)
jobtrace phase add step --start "$a" --end "$b" --result failure --attr k=v
jobtrace phase add late --start "$b" --end 2000-01-01T00:00:00Z; echo "code $?"`)
	if r.code != 0 || !strings.Contains(r.stdout, "code 2") || !strings.Contains(r.stderr, "--end is before --start") {
		t.Fatalf("run: %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	spans, _ = spansOf(t, r.out)
	s, job := spans["step"], spans["job"]
	if s == nil || job == nil || string(s.ParentSpanId) != string(job.SpanId) {
		t.Fatalf("step is not a child of the job: %v", spans)
	}
	if attrOf(s, "cicd.pipeline.task.run.result") != "failure" || attrOf(s, "k") != "v" ||
		attrOf(s, "jobtrace.usage.window.start") == "" || attrOf(s, "jobtrace.usage.samples") == "" {
		t.Errorf("step: %v", s.Attributes)
	}
	if s.StartTimeUnixNano < job.StartTimeUnixNano || s.EndTimeUnixNano > job.EndTimeUnixNano {
		t.Errorf("step from %d to %d, outside the job (%d to %d)", s.StartTimeUnixNano, s.EndTimeUnixNano, job.StartTimeUnixNano, job.EndTimeUnixNano)
	}
}

// A signal while a marker command outside a run waits for a collector that
// never answers stops the wait: the span is kept in the out dir for
// `jobtrace replay`, the private spool directory is removed instead of
// left behind, and the command exits 0.
func TestStandaloneSignalDuringItsExport(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			cmd, tmp, out, stderr := hangingExport(t, "3m", "event", "deploy")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill() })
			spools := func() []string {
				m, _ := filepath.Glob(filepath.Join(tmp, "jobtrace-spool-*"))
				return m
			}
			// The span is in the private spool before the export begins.
			timingtest.Eventually(t, "the span in the private spool", func() bool {
				for _, d := range spools() {
					if data, _ := os.ReadFile(filepath.Join(d, spool.TracesFile)); bytes.Contains(data, []byte(`"deploy"`)) {
						return true
					}
				}
				return false
			})
			sent := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err != nil {
				t.Errorf("jobtrace event ended with %v, want exit 0; stderr:\n%s", err, stderr.String())
			}
			if took := time.Since(sent); took > 2*time.Minute {
				t.Errorf("jobtrace event ended %v after the signal: the export was not cut short", took)
			}
			if left := spools(); len(left) > 0 {
				t.Errorf("the private spool is left behind: %v", left)
			}
			if spans, _ := spansOf(t, out); spans["deploy"] == nil {
				t.Errorf("the span was not kept in the out dir: %v", spans)
			}
			if !strings.Contains(stderr.String(), "jobtrace replay") {
				t.Errorf("stderr does not say how to send the span:\n%s", stderr.String())
			}
		})
	}
}

// A signal `jobtrace exec` outside a run forwards to its child does not
// stop the export that follows the child: only a signal once the child has
// ended does.
func TestStandaloneExecChildsSignalLeavesTheExport(t *testing.T) {
	cmd, _, out, stderr := hangingExport(t, "1s", "exec", "step", "--", "sh", "-c", `trap 'exit 0' TERM; kill -TERM $PPID; sleep 30 & wait`)
	if err := cmd.Run(); err != nil {
		t.Fatalf("jobtrace exec: %v; stderr:\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "the export stops") || strings.Contains(stderr.String(), "stopped by a signal") {
		t.Errorf("the child's signal stopped the export:\n%s", stderr.String())
	}
	if spans, _ := spansOf(t, out); spans["step"] == nil {
		t.Errorf("the span was not kept in the out dir: %v", spans)
	}
}

// hangingExport returns jobtrace with args, outside a run, exporting to a
// collector that never answers with the export timeout given: its
// temporary directory, its out dir and its stderr.
func hangingExport(t *testing.T, timeout string, args ...string) (cmd *exec.Cmd, tmp, out string, stderr *bytes.Buffer) {
	wd, tmp, out := t.TempDir(), t.TempDir(), t.TempDir()
	cmd = exec.Command(bin, args...)
	cmd.Dir = wd
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + wd, "TMPDIR=" + tmp,
		"JOBTRACE_OUT=" + out, "JOBTRACE_STATE_DIR=" + filepath.Join(wd, "state"), "JOBTRACE_EXPORT_TIMEOUT=" + timeout,
		"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + otlptest.Hanging(t)}
	stderr = new(bytes.Buffer)
	cmd.Stderr = stderr
	return cmd, tmp, out, stderr
}

// A marker command outside a run checks its message as a run's socket
// does (protocol.Validate): an attribute key of more than 256 bytes is
// refused with one warning, nothing is recorded, and the command exits 0;
// `jobtrace exec` runs its command without a span. Before, outside a run
// nothing checked the message, and the span carried the key the socket
// refuses.
func TestStandaloneMarkersAreCheckedAsSocketMessages(t *testing.T) {
	long := strings.Repeat("k", 257) + "=v"
	for _, args := range [][]string{
		{"event", "e", "--attr", long},
		{"phase", "add", "p", "--start", "2026-01-02T10:00:00Z", "--end", "2026-01-02T10:00:01Z", "--attr", long},
		{"exec", "--attr", long, "step", "--", "sh", "-c", "echo ran"},
	} {
		r := jt(t, nil, args...)
		if r.code != 0 || !strings.Contains(r.stderr, "jobtrace: warning: marker: bad attribute key") {
			t.Errorf("%s: exit %d, stderr %q; want 0 and the key refused", args[0], r.code, r.stderr)
		}
		if args[0] == "exec" && r.stdout != "ran\n" {
			t.Errorf("exec: the command's output %q, want it run", r.stdout)
		}
		if _, err := os.Stat(filepath.Join(r.out, spool.TracesFile)); err == nil {
			spans, _ := spansOf(t, r.out)
			t.Errorf("%s: spans recorded: %v", args[0], spans)
		}
	}
}

// A step of `jobtrace exec` whose begin a run refuses runs its command
// without a phase and sends no end, which would end another open phase of
// its name. Before, the refusal went unsaid, and the step's end ended the
// phase of that name the script had open, with the step's exit code.
func TestRefusedExecStepEndsNoOtherPhase(t *testing.T) {
	long := strings.Repeat("k", 257) + "=v"
	r := jt(t, nil, "run", "--name", "job", "--", "sh", "-c",
		"jobtrace phase begin step; jobtrace exec --attr "+long+" step -- sh -c 'exit 3'; jobtrace phase end step")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "bad attribute key") || !strings.Contains(r.stderr, "running step without a phase") {
		t.Errorf("stderr %q: want the refusal said", r.stderr)
	}
	spans, _ := spansOf(t, r.out)
	if s := spans["step"]; s == nil || attrOf(s, "process.exit.code") != "" || attrOf(s, "cicd.pipeline.task.run.result") != "success" {
		t.Errorf("the script's phase step: %v, want it ended by the script alone", s)
	}
}
