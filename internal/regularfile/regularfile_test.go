package regularfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"
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

func TestOpenRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	f, err := Open(dir)
	if !errors.Is(err, ErrNotRegular) {
		t.Errorf("directory: %v, %v", f, err)
	}
	if _, err := Open(filepath.Join(dir, "absent")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("absent: %v", err)
	}
	name := filepath.Join(dir, "file")
	if err := os.WriteFile(name, []byte("a\nb\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err = Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil || string(b) != "a\nb\n" {
		t.Errorf("regular file: %q, %v", b, err)
	}
}

func TestLimitLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		max  int
		want string
		err  bool
	}{
		{"abc\ndef\n", 3, "abc\ndef\n", false},
		{"abc\ndefg\n", 3, "abc\ndef", true},
		{"abcd", 3, "abc", true},
		{"", 3, "", false},
		{"\n\n\n", 0, "\n\n\n", false},
		{strings.Repeat("x", 100) + "\n" + strings.Repeat("y", 101), 100, strings.Repeat("x", 100) + "\n" + strings.Repeat("y", 100), true},
	} {
		// One byte at a time and all at once must agree.
		for _, r := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
			got, err := io.ReadAll(LimitLines(r, tc.max))
			if string(got) != tc.want || errors.Is(err, ErrLineTooLong) != tc.err {
				t.Errorf("LimitLines(%q, %d) = %q, %v; want %q, error %v", tc.in, tc.max, got, err, tc.want, tc.err)
			}
		}
	}
}
