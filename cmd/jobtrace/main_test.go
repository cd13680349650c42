//go:build unix

package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/internal/otlptest"
	"github.com/jobtrace/jobtrace/internal/timingtest"
)

// bin is the jobtrace binary built for these tests, as README's install
// command builds it (installEnv).
var bin string

// installEnv is the environment of README's install command: no cgo, so that
// the binary links nothing at run time (static on Linux).
const installEnv = "CGO_ENABLED=0"

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "jobtrace-test-")
	if err != nil {
		panic(err)
	}
	bin = filepath.Join(dir, "jobtrace")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = append(os.Environ(), installEnv)
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building jobtrace:", err)
		os.Exit(1)
	}
	startWithDefaultSignals()
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// startWithDefaultSignals has the commands these tests start begin with
// SIGHUP and SIGINT at their default action, whatever this test binary was
// started with. A binary started by nohup, or by a shell in the background
// (&), has them ignored, and a child inherits an ignored signal: jobtrace
// then keeps them ignored, for itself and the job, as it must
// (TestIgnoredSignalsStayIgnoredForTheJob), and a test that sends them
// would wait for a job that never gets them. A signal this binary catches
// is set back to its default in the children it starts; one it was not
// started with ignored is left alone, so that ^C still stops the tests.
func startWithDefaultSignals() {
	for _, sig := range []os.Signal{syscall.SIGHUP, syscall.SIGINT} {
		if signal.Ignored(sig) {
			signal.Notify(make(chan os.Signal, 1), sig)
		}
	}
}

type result struct {
	code           int
	stdout, stderr string
	out            string // the --out directory
}

// jt runs the binary with a clean environment plus env, in a temporary
// working directory.
func jt(t *testing.T, env []string, args ...string) result {
	t.Helper()
	return jtBin(t, bin, env, args...)
}

// jtBin is jt with another binary.
func jtBin(t *testing.T, binary string, env []string, args ...string) result {
	t.Helper()
	wd := t.TempDir()
	cmd := exec.Command(binary, args...)
	cmd.Dir = wd
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + wd, "TMPDIR=" + os.TempDir(), "JOBTRACE_STATE_DIR=" + filepath.Join(wd, "state")}, env...)
	return runCmd(t, cmd)
}

// runCmd runs cmd to its end, with its output collected.
func runCmd(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var so, se bytes.Buffer
	cmd.Stdout, cmd.Stderr = &so, &se
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return result{code: code, stdout: so.String(), stderr: se.String(), out: filepath.Join(cmd.Dir, "jobtrace-out")}
}

// spansOf reads the spool in dir: spans by name.
func spansOf(t *testing.T, dir string) (map[string]*tracepb.Span, []*tracepb.ResourceSpans) {
	t.Helper()
	out := map[string]*tracepb.Span{}
	var rss []*tracepb.ResourceSpans
	err := spool.ReadLines(filepath.Join(dir, spool.TracesFile), 0, func(td ptrace.Traces, _ int, _ int64) error {
		req := otlptest.Proto(t, td)
		for _, rs := range req.ResourceSpans {
			rss = append(rss, rs)
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					if _, dup := out[s.Name]; dup {
						t.Errorf("two spans named %q", s.Name)
					}
					out[s.Name] = s
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("reading the spool: %v", err)
	}
	return out, rss
}

func attrOf(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			v := kv.Value
			switch {
			case v.GetIntValue() != 0:
				return fmt.Sprint(v.GetIntValue())
			case v.GetArrayValue() != nil:
				return fmt.Sprint(v.GetArrayValue().Values)
			}
			return v.GetStringValue()
		}
	}
	return ""
}

