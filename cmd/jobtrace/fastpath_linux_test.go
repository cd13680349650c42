package main

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestFastPathInitializesFirst: `jobtrace phase begin` inside a run is
// answered by the fast path before any package outside the standard
// library is initialized (cmd/jobtrace/internal/fastpath states the rule):
// GODEBUG=inittrace=1 prints a line per package initialized, and the fast
// path exits from its own init.
func TestFastPathInitializesFirst(t *testing.T) {
	dir, err := os.MkdirTemp("", "jt") // short: a socket path is at most 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan string, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			got <- err.Error()
			return
		}
		defer c.Close()
		line, _ := bufio.NewReader(c).ReadString('\n')
		c.Write([]byte(`{"ok":true}` + "\n"))
		got <- line
	}()
	cmd := exec.Command(bin, "phase", "begin", "compile", "--attr", "k=v")
	cmd.Env = []string{"JOBTRACE_SOCKET=" + path, "GODEBUG=inittrace=1"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	if line := <-got; !strings.Contains(line, `"type":"begin","name":"compile"`) {
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
