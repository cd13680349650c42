package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestAppendLinesOnAFullDisk: the spans a marker command outside a run
// keeps in --out, appended to a disk that has room for part of them only,
// are cut off again, so that the spool holds whole lines and the lines
// kept once there is room read back.
func TestAppendLinesOnAFullDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("mounting a small tmpfs needs root")
	}
	mnt := t.TempDir()
	if err := syscall.Mount("tmpfs", mnt, "tmpfs", 0, "size=16k"); err != nil {
		t.Skipf("mount tmpfs: %v", err)
	}
	t.Cleanup(func() { syscall.Unmount(mnt, syscall.MNT_DETACH) })
	dst := filepath.Join(mnt, "out", "spans.otlp.jsonl")
	first := []byte("{\"a\":1}\n")
	if _, err := appendLines(first, dst); err != nil {
		t.Fatal(err)
	}
	filler, err := os.Create(filepath.Join(mnt, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	page := make([]byte, 4096)
	for {
		if _, err := filler.Write(page); err != nil {
			break
		}
	}
	filler.Close()
	long := []byte("{\"b\":\"" + strings.Repeat("b", 6000) + "\"}\n")
	if _, err := appendLines(long, dst); err == nil {
		t.Fatal("lines longer than the room left were appended")
	}
	if got, _ := os.ReadFile(dst); !bytes.Equal(got, first) {
		t.Errorf("after the failed append the spool holds %d bytes, want the %d of its whole lines", len(got), len(first))
	}
	os.Remove(filler.Name())
	last := []byte("{\"c\":3}\n")
	if _, err := appendLines(last, dst); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(dst); string(got) != string(first)+string(last) {
		t.Errorf("spool of %d bytes, want the %d of the first and the last lines", len(got), len(first)+len(last))
	}
}
