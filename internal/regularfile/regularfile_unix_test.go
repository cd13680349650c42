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

// OpenIn reads what an artifact directory holds: a link inside it is
// followed, one out of it (to a file elsewhere, a device) is refused, and a
// FIFO neither blocks nor is read.
func TestOpenInStaysInTheDirectory(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret")
	if err := os.WriteFile(secret, []byte("secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "real"), []byte("inside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"in": "real", "up": "../" + filepath.Base(outside) + "/secret", "abs": secret, "dev": "/dev/zero",
		"missing-out": filepath.Join(outside, "none"), "loop": "loop",
	} {
		if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := unix.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := OpenIn(dir, "in")
	if err != nil {
		t.Fatalf("a link inside the directory: %v", err)
	}
	f.Close()
	for name, want := range map[string]error{
		"up": ErrOutside, "abs": ErrOutside, "dev": ErrOutside, "missing-out": ErrOutside,
		"fifo": ErrNotRegular, "none": os.ErrNotExist,
	} {
		f, err := OpenIn(dir, name)
		if !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
		if f != nil {
			f.Close()
		}
	}
	if _, err := OpenIn(dir, "loop"); err == nil {
		t.Errorf("a link to itself: opened")
	}
	// The directory's own path may be a link: the user's choice.
	link := filepath.Join(t.TempDir(), "out")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if f, err := OpenIn(link, "real"); err != nil {
		t.Errorf("through a linked directory: %v", err)
	} else {
		f.Close()
	}
}
