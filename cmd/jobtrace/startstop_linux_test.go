package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/jobtrace/jobtrace/agent/background"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/internal/otlptest"
	"github.com/jobtrace/jobtrace/internal/timingtest"
	"github.com/jobtrace/jobtrace/render/profile"
	"github.com/jobtrace/jobtrace/render/report"
)

// agentEndWait bounds how long a test waits for an agent to end by itself:
// far beyond the second of --idle or of a watched process's end.
const agentEndWait = 60 * time.Second

// job is a working directory in which a test starts an agent and runs
// steps as separate processes, as a CI system does.
type job struct {
	t   *testing.T
	wd  string
	env []string // the clean environment every step starts from
}

func newJob(t *testing.T) *job {
	wd := t.TempDir()
	j := &job{t: t, wd: wd, env: []string{"PATH=" + filepath.Dir(bin) + ":" + os.Getenv("PATH"), "HOME=" + wd, "TMPDIR=" + os.TempDir()}}
	endAgentWithTest(t, filepath.Join(wd, "jobtrace-out"))
	return j
}

// endAgentWithTest ends the agent of the out dir out that a failed test
// leaves, with the test.
func endAgentWithTest(t *testing.T, out string) {
	t.Cleanup(func() {
		if st, err := background.ReadState(out); err == nil && st.End == nil && background.Alive(st.Out) {
			syscall.Kill(st.Pid, syscall.SIGKILL)
		}
	})
}

// run runs the binary in the job's directory with the job's environment
// plus env.
func (j *job) run(env []string, args ...string) result {
	j.t.Helper()
	return j.sh(env, bin, args...)
}

// sh runs a command in the job's directory with the job's environment
// plus env.
func (j *job) sh(env []string, name string, args ...string) result {
	j.t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = j.wd
	cmd.Env = append(append([]string{}, j.env...), env...)
	return runCmd(j.t, cmd)
}

// start starts the agent and returns the environment it printed.
func (j *job) start(env []string, args ...string) []string {
	j.t.Helper()
	r := j.run(env, append([]string{"start"}, args...)...)
	if r.code != 0 {
		j.t.Fatalf("start: exit %d\n%s", r.code, r.stderr)
	}
	return strings.Fields(r.stdout)
}

func (j *job) out() string { return filepath.Join(j.wd, "jobtrace-out") }

// stepThenKill runs the step name (`jobtrace exec name -- true`) in env,
// waits until the agent has written its span to the spool (a moment after
// the step returns: its end sample, then the spool's queue), kills the
// agent with SIGKILL and waits until it is gone. It returns the agent's
// state as it was.
func (j *job) stepThenKill(env []string, name string) background.State {
	j.t.Helper()
	if r := j.run(env, "exec", name, "--", "true"); r.code != 0 {
		j.t.Fatalf("step: %d\n%s", r.code, r.stderr)
	}
	st, err := background.ReadState(j.out())
	if err != nil {
		j.t.Fatal(err)
	}
	for deadline := time.Now().Add(agentEndWait); ; time.Sleep(10 * time.Millisecond) {
		if data, _ := os.ReadFile(filepath.Join(j.out(), "spans.otlp.jsonl")); bytes.Contains(data, []byte(name)) {
			break
		}
		if time.Now().After(deadline) {
			j.t.Fatal("the step's span never reached the spool")
		}
	}
	if err := syscall.Kill(st.Pid, syscall.SIGKILL); err != nil {
		j.t.Fatal(err)
	}
	for background.Alive(j.out()) {
		time.Sleep(10 * time.Millisecond)
	}
	return st
}

// waitEnd waits until the agent has ended by itself and returns its state.
func (j *job) waitEnd() background.State {
	j.t.Helper()
	if !background.Wait(j.out(), agentEndWait) {
		j.t.Fatalf("the agent did not end by itself within %s", agentEndWait)
	}
	st, err := background.ReadState(j.out())
	if err != nil || st.End == nil {
		j.t.Fatalf("state after the end: %+v, %v", st, err)
	}
	return st
}