func TestUsageErrorsExitTwoWithOneLine(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(bad, []byte("out: x\nmarkers:\n  bogus: true\n"), 0o644)
	cases := []struct {
		env  []string
		args []string
		want string
	}{
		{nil, nil, "Usage"},
		{nil, []string{"bogus"}, `unknown command "bogus"`},
		{nil, []string{"run"}, "no command given"},
		{nil, []string{"run", "--no-such-flag", "--", "true"}, "no-such-flag"},
		{nil, []string{"run", "--config", bad, "--", "true"}, "bad.yaml:3"},
		{[]string{"OTEL_EXPORTER_OTLP_TIMEOUT=abc"}, []string{"run", "--", "true"}, "OTEL_EXPORTER_OTLP_TIMEOUT"},
		{[]string{"JOBTRACE_EXPORT_TIMEOUT=soon"}, []string{"run", "--", "true"}, "JOBTRACE_EXPORT_TIMEOUT"},
		{nil, []string{"phase", "begin"}, "NAME is missing"},
		{nil, []string{"phase", "start", "x"}, "unknown action"},
		{nil, []string{"phase", "end", "x", "--result", "meh"}, "--result"},
		{nil, []string{"exec", "name"}, "no command given"},
		{nil, []string{"exec", "--name", "compile", "--", "sh", "-c", "true"}, "NAME is missing before --"},
		{nil, []string{"exec", "--", "make"}, "NAME is missing before --"},
		{nil, []string{"replay"}, "want one DIR"},
	}
	for _, c := range cases {
		r := jt(t, c.env, c.args...)
		if r.code != 2 {
			t.Errorf("%v: exit code %d, want 2 (stderr %q)", c.args, r.code, r.stderr)
		}
		if !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: stderr %q does not say %q", c.args, r.stderr, c.want)
		}
		if c.args != nil && strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
			t.Errorf("%v: more than one line: %q", c.args, r.stderr)
		}
	}
}

func TestHelpHasExamples(t *testing.T) {
	for _, c := range []string{"run", "phase", "event", "counter", "exec", "replay", "report", "profile", "config", "version", "debug kstat"} {
		r := jt(t, nil, append(strings.Fields(c), "--help")...)
		if r.code != 0 || !strings.Contains(r.stdout, "Usage:") {
			t.Errorf("%s --help: code %d, stdout %q", c, r.code, r.stdout)
		}
		if n := strings.Count(r.stdout, "Usage:"); n != 1 {
			t.Errorf("%s --help prints the usage %d times", c, n)
		}
		if c != "version" && !strings.Contains(r.stdout, "Examples:") {
			t.Errorf("%s --help has no examples", c)
		}
	}
}

// The job's exit code is jobtrace's and its span's; its span has the
// status Error when it failed, not when a signal killed it (cancellation).
func TestExitCodesAreTheJobs(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "script")
	os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644)
	cases := []struct {
		args   []string
		code   int
		msg    string
		failed bool
	}{
		{[]string{"sh", "-c", "exit 3"}, 3, "", true},
		{[]string{"sh", "-c", "kill -9 $$"}, 137, "", true}, // the OOM killer's signal: a failure
		{[]string{"sh", "-c", "kill -INT $$"}, 130, "", false},
		{[]string{"sh", "-c", "kill -SEGV $$"}, 139, "", true}, // a crash
		{[]string{"no-such-command-xyz"}, 127, "no-such-command-xyz: command not found", true},
		{[]string{notExec}, 126, "permission denied", true},
	}
	for _, c := range cases {
		r := jt(t, nil, append([]string{"run", "--"}, c.args...)...)
		if r.code != c.code {
			t.Errorf("%v: exit code %d, want %d; stderr %q", c.args, r.code, c.code, r.stderr)
		}
		if !strings.Contains(r.stderr, c.msg) {
			t.Errorf("%v: stderr lacks %q: %q", c.args, c.msg, r.stderr)
		}
		spans, _ := spansOf(t, r.out)
		job := spans[filepath.Base(c.args[0])]
		if job == nil {
			t.Fatalf("%v: no job span; spans: %v", c.args, spans)
		}
		if attrOf(job, "process.exit.code") != fmt.Sprint(c.code) {
			t.Errorf("%v: process.exit.code = %q", c.args, attrOf(job, "process.exit.code"))
		}
		if failed := job.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR; failed != c.failed {
			t.Errorf("%v: job span status %v (result %q), want Error: %v", c.args, job.Status, attrOf(job, "cicd.pipeline.task.run.result"), c.failed)
		}
	}
}

