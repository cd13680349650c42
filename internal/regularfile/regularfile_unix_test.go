//go:build unix

package regularfile

import (
	"errors"
	"golang.org/x/sys/unix"
	"os"
	"path/filepath"
	"testing"
)

// /dev/zero never ends: read unbounded it grows memory until the process
// dies. A FIFO without a writer blocks open(2) forever. Both must be refused
// at once.
func TestReadDevicesAndFIFOs(t *testing.T) {
	if _, err := Read("/dev/zero", 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("/dev/zero: %v", err)
	}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	_, err := Read(fifo, 1<<20)
	if !errors.Is(err, ErrNotRegular) {
		t.Errorf("FIFO: %v", err)
	}
	t.Logf("FIFO: %v", err)
}

func TestOpenDevicesAndFIFOs(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "spans.otlp.jsonl")
	if err := os.Symlink("/dev/zero", link); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(link); !errors.Is(err, ErrNotRegular) {
		t.Errorf("link to /dev/zero: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if _, err := Open(fifo); !errors.Is(err, ErrNotRegular) {
		t.Errorf("FIFO: %v", err)
	}
}
