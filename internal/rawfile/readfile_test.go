package rawfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestReadFileGrows(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 1000)
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var buf []byte
	n, err := ReadFile(path, &buf)
	if err != nil || !bytes.Equal(buf[:n], data) {
		t.Errorf("read %d bytes, %v", n, err)
	}
	if _, err := ReadFile(path+".missing", &buf); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// ReadFileUpTo stops at its limit, which the buffer does not grow past,
// and reads a smaller file whole.
func TestReadFileUpTo(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 1000)
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, limit := range []int{1, 4096, 5000, len(data), len(data) + 1, 0} {
		var buf []byte
		n, err := ReadFileUpTo(path, &buf, limit)
		want := data
		if limit > 0 {
			want = data[:min(limit, len(data))]
		}
		if err != nil || !bytes.Equal(buf[:n], want) {
			t.Errorf("limit %d: read %d bytes, %v; want %d", limit, n, err, len(want))
		}
	}
}