func TestLargeBinaryOutputPassesThroughUnchanged(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	f, _ := os.Create(data)
	chunk := make([]byte, 1<<20)
	for i := range chunk {
		chunk[i] = byte(i*7 + i/251)
	}
	for i := 0; i < 200; i++ { // 200 MiB
		chunk[i] ^= 0xff
		f.Write(chunk)
	}
	f.Write([]byte("no trailing newline"))
	f.Close()
	want, _ := os.ReadFile(data)
	sum := sha256.Sum256(want)
	outFile := filepath.Join(dir, "out")
	cmd := exec.Command("sh", "-c", `"$1" run --out "$2" -- cat "$3" > "$4"`, "sh", bin, filepath.Join(dir, "jt"), data, outFile)
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	got, _ := os.ReadFile(outFile)
	if sha256.Sum256(got) != sum {
		t.Fatalf("output differs: %d bytes, want %d", len(got), len(want))
	}
	t.Logf("200 MiB passed through in %v", took)
}

func TestPhasesFromEverySource(t *testing.T) {
	script := `
echo "BEGIN_PHASE outer"
echo "::group::Group one"
jobtrace phase begin sock --attr k=v
jobtrace event ping --attr n=1
jobtrace counter widgets --value 2
jobtrace counter widgets --value 3
jobtrace phase end sock
echo '{"v":1,"type":"begin","name":"md"}' >> "$JOBTRACE_MARKER_DIR/$$.jsonl"
echo '{"v":1,"type":"end","name":"md","result":"failure"}' >> "$JOBTRACE_MARKER_DIR/$$.jsonl"
echo 'this is not json' >> "$JOBTRACE_MARKER_DIR/$$.jsonl"
# The marker dir is polled: keep the group open until md has been read and
# ended (its span is in the spool), however late the poll comes.
i=0; until grep -qs '"name":"md"' jobtrace-out/spans.otlp.jsonl || [ $i -ge 1200 ]; do sleep 0.05; i=$((i+1)); done
echo "::endgroup::"
printf '\033[0Ksection_start:%s:sect\r\033[0KA section\n' "$(date +%s)"
jobtrace exec step -- sh -c 'echo "child TRACEPARENT=$TRACEPARENT"'
printf '\033[0Ksection_end:%s:sect\r\033[0K\n' "$(date +%s)"
echo "END_PHASE outer"
jobtrace phase end never-begun
echo "BEGIN_PHASE left-open"
`
	r := jt(t, nil, "run", "--name", "job", "--", "sh", "-c", script)
	if r.code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", r.code, r.stderr)
	}
	spans, rss := spansOf(t, r.out)
	job := spans["job"]
	if job == nil {
		t.Fatalf("no job span: %v", spans)
	}
	parentOf := map[string]string{
		"outer": "job", "Group one": "outer", "sock": "Group one", "md": "Group one",
		"sect": "outer", "step": "sect", "left-open": "job",
		"jobtrace startup": "job", "jobtrace shutdown": "job",
	}
	for name, parent := range parentOf {
		s, p := spans[name], spans[parent]
		if s == nil || p == nil {
			t.Errorf("missing span %q or its parent %q", name, parent)
			continue
		}
		if !bytes.Equal(s.ParentSpanId, p.SpanId) {
			t.Errorf("%s: not a child of %s", name, parent)
		}
		if !bytes.Equal(s.TraceId, job.TraceId) {
			t.Errorf("%s: in another trace", name)
		}
	}
	if len(spans) != len(parentOf)+1 {
		t.Errorf("%d spans, want %d", len(spans), len(parentOf)+1)
	}
	if attrOf(spans["sock"], "k") != "v" || len(spans["sock"].Events) != 1 || spans["sock"].Events[0].Name != "ping" {
		t.Errorf("sock phase: attrs %v events %v", spans["sock"].Attributes, spans["sock"].Events)
	}
	if spans["md"].Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("md ended with failure but status is %v", spans["md"].Status)
	}
	if lo := spans["left-open"]; lo.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || !strings.Contains(lo.Status.GetMessage(), "still open") {
		t.Errorf("left-open status %v", lo.Status)
	}
	if attrOf(job, "jobtrace.user.widgets") != "5" {
		t.Errorf("counter total = %q, want 5", attrOf(job, "jobtrace.user.widgets"))
	}
	step := spans["step"]
	want := fmt.Sprintf("child TRACEPARENT=00-%x-%x-01", step.TraceId, step.SpanId)
	if !strings.Contains(r.stdout, want) {
		t.Errorf("the step did not get its own TRACEPARENT: want %q in %q", want, r.stdout)
	}
	if attrOf(step, "process.exit.code") != "" && attrOf(step, "process.exit.code") != "0" {
		t.Errorf("step exit code %q", attrOf(step, "process.exit.code"))
	}
	for _, w := range []string{`"never-begun"`, "not json", "left-open"} {
		if !strings.Contains(r.stderr, w) {
			t.Errorf("stderr does not mention %s: %q", w, r.stderr)
		}
	}
	// Output markers stay in the output.
	for _, line := range []string{"BEGIN_PHASE outer", "::group::Group one", "::endgroup::", "END_PHASE outer"} {
		if !strings.Contains(r.stdout, line+"\n") {
			t.Errorf("stdout lost %q", line)
		}
	}
	if len(rss) == 0 || rss[0].Resource == nil {
		t.Fatal("no resource")
	}
}