// A job run as separate processes (start; three steps, one failing; stop
// from a shell without the environment) is one trace: the steps are
// children of the job's span, each with its usage; the artifacts are all
// there, the summary reaches stop's stderr and $GITHUB_STEP_SUMMARY, and
// start wrote the environment to $GITHUB_ENV.
func TestStartStepsStop(t *testing.T) {
	j := newJob(t)
	ghEnv := filepath.Join(j.wd, "github_env")
	env := j.start([]string{"GITHUB_ENV=" + ghEnv}, "--interval", "100ms", "--name", "build")
	for _, k := range []string{"TRACEPARENT=", "JOBTRACE_SOCKET=", "JOBTRACE_MARKER_DIR="} {
		if !strings.Contains(strings.Join(env, "\n"), k) {
			t.Errorf("start printed no %s: %q", k, env)
		}
	}
	if data, _ := os.ReadFile(ghEnv); string(data) != strings.Join(env, "\n")+"\n" {
		t.Errorf("$GITHUB_ENV holds %q, want what start printed", data)
	}
	for _, step := range []struct {
		name string
		code int
		cmd  []string
	}{
		{"compile", 0, []string{"sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"}},
		{"test", 3, []string{"sh", "-c", "sleep 0.3; exit 3"}},
		{"package", 0, []string{"sleep", "0.3"}},
	} {
		if r := j.run(env, append([]string{"exec", step.name, "--"}, step.cmd...)...); r.code != step.code {
			t.Fatalf("step %s: exit %d, want %d\n%s", step.name, r.code, step.code, r.stderr)
		}
	}
	summary := filepath.Join(j.wd, "step_summary.md")
	r := j.run([]string{"GITHUB_STEP_SUMMARY=" + summary}, "stop", "--result", "failed")
	if r.code != 0 {
		t.Fatalf("stop: exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"compile", "package", `job "build" ended with result failure`, "spans written to"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stop's stderr has no %q:\n%s", want, r.stderr)
		}
	}
	if data, _ := os.ReadFile(summary); !strings.Contains(string(data), "| test |") {
		t.Errorf("$GITHUB_STEP_SUMMARY:\n%s", data)
	}
	spans, _ := spansOf(t, j.out())
	jobSpan := spans["build"]
	if jobSpan == nil {
		t.Fatalf("no job span: %v", spans)
	}
	if attrOf(jobSpan, "cicd.pipeline.task.run.result") != "failure" || jobSpan.Status.GetCode() != 2 {
		t.Errorf("job span: result %q, status %v", attrOf(jobSpan, "cicd.pipeline.task.run.result"), jobSpan.Status)
	}
	for name, s := range spans {
		if !bytes.Equal(s.TraceId, jobSpan.TraceId) {
			t.Errorf("%s is in trace %s, the job in %s", name, hex.EncodeToString(s.TraceId), hex.EncodeToString(jobSpan.TraceId))
		}
	}
	for _, name := range []string{"compile", "test", "package"} {
		s := spans[name]
		if s == nil {
			t.Fatalf("no span %s", name)
		}
		if !bytes.Equal(s.ParentSpanId, jobSpan.SpanId) {
			t.Errorf("%s is not a child of the job's span", name)
		}
		if attrOf(s, "jobtrace.usage.samples") == "" || !hasAttr(s, "jobtrace.system.cpu.utilization.avg") {
			t.Errorf("%s has no usage: %v", name, s.Attributes)
		}
		// The job's processes are the tree of the process the agent
		// watches, this test, under which the steps run.
		if m := attrOf(s, "jobtrace.usage.memory.peak"); m == "" || m == "0" {
			t.Errorf("%s: the job's memory peak is %q: the steps' processes were not measured", name, m)
		}
	}
	if attrOf(spans["test"], "cicd.pipeline.task.run.result") != "failure" {
		t.Errorf("the failing step's result is %q", attrOf(spans["test"], "cicd.pipeline.task.run.result"))
	}
	for _, f := range []string{usagecsv.FileName, report.HTMLName, report.SVGName, profile.FileName} {
		if fi, err := os.Stat(filepath.Join(j.out(), f)); err != nil || fi.Size() == 0 {
			t.Errorf("artifact %s: %v", f, err)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(j.out(), usagecsv.FileName))
	for _, name := range []string{",compile,", ",package,"} {
		if !strings.Contains(string(csv), name) {
			t.Errorf("no sample of %s in the CSV", name)
		}
	}
	prof, _ := os.ReadFile(filepath.Join(j.out(), profile.FileName))
	if !bytes.Contains(prof, []byte(`"compile"`)) {
		t.Error("compile is not in the profile")
	}
	st, err := background.ReadState(j.out())
	if err != nil || st.End == nil || st.End.Reason != background.ReasonStop || background.Alive(j.out()) {
		t.Errorf("state after stop: %+v %v", st, err)
	}
	if _, err := os.Stat(st.PrivateDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("private directory left: %v", err)
	}
}

