package main

import (
	"bytes"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/session"
)

// TestMarkerToAFullQueueGivesUp: an agent that no longer takes connections
// (stopped, or stuck) and whose queue of connections is full held a marker
// command's connect for ever, and the job's step with it. It now gives up
// after the reply timeout, warns, and exits 0. The queue is a listener's
// with a backlog of 0 that one connection fills (Linux).
func TestMarkerToAFullQueueGivesUp(t *testing.T) {
	path := filepath.Join(shortDir(t), "sock")
	l, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(l)
	if err := syscall.Bind(l, &syscall.SockaddrUnix{Name: path}); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Listen(l, 0); err != nil {
		t.Fatal(err)
	}
	for i := 0; ; i++ {
		c, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC|syscall.SOCK_NONBLOCK, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer syscall.Close(c)
		err = syscall.Connect(c, &syscall.SockaddrUnix{Name: path})
		if err == syscall.EAGAIN {
			break // the queue is full
		}
		if err != nil {
			t.Fatal(err)
		}
		if i > 8 {
			t.Fatal("the listener's queue does not fill")
		}
	}
	// A bound on a hang, not on the time it takes.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "event", "deploy")
	cmd.Env = []string{session.EnvSocket + "=" + path}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v (before: held for ever); stderr %q", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), `event "deploy" not recorded`) {
		t.Errorf("stderr %q", stderr.String())
	}
}