func TestJoinsTheParentTraceAndHonoursNotSampled(t *testing.T) {
	tp := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"
	r := jt(t, []string{"TRACEPARENT=" + tp, "TRACESTATE=vendor=x", "BAGGAGE=team=ci"}, "run", "--name", "job", "--",
		"sh", "-c", `echo "TP=$TRACEPARENT TS=$TRACESTATE BG=$BAGGAGE"`)
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	spans, _ := spansOf(t, r.out)
	job := spans["job"]
	if fmt.Sprintf("%x", job.TraceId) != "4bf92f3577b34da6a3ce929d0e0e4736" || fmt.Sprintf("%x", job.ParentSpanId) != "00f067aa0ba902b7" {
		t.Errorf("job span not a child of TRACEPARENT: trace %x parent %x", job.TraceId, job.ParentSpanId)
	}
	if job.Flags&1 != 0 {
		t.Errorf("job span sampled under a not-sampled parent")
	}
	want := fmt.Sprintf("TP=00-4bf92f3577b34da6a3ce929d0e0e4736-%x-00 TS=vendor=x BG=team=ci", job.SpanId)
	if !strings.Contains(r.stdout, want) {
		t.Errorf("job environment: got %q, want %q", r.stdout, want)
	}
}

func TestSecretsAreNotRecorded(t *testing.T) {
	r := jt(t, []string{"MY_SECRET_TOKEN=hunter2-env"}, "run", "--", "sh", "-c", "echo ok", "hunter2-arg")
	data, _ := os.ReadFile(filepath.Join(r.out, spool.TracesFile))
	for _, s := range []string{"hunter2-env", "hunter2-arg", "echo ok"} {
		if bytes.Contains(data, []byte(s)) {
			t.Errorf("the spool contains %q", s)
		}
	}
	r = jt(t, nil, "run", "--record-args", "--", "sh", "-c", "echo ok", "visible-arg", "https://user:hunter2-pw@host/?k=hunter2-q")
	data, _ = os.ReadFile(filepath.Join(r.out, spool.TracesFile))
	if !bytes.Contains(data, []byte("visible-arg")) || !bytes.Contains(data, []byte("https://xxxxx@host/?k=xxxxx")) {
		t.Errorf("--record-args did not record the arguments")
	}
	if bytes.Contains(data, []byte("hunter2")) {
		t.Errorf("--record-args recorded a URL's credentials")
	}
}

func TestConfigMasksSecrets(t *testing.T) {
	r := jt(t, []string{"OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20s3cret", "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318"}, "config", "--out", "/tmp/x")
	if r.code != 0 || strings.Contains(r.stdout, "s3cret") || !strings.Contains(r.stdout, "authorization") || !strings.Contains(r.stdout, "/tmp/x") {
		t.Errorf("code %d, config output:\n%s", r.code, r.stdout)
	}
}

func TestStandaloneExecKeepsItsSpanLocally(t *testing.T) {
	tp := "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	r := jt(t, []string{"TRACEPARENT=" + tp}, "exec", "build", "--", "sh", "-c", `echo "TP=$TRACEPARENT"; exit 4`)
	if r.code != 4 {
		t.Fatalf("exit %d, want 4; %s", r.code, r.stderr)
	}
	spans, _ := spansOf(t, r.out)
	s := spans["build"]
	if s == nil {
		t.Fatalf("no span: %v", spans)
	}
	if fmt.Sprintf("%x", s.ParentSpanId) != "00f067aa0ba902b7" || s.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("span parent %x status %v", s.ParentSpanId, s.Status)
	}
	if !strings.Contains(r.stdout, fmt.Sprintf("%x-01", s.SpanId)) {
		t.Errorf("the command did not get the span's TRACEPARENT: %q", r.stdout)
	}
}

