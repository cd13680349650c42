//go:build unix

package safefile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRelink: a file whose directory was removed while it was open is
// Unlinked; Relink makes the directory again and a file at its path with
// the bytes written so far, which later writes follow.
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
	if Unlinked(f) {
		t.Fatal("a file with its name is Unlinked")
	}
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	if !Unlinked(f) {
		t.Fatal("a file whose directory was removed is not Unlinked")
	}
	nf, err := Relink(f, path, os.O_RDWR|os.O_APPEND, 0o640, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer nf.Close()
	nf.WriteString("three\n")
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "one\ntwo\nthree\n" {
		t.Fatalf("%q, %v", got, err)
	}
	if Unlinked(nf) {
		t.Error("the new file is Unlinked")
	}
}
