package main

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

// TestFastPathInitializesFirst: `jobtrace phase begin` inside a run is
// answered by the fast path before any package outside the standard
// library is initialized (cmd/jobtrace/internal/fastpath states the rule):
// GODEBUG=inittrace=1 prints a line per package initialized, and the fast
// path exits from its own init, having sent its TRACEPARENT as the scope.
func TestFastPathInitializesFirst(t *testing.T) {
	path, got := listenOK(t)
	cmd := exec.Command(bin, "phase", "begin", "compile", "--attr", "k=v")
	const tp = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" // a step's
	cmd.Env = []string{"JOBTRACE_SOCKET=" + path, "GODEBUG=inittrace=1", "TRACEPARENT=" + tp}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if line := <-got; !strings.Contains(line, `"type":"begin","name":"compile","scope":"`+tp+`"`) {
		t.Fatalf("the socket got %q", line)
	}
	n := 0
	for _, l := range strings.Split(stderr.String(), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 || f[0] != "init" {
			continue
		}
		n++
		if first, _, _ := strings.Cut(f[1], "/"); strings.Contains(first, ".") {
			t.Errorf("%s was initialized before the fast path answered", f[1])
		}
	}
	if n == 0 {
		t.Errorf("no init lines: GODEBUG=inittrace=1 not honoured? stderr %q", stderr.String())
	}
	t.Logf("%d packages initialized before the fast path answered", n)
}