// hasAttr reports whether s has the attribute key, whatever its value.
func hasAttr(s *tracepb.Span, key string) bool {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return true
		}
	}
	return false
}

// A second start for the same out directory is refused, naming the agent
// that holds it; the first one is left as it was.
func TestSecondStartRefused(t *testing.T) {
	j := newJob(t)
	j.start(nil)
	st, err := background.ReadState(j.out())
	if err != nil {
		t.Fatal(err)
	}
	r := j.run(nil, "start")
	if r.code != 1 || !strings.Contains(r.stderr, fmt.Sprintf("pid %d", st.Pid)) || r.stdout != "" {
		t.Errorf("second start: exit %d, stdout %q\n%s", r.code, r.stdout, r.stderr)
	}
	if r := j.run(nil, "stop"); r.code != 0 {
		t.Errorf("stop: exit %d\n%s", r.code, r.stderr)
	}
}

// eval "$(jobtrace start --shell)" gives a POSIX shell the environment;
// stop finds the agent by $JOBTRACE_SOCKET from another directory.
func TestStartShellAndStopElsewhere(t *testing.T) {
	j := newJob(t)
	other := t.TempDir()
	r := j.sh(nil, "sh", "-c", `set -e
eval "$(jobtrace start --shell --out agent-out)"
jobtrace exec step -- true
cd "$1"
jobtrace stop`, "sh", other)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	spans, _ := spansOf(t, filepath.Join(j.wd, "agent-out"))
	if spans["step"] == nil || !strings.Contains(r.stderr, "ended with result success") {
		t.Errorf("spans %v\n%s", spans, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(other, "jobtrace-out")); err == nil {
		t.Error("stop made an out directory where it ran")
	}
}

// start takes the configuration that run takes and refuses what `jobtrace
// config` refuses, with status 2, and refuses the flags of run's command.
func TestStartConfiguration(t *testing.T) {
	j := newJob(t)
	for _, args := range [][]string{
		{"--endpoint", "localhost:4317", "--protocol", "grpc-web"},
		{"--interval", "1ms"},
	} {
		c := j.run(nil, append([]string{"config"}, args...)...)
		s := j.run(nil, append([]string{"start"}, args...)...)
		if c.code != 2 || s.code != 2 || c.stderr != s.stderr {
			t.Errorf("%q: config exit %d %q, start exit %d %q", args, c.code, c.stderr, s.code, s.stderr)
		}
	}
	for _, flag := range []string{"--grace-period=1s", "--record-args", "--markers=none"} {
		if r := j.run(nil, "start", flag); r.code != 2 || !strings.Contains(r.stderr, "jobtrace run") {
			t.Errorf("start %s: exit %d\n%s", flag, r.code, r.stderr)
		}
	}
	if background.Alive(j.out()) {
		t.Error("an agent was left running")
	}
}

// stop after the agent was killed says so (pid, what the spool holds, how
// to render it), renders the report and the profile from what was written,
// and exits 1; a second stop says no agent runs.
func TestStopAfterAgentKilled(t *testing.T) {
	j := newJob(t)
	env := j.start(nil, "--interval", "100ms")
	st := j.stepThenKill(env, "before-the-crash")
	r := j.run(nil, "stop")
	for _, want := range []string{fmt.Sprintf("pid %d", st.Pid), "is gone", "jobtrace report " + j.out(), "spans.otlp.jsonl"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stop's stderr has no %q:\n%s", want, r.stderr)
		}
	}
	if r.code != 1 {
		t.Errorf("stop after a kill: exit %d", r.code)
	}
	if _, err := os.Stat(filepath.Join(j.out(), report.HTMLName)); err != nil {
		t.Errorf("no report rendered: %v", err)
	}
	spans, _ := spansOf(t, j.out())
	if spans["before-the-crash"] == nil {
		t.Errorf("the step's span is not in the spool: %v", spans)
	}
	if _, err := os.Stat(st.PrivateDir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the killed agent's private directory is left: %v", err)
	}
	if r := j.run(nil, "stop"); r.code != 1 || !strings.Contains(r.stderr, "no agent runs") {
		t.Errorf("second stop: exit %d\n%s", r.code, r.stderr)
	}
}