// A `jobtrace exec` whose command a signal killed was cancelled, which is
// not an error: its span has the result cancellation without the status
// Error outside a run as inside one, and so has the job's span of a run
// whose command a signal killed.
func TestExecKilledBySignalIsCancelledNotAnError(t *testing.T) {
	cancelled := func(what string, s *tracepb.Span) {
		t.Helper()
		if s == nil {
			t.Fatalf("%s: no span", what)
		}
		if got := attrOf(s, "cicd.pipeline.task.run.result"); got != "cancellation" || s.Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
			t.Errorf("%s: result %q, status %v; want cancellation without the status Error", what, got, s.Status)
		}
	}
	r := jt(t, nil, "exec", "step", "--", "sh", "-c", "kill -TERM $$")
	if r.code != 143 {
		t.Fatalf("exec: exit %d, want 143; %s", r.code, r.stderr)
	}
	spans, _ := spansOf(t, r.out)
	cancelled("exec outside a run", spans["step"])

	r = jt(t, nil, "run", "--name", "job", "--", "sh", "-c", "jobtrace exec step -- sh -c 'kill -TERM $$'; kill -TERM $$")
	if r.code != 143 {
		t.Fatalf("run: exit %d, want 143; %s", r.code, r.stderr)
	}
	spans, _ = spansOf(t, r.out)
	cancelled("exec inside a run", spans["step"])
	cancelled("job", spans["job"])
}

func TestExecPhasesSaySoAndCarryTheExitCode(t *testing.T) {
	r := jt(t, nil, "run", "--name", "job", "--", "sh", "-c", "jobtrace exec step -- sh -c 'exit 3'; true")
	spans, _ := spansOf(t, r.out)
	s := spans["step"]
	if s == nil {
		t.Fatalf("no step span: %v", spans)
	}
	if got := attrOf(s, "jobtrace.phase.source"); got != "exec" {
		t.Errorf("jobtrace.phase.source = %q, want exec", got)
	}
	if got := attrOf(s, "process.exit.code"); got != "3" {
		t.Errorf("process.exit.code = %q, want 3", got)
	}
	if got := attrOf(s, "cicd.pipeline.task.run.result"); got != "failure" {
		t.Errorf("result = %q, want failure", got)
	}
}

// The status of a step of `jobtrace exec` that failed says the same inside
// a run as outside one, what the command did: before, inside a run it was
// "phase ended with result failure", outside "sh exited with code 2".
func TestExecStatusIsTheSameInsideAndOutsideARun(t *testing.T) {
	for _, c := range []struct {
		cmd  string
		args []string
		want string
	}{
		{"sh -c 'exit 2'", []string{"sh", "-c", "exit 2"}, "sh exited with code 2"},
		{"no-such-command-jobtrace", []string{"no-such-command-jobtrace"}, "no-such-command-jobtrace: command not found"},
	} {
		r := jt(t, nil, append([]string{"exec", "step", "--"}, c.args...)...)
		outside, _ := spansOf(t, r.out)
		r = jt(t, nil, "run", "--name", "job", "--", "sh", "-c", "jobtrace exec step -- "+c.cmd+"; true")
		inside, _ := spansOf(t, r.out)
		for what, sp := range map[string]*tracepb.Span{"outside a run": outside["step"], "inside a run": inside["step"]} {
			if sp == nil {
				t.Fatalf("%s, %s: no span (%s)", c.cmd, what, r.stderr)
			}
			if sp.Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || sp.Status.GetMessage() != c.want {
				t.Errorf("%s, %s: status %v %q, want %q", c.cmd, what, sp.Status.GetCode(), sp.Status.GetMessage(), c.want)
			}
		}
	}
}

func TestStdinIsPassedThrough(t *testing.T) {
	cmd := exec.Command(bin, "run", "--out", filepath.Join(t.TempDir(), "o"), "--", "sh", "-c", "cat; echo; wc -c")
	cmd.Stdin = strings.NewReader("hello from stdin")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(out), "hello from stdin\n") {
		t.Errorf("job read %q", out)
	}
}

