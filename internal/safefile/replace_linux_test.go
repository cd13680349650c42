package safefile

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReplaceWritesWithoutAName checks that while a file is written, the
// directory holds no new name: a jobtrace killed then (kill -9, a CI job's
// time limit) leaves nothing behind in the out dir. A .report.html.tmpN
// stayed there before, with nothing to remove it.
func TestReplaceWritesWithoutAName(t *testing.T) {
	dir := t.TempDir()
	if fd, ok := openUnnamed(dir); ok {
		syscall.Close(fd)
	} else {
		t.Skip("no O_TMPFILE on this file system")
	}
	p := filepath.Join(dir, "report.html")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := Replace(p, 0o644, func(w io.Writer) error {
		assertOnly(t, dir, "report.html")
		_, err := w.Write([]byte("new"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); string(data) != "new" {
		t.Errorf("file = %q, want new", data)
	}
	assertOnly(t, dir, "report.html")
}
