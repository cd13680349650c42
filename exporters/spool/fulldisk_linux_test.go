package spool

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestFailedWriteLeavesWholeLines: a line that only partly reached a full
// disk is cut off again, so that the line written once the disk has room
// reads back whole, instead of being glued to the torn one and skipped
// with it.
func TestFailedWriteLeavesWholeLines(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=16k"); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })

	// Lines as the processor writes them: a short one, one longer than a
	// page, a short one.
	data := writeSpans(t, filepath.Join(t.TempDir(), TracesFile), "a", strings.Repeat("b", 6000), "c")
	lines := bytes.SplitAfter(data, []byte("\n"))
	if len(lines) != 4 || len(lines[0]) >= 4096 || len(lines[1]) <= 4096 {
		t.Fatalf("want a short, a long and a short line, got lengths %d", len(lines))
	}

	path := filepath.Join(mnt, TracesFile)
	c := NewTraceClient(path)
	if err := c.appendLine(lines[0], 1); err != nil {
		t.Fatal(err)
	}
	filler := filepath.Join(mnt, "filler")
	f, err := os.Create(filler)
	if err != nil {
		t.Fatal(err)
	}
	page := make([]byte, 4096)
	for {
		if _, err := f.Write(page); err != nil {
			break
		}
	}
	f.Close()
	// The long line fills the rest of the spool's page and fails.
	if err := c.appendLine(lines[1], 1); err == nil {
		t.Fatal("the long line was written on a full disk")
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := c.appendLine(lines[2], 1); err != nil {
		t.Fatalf("a line once the disk has room: %v", err)
	}
	c.Stop(t.Context())

	got, err := names(t, path, 0)
	if strings.Join(got, ",") != "a,c" || err != nil {
		t.Errorf("read %q, %v; want [a c] and no error", got, err)
	}
	if err != nil && !errors.Is(err, ErrParse) {
		t.Logf("read error: %v", err)
	}
}
