package session

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	"golang.org/x/sys/unix"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/supervise"
)

// A program that runs the job's commands itself, one after the other,
// gets each command's usage on the phase around it, and their sum on the
// job; the process is not made a child subreaper when asked not to be;
// and the job's result is the one the program gives.
func TestCommandsOfAGoProgram(t *testing.T) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0); err != nil {
		t.Skipf("prctl: %v", err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	var log syncBuffer
	s := New(Settings{
		Name: "task", Out: dir, ExportTimeout: time.Second,
		Sampling: SamplingOptions{Interval: time.Hour, NoSubreaper: true},
		Resource: sdkresource.Empty(), Summary: "off",
		Log: supervise.NewLogger(&log),
	})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if sub, err := hostmetrics.IsSubreaper(); err != nil || sub {
		t.Errorf("the process is a child subreaper (%v, %v)", sub, err)
	}
	cpu := map[string]float64{}
	// The first command costs more than the second: the second's usage
	// is its own, not what it adds to the first's.
	for _, c := range []struct{ name, loops string }{{"first", "300000"}, {"second", "100000"}} {
		if err := s.Begin(c.name); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sh", "-c", `i=0; while [ $i -lt $1 ]; do i=$((i+1)); done`, "sh", c.loops)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if err := s.CommandStarted(cmd.Process.Pid); err != nil {
			t.Fatal(err)
		}
		if err := s.CommandStarted(12345); !errors.Is(err, ErrRefused) {
			t.Errorf("a second command while one is followed: %v", err)
		}
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
		s.CommandExited(cmd.ProcessState)
		cpu[c.name] = (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
		if err := s.End(c.name, ""); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Shutdown(context.Background(), Outcome{Result: "bogus"}); !errors.Is(err, ErrRefused) {
		t.Errorf("Shutdown with a result that is none: %v", err)
	}
	res, err := s.Shutdown(context.Background(), Outcome{Result: protocol.ResultCancellation})
	if err != nil {
		t.Fatal(err)
	}
	if res.Result != protocol.ResultCancellation {
		t.Errorf("result %q", res.Result)
	}
	got := readSpool(t, dir)
	phaseCPU := func(name string) float64 {
		a := got[name].Attrs
		u, _ := a[string(usage.AttrCPUUser)].(float64)
		sy, _ := a[string(usage.AttrCPUSystem)].(float64)
		return u + sy
	}
	for name, want := range cpu {
		// Both are what wait4 reported: the window's ends are samples
		// taken with no command running.
		if g := phaseCPU(name); fmt.Sprintf("%.3f", g) != fmt.Sprintf("%.3f", want) {
			t.Errorf("%s: CPU %.4f s, want the command's %.4f s", name, g, want)
		}
	}
	if g, want := phaseCPU("task"), cpu["first"]+cpu["second"]; fmt.Sprintf("%.3f", g) != fmt.Sprintf("%.3f", want) {
		t.Errorf("the job's CPU %.4f s, want the commands' %.4f s", g, want)
	}
	root := got["task"].Attrs
	if root["cicd.pipeline.task.run.result"] != protocol.ResultCancellation {
		t.Errorf("the job's result %v", root["cicd.pipeline.task.run.result"])
	}
	if _, ok := root["process.exit.code"]; ok {
		t.Errorf("an exit code on a job whose result was given: %v", root["process.exit.code"])
	}
	if err := s.CommandStarted(1); !errors.Is(err, ErrRefused) {
		t.Errorf("CommandStarted after Shutdown: %v", err)
	}
}
