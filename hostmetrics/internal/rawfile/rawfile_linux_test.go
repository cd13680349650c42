package rawfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

func TestReadsWholeFilesAndGrows(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789abcdef"), 1000) // 16000 bytes
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	cpath := append([]byte(path), 0)
	buf := make([]byte, 100)
	for _, whole := range []bool{false, true} {
		fd, errno := Open(cpath, 0)
		if errno != 0 {
			t.Fatal(errno)
		}
		n, errno := Read(fd, &buf, whole)
		unix.Close(fd)
		if errno != 0 || !bytes.Equal(buf[:n], data) {
			t.Errorf("whole=%v: read %d bytes, errno %v", whole, n, errno)
		}
	}
	if _, errno := Open(append([]byte(path+"-missing"), 0), 0); errno != unix.ENOENT {
		t.Errorf("missing file: errno %v", errno)
	}
	allocs := testing.AllocsPerRun(50, func() {
		fd, _ := Open(cpath, 0)
		Read(fd, &buf, false)
		unix.Close(fd)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per read", allocs)
	}
}
