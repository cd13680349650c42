package rawfile

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
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

func TestFileReadsAgainFromItsStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("first"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := NewFile(path)
	defer f.Close()
	var buf []byte
	n, op, errno := f.ReadAll(&buf, false)
	if errno != 0 || string(buf[:n]) != "first" {
		t.Fatalf("%q, %s %v", buf[:n], op, errno)
	}
	fd := f.fd
	// The same file with new content (os.WriteFile truncates it in place).
	if err := os.WriteFile(path, []byte("second, longer"), 0o600); err != nil {
		t.Fatal(err)
	}
	n, _, errno = f.ReadAll(&buf, true)
	if errno != 0 || string(buf[:n]) != "second, longer" {
		t.Errorf("second read %q, %v", buf[:n], errno)
	}
	if f.fd != fd {
		t.Error("the file was opened again")
	}
	// A file that does not exist is tried again at each read.
	g := NewFile(path + ".missing")
	if _, op, errno := g.ReadAll(&buf, false); op != "open" || errno != unix.ENOENT {
		t.Errorf("missing file: %s %v", op, errno)
	}
	if err := os.WriteFile(path+".missing", []byte("now"), 0o600); err != nil {
		t.Fatal(err)
	}
	if n, _, errno := g.ReadAll(&buf, false); errno != 0 || string(buf[:n]) != "now" {
		t.Errorf("file made since: %q, %v", buf[:n], errno)
	}
	g.Close()
}

// A cgroup removed while its files are kept open: the read fails (ENODEV),
// and the File says the file has gone, as a fresh open would. Needs a
// cgroup v2 hierarchy where a cgroup may be made (root, or a delegated one).
func TestFileOfARemovedCgroup(t *testing.T) {
	var dir string
	for _, mount := range []string{"/sys/fs/cgroup/unified", "/sys/fs/cgroup"} {
		d := filepath.Join(mount, "rawfile-test-"+strconv.Itoa(os.Getpid()))
		if os.Mkdir(d, 0o755) == nil {
			if _, err := os.Stat(filepath.Join(d, "cpu.stat")); err == nil {
				dir = d
				break
			}
			os.Remove(d)
		}
	}
	if dir == "" {
		t.Skip("no cgroup v2 directory can be made here")
	}
	defer os.Remove(dir)
	f := NewFile(filepath.Join(dir, "cpu.stat"))
	defer f.Close()
	var buf []byte
	if n, op, errno := f.ReadAll(&buf, false); errno != 0 || !bytes.HasPrefix(buf[:n], []byte("usage_usec")) {
		t.Fatalf("%q, %s %v", buf[:n], op, errno)
	}
	if err := os.Remove(dir); err != nil {
		t.Fatalf("rmdir with the file open: %v", err)
	}
	if _, op, errno := f.ReadAll(&buf, false); op != "open" || errno != unix.ENOENT {
		t.Errorf("after rmdir: %s %v, want open ENOENT", op, errno)
	}
}

// ReadFile reads what the os package reads, from files the kernel makes
// as they are read, some longer than a first buffer.
func TestReadFileAsOS(t *testing.T) {
	for _, path := range []string{"/proc/self/cgroup", "/proc/self/mountinfo", "/proc/self/status", "/proc/version"} {
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 16)
		n, err := ReadFile(path, &buf)
		// /proc/self/status changes between reads only in its figures.
		if err != nil || n == 0 || path != "/proc/self/status" && !bytes.Equal(buf[:n], want) {
			t.Errorf("%s: read %q, %v; want %q", path, buf[:n], err, want)
		}
	}
}

// ENOENT and EOPNOTSUPP (a pressure file with PSI disabled) say the figure
// is absent, and their PathError matches fs.ErrNotExist with the errno's
// message; other errnos are failures to read.
func TestAbsent(t *testing.T) {
	for _, c := range []struct {
		errno  unix.Errno
		absent bool
	}{
		{unix.ENOENT, true},
		{unix.EOPNOTSUPP, true},
		{unix.EIO, false},
		{unix.EACCES, false},
		{unix.ENODEV, false},
	} {
		err := PathError("read", "/proc/pressure/cpu", c.errno)
		if Absent(c.errno) != c.absent || errors.Is(err, fs.ErrNotExist) != c.absent {
			t.Errorf("%v: Absent %v, PathError %v matches fs.ErrNotExist %v; want %v",
				c.errno, Absent(c.errno), err, errors.Is(err, fs.ErrNotExist), c.absent)
		}
		if want := "read /proc/pressure/cpu: " + c.errno.Error(); err.Error() != want || !errors.Is(err, c.errno) {
			t.Errorf("%v: %q, want %q wrapping the errno", c.errno, err, want)
		}
	}
}
