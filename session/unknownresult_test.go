package session

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"

	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/scan"
	"github.com/jobtrace/jobtrace/spans/socket"
	"github.com/jobtrace/jobtrace/supervise"
)

// An end whose result is none of the results has one outcome whatever
// its source (a Go call, Handle, the socket, the marker dir, an output
// marker): it is refused by protocol.Validate and counted, and its phase
// stays open, ended with the job as any phase left open. Before, an
// output marker ended its phase as a success (the word an attribute), and
// Handle ended it as an error.
func TestUnknownResultIsRefusedFromEverySource(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	var log syncBuffer
	s := New(Settings{
		Name: "build", Out: dir, ExportTimeout: time.Second,
		Socket: true, MarkerDir: true, Scan: scan.Options{Phase: true},
		Resource: sdkresource.Empty(), Summary: "off",
		Log: supervise.NewLogger(&log),
	})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	sources := []string{"go", "handle", "socket", "markerdir", "output"}
	for _, name := range sources {
		if err := s.Begin(name); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{}
	for _, kv := range s.JobEnv(nil) {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}

	if err := s.End("go", "passed"); !errors.Is(err, ErrRefused) {
		t.Errorf("End: %v, want refused", err)
	}
	if r := s.Handle(protocol.Msg{Type: protocol.TypeEnd, Name: "handle", Result: "passed", Syntax: protocol.SyntaxGo}); r.OK {
		t.Errorf("Handle: %+v, want refused", r)
	}
	c, err := socket.Dial(env[EnvSocket])
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Request(protocol.Msg{V: protocol.Version, Type: protocol.TypeEnd, Name: "socket", Result: "passed"})
	c.Close()
	if err != nil || r.OK || !strings.Contains(r.Error, `unknown result "passed"`) {
		t.Errorf("socket: %+v %v, want refused", r, err)
	}
	line := `{"v":1,"type":"end","name":"markerdir","result":"passed"}` + "\n"
	if err := os.WriteFile(filepath.Join(env[EnvMarkerDir], "step.jsonl"), []byte(line), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, _ := s.Output()
	fmt.Fprintln(stdout, "END_PHASE output result=passed")

	if _, err := s.Shutdown(context.Background(), Outcome{}); err != nil {
		t.Fatal(err)
	}
	got := readSpool(t, dir)
	for _, name := range sources {
		sp := got[name]
		if sp.Attrs["cicd.pipeline.task.run.result"] != protocol.ResultError || sp.Status != ptrace.StatusCodeError ||
			sp.StatusMessage != "phase still open when the job ended" || sp.Attrs["result"] != nil {
			t.Errorf("%s: %v, status %v %q; want left open, ended with the job", name, sp.Attrs, sp.Status, sp.StatusMessage)
		}
	}
	job := got["build"].Attrs
	for _, key := range []string{"jobtrace.dropped.socket_messages", "jobtrace.dropped.marker_messages", "jobtrace.dropped.output_markers"} {
		if fmt.Sprint(job[key]) != "1" {
			t.Errorf("%s = %v, want 1", key, job[key])
		}
	}
	if out := log.String(); !strings.Contains(out, `output: marker: unknown result "passed": "END_PHASE output result=passed"`) {
		t.Errorf("the output marker is not warned about:\n%s", out)
	}
}
