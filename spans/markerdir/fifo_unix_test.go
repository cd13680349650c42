//go:build unix

package markerdir

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestFIFOIsNotOpened(t *testing.T) {
	r, rec, dir := newReader(t, Options{})
	if err := unix.Mkfifo(filepath.Join(dir, "p.jsonl"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan struct{})
	go func() { r.poll(false); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("poll blocked on a FIFO")
	}
	if !strings.Contains(rec.warnings(), "not a regular file") {
		t.Errorf("warnings: %s", rec.warnings())
	}
}
