//go:build unix

package main

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/session"
)

// shortDir is a temporary directory with a path short enough for a socket
// (at most 108 bytes).
func shortDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "jt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// listenUnreached listens at a socket in dir that takes connections and
// then either closes them at once (hang false) or holds them without ever
// answering (hang true), as an agent that is going away or stuck does.
func listenUnreached(t *testing.T, dir string, hang bool) string {
	t.Helper()
	path := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	held := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if !hang {
				c.Close()
				continue
			}
			select {
			case held <- c:
			default:
				c.Close()
			}
		}
	}()
	t.Cleanup(func() {
		l.Close()
		for {
			select {
			case c := <-held:
				c.Close()
			default:
				return
			}
		}
	})
	return path
}

// listenOK listens at a socket in a new short directory and answers each
// connection's first line with ok, as an agent does, handing on the lines.
func listenOK(t *testing.T) (path string, lines <-chan string) {
	t.Helper()
	path = filepath.Join(shortDir(t), "sock")
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	got := make(chan string, 1)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Write([]byte(`{"ok":true}` + "\n"))
			c.Close()
			got <- line
		}
	}()
	return path, got
}

// TestMarkerWithoutItsAgentDoesNotFailTheStep: a marker command whose
// JOBTRACE_SOCKET leads to no agent (the run that set it has ended, the
// agent was killed, it takes the connection and closes it, it never
// answers) warns, names what was not recorded, and exits 0 within the
// reply timeout, as a marker the agent refuses does: a `set -e` step goes
// on. Before, it exited 1.
func TestMarkerWithoutItsAgentDoesNotFailTheStep(t *testing.T) {
	gone := filepath.Join(shortDir(t), "sock")
	cases := []struct {
		name, path string
		args       []string
		want       string
	}{
		{"no socket", gone, []string{"phase", "begin", "compile"}, `phase begin "compile" not recorded`},
		{"not a socket", shortDir(t), []string{"event", "cache-miss", "--attr", "k=v"}, `event "cache-miss" not recorded`},
		{"closed at once", listenUnreached(t, shortDir(t), false), []string{"phase", "end", "compile", "--result", "failure"}, `phase end "compile" may not be recorded`},
		{"never answers", listenUnreached(t, shortDir(t), true), []string{"counter", "tests.failed", "--value", "3"}, `counter "tests.failed" may not be recorded`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := jt(t, []string{session.EnvSocket + "=" + tc.path}, tc.args...)
			if r.code != 0 {
				t.Errorf("exit %d, want 0; stderr %q", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "jobtrace: warning: JOBTRACE_SOCKET="+tc.path+": ") || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("stderr %q, want a warning naming %s and ending %q", r.stderr, tc.path, tc.want)
			}
			if n := strings.Count(r.stderr, "\n"); n != 1 {
				t.Errorf("%d lines on stderr, want 1: %q", n, r.stderr)
			}
		})
	}
}

// TestDeliverWithoutItsAgent: the full command (the one that runs where the
// fast path does not, or when it could not connect) takes an unreachable
// agent as the fast path does: no error, so exit 0.
func TestDeliverWithoutItsAgent(t *testing.T) {
	for name, path := range map[string]string{
		"no socket":      filepath.Join(shortDir(t), "sock"),
		"closed at once": listenUnreached(t, shortDir(t), false),
	} {
		t.Run(name, func(t *testing.T) {
			c := &cli{start: time.Now(), getenv: func(k string) string {
				if k == session.EnvSocket {
					return path
				}
				return ""
			}}
			if err := c.cmdEvent([]string{"tick"}); err != nil {
				t.Fatalf("event with its agent gone: %v", err)
			}
		})
	}
}
