package regularfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small")
	if err := os.WriteFile(small, []byte("12345"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(small, 5); err != nil || string(b) != "12345" {
		t.Errorf("at the limit: %q, %v", b, err)
	}
	if _, err := Read(small, 4); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := Read(dir, 1<<20); !errors.Is(err, ErrNotRegular) {
		t.Errorf("directory: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "absent"), 1<<20); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent: %v", err)
	}
	// A symbolic link to a regular file is that file.
	link := filepath.Join(dir, "link")
	if err := os.Symlink(small, link); err == nil {
		if b, err := Read(link, 5); err != nil || string(b) != "12345" {
			t.Errorf("link: %q, %v", b, err)
		}
	}
}