// stop after a killed agent that could not deliver its spans (its
// collector refused them) sends them to the collector the stop step's
// settings name, as replay does, and says so; it still exits 1.
func TestStopSendsWhatAKilledAgentHadNotDelivered(t *testing.T) {
	j := newJob(t)
	env := j.start([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + otlptest.Refused(t)}, "--interval", "100ms")
	j.stepThenKill(env, "before-the-crash")
	c := &otlptest.Collector{}
	h := otlptest.StartHTTP(t, "127.0.0.1:0", c)
	r := j.run([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + h.Addr}, "stop")
	if r.code != 1 || !strings.Contains(r.stderr, "is gone") || !strings.Contains(r.stderr, "it had not delivered to") {
		t.Errorf("stop after the kill: exit %d\n%s", r.code, r.stderr)
	}
	if !slices.Contains(c.SpanNames(), "before-the-crash") {
		t.Errorf("the collector got %q, not the step the agent had not delivered", c.SpanNames())
	}
}

// An agent that is never stopped ends by itself after --idle without a
// message: its job's span says it was not stopped, the result is timeout,
// and the artifacts are written.
func TestAgentEndsWhenIdle(t *testing.T) {
	j := newJob(t)
	j.start(nil, "--idle", "1s", "--interval", "100ms")
	st := j.waitEnd()
	if st.End.Reason != background.ReasonIdle || st.End.Result != "timeout" {
		t.Errorf("end %+v", st.End)
	}
	spans, _ := spansOf(t, j.out())
	if s := spans["job"]; s == nil || attrOf(s, string(background.AttrEndReason)) != "idle" || !hasAttr(s, string(background.AttrStopped)) {
		t.Errorf("job span %v", s)
	}
	if _, err := os.Stat(filepath.Join(j.out(), report.HTMLName)); err != nil {
		t.Error(err)
	}
}

// An agent that watches a process ends when it is gone.
func TestAgentEndsWithTheWatchedProcess(t *testing.T) {
	j := newJob(t)
	sleeper := exec.Command("sleep", "600")
	if err := sleeper.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleeper.Process.Kill()
	j.start(nil, "--watch-pid", fmt.Sprint(sleeper.Process.Pid))
	st, err := background.ReadState(j.out())
	if err != nil || st.Watch != sleeper.Process.Pid || st.WatchName != "sleep" {
		t.Fatalf("state %+v %v", st, err)
	}
	sleeper.Process.Kill()
	sleeper.Wait()
	st = j.waitEnd()
	if st.End.Reason != background.ReasonWatched || st.End.Result != "error" {
		t.Errorf("end %+v", st.End)
	}
	log, _ := os.ReadFile(st.Log)
	if !strings.Contains(string(log), "is gone") {
		t.Errorf("log:\n%s", log)
	}
}

// A start whose stdout has no reader (a closed pipe, `| head -1` gone
// early) still gives the steps the environment through $GITHUB_ENV or
// --dotenv, and is not killed by SIGPIPE; with no file to give it to, it
// says that the steps will not join the job.
func TestStartWithAClosedStdout(t *testing.T) {
	for _, withFile := range []bool{true, false} {
		j := newJob(t)
		genv := filepath.Join(j.wd, "github.env")
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		cmd := exec.Command(bin, "start", "--watch-pid", "0", "--idle", "1m")
		cmd.Dir = j.wd
		cmd.Env = j.env
		if withFile {
			cmd.Env = append(cmd.Env, "GITHUB_ENV="+genv)
		}
		var stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = w, &stderr
		err = cmd.Run()
		w.Close()
		code := cmd.ProcessState.ExitCode()
		data, _ := os.ReadFile(genv)
		switch {
		case withFile && (code != 0 || !strings.Contains(string(data), "TRACEPARENT=")):
			t.Errorf("with $GITHUB_ENV: exit %d (%v), $GITHUB_ENV %q\n%s", code, err, data, stderr.String())
		case !withFile && (code != 1 || !strings.Contains(stderr.String(), "will not join")):
			t.Errorf("without a file: exit %d (%v)\n%s", code, err, stderr.String())
		}
		if r := j.run(nil, "stop"); r.code != 0 {
			t.Errorf("stop: exit %d\n%s", r.code, r.stderr)
		}
	}
}