func TestSignalsReachTheJobThroughJobtrace(t *testing.T) {
	for _, sig := range []os.Signal{syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			ready := filepath.Join(dir, "ready")
			cmd := exec.Command(bin, "run", "--out", filepath.Join(dir, "o"), "--name", "job", "--", "sh", "-c",
				`trap 'echo got-signal; exit 42' TERM INT HUP QUIT; touch "$1"; while :; do sleep 0.05; done`, "sh", ready)
			var so bytes.Buffer
			cmd.Stdout = &so
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(timingtest.Patience)
			for {
				if _, err := os.Stat(ready); err == nil {
					break
				}
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					t.Fatal("job did not start")
				}
				time.Sleep(10 * time.Millisecond)
			}
			cmd.Process.Signal(sig)
			// A job that never gets the signal fails the test rather
			// than hang it.
			stuck := time.AfterFunc(timingtest.Patience, func() { cmd.Process.Kill() })
			defer stuck.Stop()
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 42 || !strings.Contains(so.String(), "got-signal") {
				t.Errorf("err %v, stdout %q: the job did not get %v", err, so.String(), sig)
			}
		})
	}
}

func TestNestedRunsInOneDirectoryKeepSeparateSpools(t *testing.T) {
	// The outer run writes its spool a moment after it starts (its start-up
	// span): the replay is tried once it is there.
	r := jt(t, nil, "run", "--name", "outer", "--", "sh", "-c", `jobtrace run --name inner -- true
i=0; until [ -s jobtrace-out/spans.otlp.jsonl ] || [ $i -ge 1200 ]; do sleep 0.05; i=$((i+1)); done
jobtrace replay --endpoint http://127.0.0.1:1 jobtrace-out`)
	if r.code != 0 && !strings.Contains(r.stderr, "replay") {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	outer, _ := spansOf(t, r.out)
	if outer["outer"] == nil || outer["inner"] != nil {
		t.Errorf("outer spool has %v", outer)
	}
	if !strings.Contains(r.stderr, "another jobtrace is writing to jobtrace-out") {
		t.Errorf("no warning about the shared directory: %q", r.stderr)
	}
	if !strings.Contains(r.stderr, "replay it when that has ended") {
		t.Errorf("replay of a directory in use was not refused: %q", r.stderr)
	}
	dirs, _ := filepath.Glob(filepath.Join(r.out, "run-*"))
	if len(dirs) != 1 {
		t.Fatalf("inner run directories: %v", dirs)
	}
	inner, _ := spansOf(t, dirs[0])
	if inner["inner"] == nil || !bytes.Equal(inner["inner"].ParentSpanId, outer["outer"].SpanId) {
		t.Errorf("inner spool %v, not a child of the outer job", inner)
	}
}

// Steps started side by side, as make -j or a shell's & starts them, are
// siblings under the phase they were started in, and a step that a step's
// command starts nests in that step. Before, each step nested in the one
// that had begun last.
func TestExecStepsSideBySide(t *testing.T) {
	const wait = `i=0; until [ -e "$0" ] || [ $i -ge 6000 ]; do sleep 0.01; i=$((i+1)); done`
	script := `jobtrace phase begin build
jobtrace exec a -- sh -c '` + wait + `; jobtrace exec in-a -- true; touch a.done' b.started &
jobtrace exec b -- sh -c 'touch b.started; ` + wait + `' a.done &
wait
jobtrace phase end build`
	r := jt(t, nil, "run", "--name", "job", "--", "sh", "-c", script)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	spans, _ := spansOf(t, r.out)
	for name, parent := range map[string]string{"a": "build", "b": "build", "in-a": "a"} {
		s, p := spans[name], spans[parent]
		if s == nil || p == nil {
			t.Fatalf("no span %q or %q: %v", name, parent, spans)
		}
		if !bytes.Equal(s.ParentSpanId, p.SpanId) {
			t.Errorf("%s: parent %x, want %s (%x)", name, s.ParentSpanId, parent, p.SpanId)
		}
	}
}

// Steps of one name side by side each end their own phase: the one that
// began first and ends first, while the other is open, gets its own exit
// code and result. Before, an end went to the phase of that name that had
// begun last.
func TestExecStepsOfOneName(t *testing.T) {
	const until = `i=0; until [ -e "$1" ] || [ $i -ge 6000 ]; do sleep 0.01; i=$((i+1)); done`
	script := `waitfor() { ` + until + `; }
jobtrace exec --attr dir=a test -- sh -c 'touch a.started; ` + strings.ReplaceAll(until, "$1", "b.started") + `; exit 3' &
A=$!
waitfor a.started
jobtrace exec --attr dir=b test -- sh -c 'touch b.started; ` + strings.ReplaceAll(until, "$1", "a.done") + `' &
B=$!
wait $A
touch a.done
wait $B`
	r := jt(t, nil, "run", "--name", "job", "--", "sh", "-c", script)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	got := map[string]string{}
	err := spool.ReadLines(filepath.Join(r.out, spool.TracesFile), 0, func(td ptrace.Traces, _ int, _ int64) error {
		for _, rs := range otlptest.Proto(t, td).ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					if s.Name == "test" {
						// attrOf reads an exit code of 0 as "".
						got[attrOf(s, "dir")] = "exit " + attrOf(s, "process.exit.code") + ", " + attrOf(s, "cicd.pipeline.task.run.result")
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got["a"] != "exit 3, failure" || got["b"] != "exit , success" {
		t.Errorf("steps: %q, want a: exit 3, failure; b: exit 0, success", got)
	}
}

// A step's command's markers apply within that step while another step
// runs beside it: a phase it begins nests in it, the end of a name open in
// both steps ends its own, an event goes to its own innermost phase. Before,
// each went to the step that had begun last.
func TestMarkersWithinTheirStep(t *testing.T) {
	const until = `i=0; until [ -e "$1" ] || [ $i -ge 6000 ]; do sleep 0.01; i=$((i+1)); done`
	waitFor := func(file string) string { return strings.ReplaceAll(until, "$1", file) }
	a := waitFor("b.started") + `
jobtrace phase begin inA; jobtrace event ea; jobtrace phase end inA
jobtrace phase begin compile; touch a.compiling; ` + waitFor("b.compiling") + `
jobtrace phase end compile --result failure; touch a.done`
	b := `touch b.started; ` + waitFor("a.compiling") + `
jobtrace phase begin compile; touch b.compiling; ` + waitFor("a.done") + `
jobtrace event eb; jobtrace phase end compile`
	script := `touch a.go; jobtrace exec a -- sh -c '` + a + `' &
` + waitFor("a.go") + `
jobtrace exec b -- sh -c '` + b + `' &
wait`
	r := jt(t, nil, "run", "--name", "job", "--", "sh", "-c", script)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	byName := map[string][]*tracepb.Span{}
	err := spool.ReadLines(filepath.Join(r.out, spool.TracesFile), 0, func(td ptrace.Traces, _ int, _ int64) error {
		for _, rs := range otlptest.Proto(t, td).ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					byName[s.Name] = append(byName[s.Name], s)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	one := func(name string) *tracepb.Span {
		if len(byName[name]) != 1 {
			t.Fatalf("%d spans %q, want 1", len(byName[name]), name)
		}
		return byName[name][0]
	}
	stepOf := func(s *tracepb.Span) string {
		for _, step := range []string{"a", "b"} {
			if bytes.Equal(s.ParentSpanId, one(step).SpanId) {
				return step
			}
		}
		return "neither step"
	}
	events := func(s *tracepb.Span) (names []string) {
		for _, e := range s.Events {
			names = append(names, e.Name)
		}
		return names
	}
	inA := one("inA")
	if got := stepOf(inA) + ", events " + strings.Join(events(inA), ","); got != "a, events ea" {
		t.Errorf("inA: in %s, want in a, events ea", got)
	}
	got := map[string]string{}
	for _, c := range byName["compile"] {
		got[stepOf(c)] += attrOf(c, "cicd.pipeline.task.run.result") + " " + strings.Join(events(c), ",")
	}
	if want := map[string]string{"a": "failure ", "b": "success eb"}; !maps.Equal(got, want) {
		t.Errorf("compile in each step (result, events): %q, want %q", got, want)
	}
}
