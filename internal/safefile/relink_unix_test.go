//go:build unix

package safefile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRelink: Relink leaves a file that has its name as it is; a file
// whose directory was removed while it was open gets its directory and a
// file at its path again, with the bytes written so far, which later writes
// follow, and is closed.
func TestRelink(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "spool")
	f, err := Open(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.WriteString("one\ntwo\n")
	if same, relinked, err := Relink(f, path, os.O_RDWR|os.O_APPEND, 0o640, -1); same != f || relinked || err != nil {
		t.Fatalf("Relink of a file with its name: %v, %v, %v", same, relinked, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if !unlinked(f) {
		t.Fatal("a file whose directory was removed is not unlinked")
	}
	nf, relinked, err := Relink(f, path, os.O_RDWR|os.O_APPEND, 0o640, 8)
	if err != nil || !relinked {
		t.Fatal(relinked, err)
	}
	if _, err := f.Stat(); err == nil {
		t.Error("the old file is still open")
	}
	defer nf.Close()
	nf.WriteString("three\n")
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "one\ntwo\nthree\n" {
		t.Fatalf("%q, %v", got, err)
	}
	if unlinked(nf) {
		t.Error("the new file is unlinked")
	}
}