// The out dir of a running agent removed by a step (actions/checkout
// empties the workspace it checks out into; `git clean -ffdx`), then its
// lock alone: the agent makes it again within WatchInterval, with its log,
// spool and CSV as far as they were written, its lock and its state file,
// and goes on. The steps after it join the job, `jobtrace stop` finds the
// agent, and the artifacts hold the steps from before and after. Before,
// the agent ended (out_removed) and every later step was lost.
func TestAgentKeepsItsOutDirWhenRemoved(t *testing.T) {
	j := newJob(t)
	env := j.start(nil, "--idle", "0", "--watch-pid", "0")
	if r := j.run(env, "exec", "before", "--", "true"); r.code != 0 {
		t.Fatalf("exec before: %d %s", r.code, r.stderr)
	}
	st, err := background.ReadState(j.out())
	if err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(j.out(), background.StateFile)
	for _, rm := range []string{j.out(), filepath.Join(j.out(), ".jobtrace-agent.lock")} {
		if err := os.RemoveAll(rm); err != nil {
			t.Fatal(err)
		}
		// A bound on a hang, not on the time it takes.
		for deadline := time.Now().Add(agentEndWait); ; time.Sleep(50 * time.Millisecond) {
			if _, err := os.Stat(state); err == nil && background.Alive(j.out()) {
				break
			}
			if time.Now().After(deadline) {
				syscall.Kill(st.Pid, syscall.SIGKILL)
				t.Fatalf("no agent for %s %s after %s was removed", j.out(), agentEndWait, rm)
			}
		}
	}
	if r := j.run(env, "exec", "after", "--", "true"); r.code != 0 {
		t.Fatalf("exec after: %d %s", r.code, r.stderr)
	}
	// From a shell without the environment: found by the state file.
	if r := j.run(nil, "stop"); r.code != 0 {
		t.Fatalf("stop: exit %d\n%s", r.code, r.stderr)
	}
	spans, _ := spansOf(t, j.out())
	for _, name := range []string{"before", "after"} {
		if spans[name] == nil {
			t.Errorf("no span %q", name)
		}
	}
	for _, f := range []string{"resource-usage.csv", "report.html", "profile.json"} {
		if _, err := os.Stat(filepath.Join(j.out(), f)); err != nil {
			t.Error(err)
		}
	}
	log, _ := os.ReadFile(filepath.Join(j.out(), background.LogFile))
	if !bytes.Contains(log, []byte("agent ")) || !bytes.Contains(log, []byte("was removed during the run: made again")) {
		t.Errorf("the log lacks its start or the removal:\n%s", log)
	}
}

// An agent ended by a signal, then signalled again while it waits for a
// collector that never answers, stops waiting long before its export
// timeout: it ends with its state written, the export said to be cut short
// by the signal, and the spans pending in the spool.
func TestAgentSignalledDuringItsExport(t *testing.T) {
	j := newJob(t)
	j.start([]string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + otlptest.Hanging(t)}, "--export-timeout", "3m")
	st, err := background.ReadState(j.out())
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(st.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	// The shutdown span is in the spool once the agent's end has begun.
	timingtest.Eventually(t, "the agent's end", func() bool {
		data, _ := os.ReadFile(filepath.Join(j.out(), "spans.otlp.jsonl"))
		return bytes.Contains(data, []byte(`"jobtrace shutdown"`))
	})
	sent := time.Now()
	if err := syscall.Kill(st.Pid, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for background.Alive(j.out()) {
		if time.Since(sent) > 2*time.Minute {
			t.Fatal("the agent still waits for the collector 2 minutes after the second signal")
		}
		time.Sleep(10 * time.Millisecond)
	}
	end, err := background.ReadState(j.out())
	if err != nil || end.End == nil {
		t.Fatalf("state after the end: %+v, %v", end, err)
	}
	if end.End.Reason != background.ReasonSignal || end.End.Code != background.ExitExportIncomplete {
		t.Errorf("end %+v, want ended by a signal with the export incomplete", end.End)
	}
	log, err := os.ReadFile(st.Log)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"stopped by a signal (terminated)", "jobtrace replay"} {
		if !strings.Contains(string(log), want) {
			t.Errorf("the agent's log does not say %q:\n%s", want, log)
		}
	}
}
