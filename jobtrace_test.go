package jobtrace_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/otel/attribute"
	"go.uber.org/goleak"

	"github.com/jobtrace/jobtrace"
	"github.com/jobtrace/jobtrace/config"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/internal/otlptest"
	"github.com/jobtrace/jobtrace/internal/spooltest"
	"github.com/jobtrace/jobtrace/internal/timingtest"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/socket"
)

// helperEnv makes the test binary, started by a test as a task's command,
// act as a step of the task (see TestMain).
const helperEnv = "JOBTRACE_TEST_STEP"

// TestMain runs the step a test started, else the tests, and checks that
// they leave no goroutine running.
func TestMain(m *testing.M) {
	if phase := os.Getenv(helperEnv); phase != "" {
		os.Exit(step(phase))
	}
	timingtest.VerifyTestMain(m)
}

// step is a task's command that opens and closes a phase over the socket,
// as `jobtrace phase begin|end` does, and prints one with output markers.
func step(phase string) int {
	c, err := socket.Dial(os.Getenv("JOBTRACE_SOCKET"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer c.Close()
	for _, typ := range []protocol.Type{protocol.TypeBegin, protocol.TypeEnd} {
		r, err := c.Request(protocol.Msg{V: protocol.Version, Type: typ, Name: phase, Syntax: protocol.SyntaxSocket})
		if err != nil || !r.OK {
			fmt.Fprintln(os.Stderr, typ, err, r.Error)
			return 2
		}
	}
	fmt.Println("BEGIN_PHASE printed")
	fmt.Println("END_PHASE printed")
	return 3
}

// stepCommand is the test binary as a task's command (see step).
func stepCommand(t *testing.T, phase string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"="+phase)
	return cmd
}

// A worker's task: its own phases, the task's command in a phase of its
// own with its usage, the command's phases (over the socket and in its
// output) under it, and every artifact once Stop returns.
func TestTask(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	out := filepath.Join(t.TempDir(), "out")
	var log strings.Builder
	task, err := jobtrace.Start(context.Background(),
		jobtrace.WithName("build"), jobtrace.WithOut(out), jobtrace.WithInterval(time.Hour),
		jobtrace.WithRunID("task-1/0"), jobtrace.WithAttributes(attribute.String("worker.id", "w1")),
		jobtrace.WithLog(&log))
	if err != nil {
		t.Fatal(err)
	}
	pulled := filepath.Join(t.TempDir(), "image")
	err = task.Phase(context.Background(), "image pull", func(context.Context) error {
		return os.WriteFile(pulled, []byte("layer"), 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := task.Phase(context.Background(), "cache setup", func(context.Context) error { return errors.New("no cache") }); err == nil {
		t.Error("Phase did not return fn's error")
	}
	cmd := stepCommand(t, "from the socket")
	var stdout strings.Builder
	cmd.Stdout = &stdout
	err = task.Run("task", cmd)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("Run: %v (output %q)", err, stdout.String())
	}
	if !strings.Contains(stdout.String(), "BEGIN_PHASE printed") {
		t.Errorf("the command's output %q did not reach its writer", stdout.String())
	}
	a, err := task.Stop(context.Background(), jobtrace.ResultOf(err))
	if err != nil {
		t.Fatal(err)
	}
	if a.Dir != out || len(a.Paths()) != 5 || !a.TraceID.IsValid() {
		t.Errorf("artifacts %+v", a)
	}
	for _, p := range a.Paths() {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("artifact %s: %v", p, err)
		}
	}

	got := spooltest.Read(t, a.Spans)
	for name, parent := range map[string]string{
		"image pull": "build", "cache setup": "build", "task": "build",
		"from the socket": "task", "printed": "task",
	} {
		if got[name].Parent != parent {
			t.Errorf("%s: parent %q, want %q", name, got[name].Parent, parent)
		}
	}
	for name, result := range map[string]string{"image pull": "success", "cache setup": "failure", "task": "failure", "build": "failure"} {
		if r := got[name].Attrs["cicd.pipeline.task.run.result"]; r != result {
			t.Errorf("%s: result %v, want %s", name, r, result)
		}
	}
	// The command's phase has its usage, as wait4 reported it.
	taskAttrs := got["task"].Attrs
	cpu, _ := taskAttrs[string(usage.AttrCPUUser)].(float64)
	sys, _ := taskAttrs[string(usage.AttrCPUSystem)].(float64)
	if want := (ee.ProcessState.UserTime() + ee.ProcessState.SystemTime()).Seconds(); fmt.Sprintf("%.3f", cpu+sys) != fmt.Sprintf("%.3f", want) {
		t.Errorf("the command's phase: CPU %v s, want the command's %v s (%v)", cpu+sys, want, taskAttrs)
	}
	if taskAttrs["process.exit.code"] != int64(3) {
		t.Errorf("the command's exit code %v", taskAttrs["process.exit.code"])
	}
	// A phase around Go code carries the machine's figures.
	if _, ok := got["image pull"].Attrs[string(usage.AttrSamples)]; !ok {
		t.Errorf("image pull has no usage: %v", got["image pull"].Attrs)
	}
	root := got["build"].Attrs
	if root["worker.id"] != "w1" || root["cicd.pipeline.task.run.id"] != "task-1/0" {
		t.Errorf("the task's span: %v", root)
	}
	if _, ok := root["process.exit.code"]; ok {
		t.Errorf("the task's span has an exit code: %v", root)
	}
}

// Calls after Stop are refused with ErrStopped, Phase and Run still do
// their work, and a result that is none is refused before anything stops.
func TestStopped(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var mu sync.Mutex
	var reported []string
	task, err := jobtrace.Start(context.Background(), jobtrace.WithOut(t.TempDir()), jobtrace.WithInterval(0),
		jobtrace.WithLog(&strings.Builder{}), jobtrace.WithErrorHandler(func(err error) {
			mu.Lock()
			defer mu.Unlock()
			reported = append(reported, err.Error())
		}))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := task.Stop(context.Background(), "fine"); err == nil || errors.Is(err, jobtrace.ErrStopped) {
		t.Errorf("Stop with a result that is none: %v", err)
	}
	a, err := task.Stop(context.Background(), "")
	if err != nil {
		t.Fatal(err)
	}
	if a.Spans == "" || a.UsageCSV != "" {
		t.Errorf("artifacts without sampling: %+v", a)
	}
	if _, err := task.Stop(context.Background(), jobtrace.Success); !errors.Is(err, jobtrace.ErrStopped) {
		t.Errorf("a second Stop: %v", err)
	}
	for what, err := range map[string]error{
		"Begin": task.Begin("late"), "End": task.End("late", jobtrace.Failure), "Event": task.Event("late"),
	} {
		if !errors.Is(err, jobtrace.ErrStopped) || !strings.Contains(err.Error(), "late") {
			t.Errorf("%s after Stop: %v", what, err)
		}
	}
	ran := false
	if err := task.Phase(context.Background(), "late phase", func(context.Context) error { ran = true; return nil }); err != nil || !ran {
		t.Errorf("Phase after Stop: ran %v, %v", ran, err)
	}
	if err := task.Run("late command", exec.Command("true")); err != nil {
		t.Errorf("Run after Stop: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reported) < 2 || !strings.Contains(strings.Join(reported, "\n"), `"late phase"`) {
		t.Errorf("reported %q", reported)
	}
	if got := spooltest.Read(t, a.Spans)["task"].Attrs["cicd.pipeline.task.run.result"]; got != "success" {
		t.Errorf("the task's result %v", got)
	}
}

// Two tasks of one process at once, each with its own out directory, see
// only their own phases and their own commands' usage.
func TestTwoTasks(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	var wg sync.WaitGroup
	results := make([]jobtrace.Artifacts, 2)
	for i := range results {
		wg.Go(func() {
			task, err := jobtrace.Start(context.Background(), jobtrace.WithName(fmt.Sprintf("task %d", i)),
				jobtrace.WithOut(filepath.Join(t.TempDir(), "out")), jobtrace.WithInterval(time.Hour), jobtrace.WithLog(&strings.Builder{}))
			if err != nil {
				t.Error(err)
				return
			}
			for j := range 3 {
				if err := task.Run(fmt.Sprintf("command %d.%d", i, j), stepCommand(t, fmt.Sprintf("step %d.%d", i, j))); err == nil {
					t.Error("the step exited 0")
				}
			}
			if results[i], err = task.Stop(context.Background(), jobtrace.Success); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	a, b := spooltest.Read(t, results[0].Spans), spooltest.Read(t, results[1].Spans)
	if results[0].Dir == results[1].Dir || results[0].TraceID == results[1].TraceID {
		t.Fatalf("the tasks share %s or %s", results[0].Dir, results[0].TraceID)
	}
	for i, got := range []map[string]spooltest.Span{a, b} {
		var names []string
		for name, s := range got {
			names = append(names, name)
			if s.TraceID != pcommon.TraceID(results[i].TraceID) {
				t.Errorf("task %d: span %q of another trace", i, name)
			}
		}
		slices.Sort(names)
		for j := range 3 {
			if p := got[fmt.Sprintf("step %d.%d", i, j)].Parent; p != fmt.Sprintf("command %d.%d", i, j) {
				t.Errorf("task %d: step %d under %q (spans %q)", i, j, p, names)
			}
		}
		if _, ok := got[fmt.Sprintf("step %d.0", 1-i)]; ok {
			t.Errorf("task %d has the other's phases: %q", i, names)
		}
	}
}

// The environment is read only when WithEnv asks, and the export settings
// from it or from options go through the one resolver.
func TestEnvAndExport(t *testing.T) {
	srv := otlptest.StartHTTP(t, "", nil)
	endpoint := "http://" + srv.Addr
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
	t.Setenv("OTEL_METRICS_EXPORTER", "none")
	run := func(opts ...jobtrace.Option) error {
		t.Helper()
		opts = append([]jobtrace.Option{jobtrace.WithOut(t.TempDir()), jobtrace.WithInterval(0), jobtrace.WithLog(&strings.Builder{})}, opts...)
		task, err := jobtrace.Start(context.Background(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		_, err = task.Stop(context.Background(), jobtrace.Success)
		return err
	}
	if err := run(); err != nil {
		t.Fatal(err)
	}
	if n := srv.Requests(); n != 0 {
		t.Fatalf("exported %d requests without WithEnv", n)
	}
	if err := run(jobtrace.WithEnv(nil)); err != nil {
		t.Fatal(err)
	}
	if n := srv.Requests(); n == 0 {
		t.Fatal("nothing exported with WithEnv")
	}
	before := srv.Requests()
	// An option overrides the environment, wherever WithEnv is.
	if err := run(jobtrace.WithEndpoint("http://"+otlptest.Refused(t)), jobtrace.WithEnv(nil), jobtrace.WithExportTimeout(100*time.Millisecond)); err == nil {
		t.Error("Stop with a collector that refuses connections did not say so")
	}
	if n := srv.Requests(); n != before {
		t.Errorf("WithEndpoint did not win over the environment: %d requests", n-before)
	}
	if err := run(jobtrace.WithEndpoint(endpoint), jobtrace.WithHeaders(map[string]string{"x-token": "t0k3n"})); err != nil {
		t.Fatal(err)
	}
	if srv.Header("x-token") != "t0k3n" {
		t.Errorf("header %q", srv.Header("x-token"))
	}
	for _, opts := range [][]jobtrace.Option{
		{jobtrace.WithInterval(time.Millisecond)},
		{jobtrace.WithEndpoint("ftp://collector")},
		{jobtrace.WithSummary("loud")},
	} {
		if task, err := jobtrace.Start(context.Background(), opts...); !errors.Is(err, config.ErrConfig) || task != nil {
			t.Errorf("a bad option: %v", err)
		}
	}
}
