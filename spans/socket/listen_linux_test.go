//go:build linux

package socket

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/jobtrace/jobtrace/spans/protocol"
)

// The socket's backlog is the kernel's largest (net.core.somaxconn), as
// net.ListenUnix makes it: a burst of steps connecting at once before the
// server accepts is queued, not refused. (Up to 500 connections here.)
func TestListenBacklogIsTheKernels(t *testing.T) {
	data, err := os.ReadFile("/proc/sys/net/core/somaxconn")
	if err != nil {
		t.Skip(err)
	}
	somaxconn, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "s")
	s, err := Listen(path, func(protocol.Msg) protocol.Reply { return protocol.Reply{OK: true} }, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if s.Addr() != path {
		t.Errorf("Addr %q, want %q", s.Addr(), path)
	}
	// Not served: every connection waits in the backlog. A non-blocking
	// connect fails with EAGAIN once the backlog is full.
	n := min(somaxconn, 500)
	for i := range n {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer unix.Close(fd)
		if err := unix.Connect(fd, &unix.SockaddrUnix{Name: path}); err != nil {
			t.Fatalf("connection %d of %d (somaxconn %d): %v", i+1, n, somaxconn, err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(path); !os.IsNotExist(err) {
		t.Errorf("socket left after Close: %v", err)
	}
}
