package proctree

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// Lookup reads a process's parent, name and start time, and sees it exit.
func TestLookup(t *testing.T) {
	root := t.TempDir()
	write := func(pid int, line string) {
		dir := filepath.Join(root, strconv.Itoa(pid))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "stat"), []byte(line), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(42, "42 (Runner.Worker (x)) S 7 42 42 0 -1 4194560 1 0 0 0 5 6 0 0 20 0 3 0 12345 100 10 18446744073709551615\n")
	write(43, "43 (sh) Z 42 42 42 0 -1 4194560 1 0 0 0 5 6 0 0 20 0 1 0 12400 0 0 18446744073709551615\n")
	id, err := Lookup(root, 42)
	if err != nil || id != (Ident{Pid: 42, PPid: 7, Comm: "Runner.Worker (x)", Start: 12345}) {
		t.Errorf("Lookup(42) = %+v, %v", id, err)
	}
	if id, err := Lookup(root, 43); err != nil || !id.Exited || id.PPid != 42 {
		t.Errorf("Lookup(43) = %+v, %v", id, err)
	}
	if _, err := Lookup(root, 44); err == nil {
		t.Error("Lookup of a process that is not there did not fail")
	}
}
