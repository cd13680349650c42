//go:build unix

package safefile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// plant makes dir/name a symbolic link to a file outside dir holding
// "secret", and returns that file's path.
func plant(t *testing.T, dir, name string) string {
	t.Helper()
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, name)); err != nil {
		t.Fatal(err)
	}
	return target
}

func checkUntouched(t *testing.T, target string) {
	t.Helper()
	data, err := os.ReadFile(target)
	if err != nil || string(data) != "secret" {
		t.Errorf("the link's target was written: %q, %v", data, err)
	}
}

func TestOpenRefusesSymlink(t *testing.T) {
	for name, open := range map[string]func(string) (*os.File, error){
		"Create":  func(p string) (*os.File, error) { return Create(p, 0o644) },
		"Append":  func(p string) (*os.File, error) { return Append(p, 0o644) },
		"OpenLog": func(p string) (*os.File, error) { return OpenLog(p, 0o644) },
		"Open rw": func(p string) (*os.File, error) {
			return Open(p, os.O_RDWR|os.O_CREATE, 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			target := plant(t, dir, "f")
			f, err := open(filepath.Join(dir, "f"))
			if err == nil {
				f.Write([]byte("overwritten"))
				f.Close()
				t.Fatal("a symbolic link was opened")
			}
			if !errors.Is(err, ErrSymlink) {
				t.Errorf("err = %v, want ErrSymlink", err)
			}
			checkUntouched(t, target)
		})
	}
}

func TestOpenRefusesHardLink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, []byte("secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(target, filepath.Join(dir, "f")); err != nil {
		t.Skipf("no hard link here: %v", err)
	}
	_, err := Create(filepath.Join(dir, "f"), 0o644)
	if !errors.Is(err, ErrLinked) {
		t.Errorf("err = %v, want ErrLinked", err)
	}
	checkUntouched(t, target) // not truncated either
}

func TestOpenRefusesFIFOWithoutHanging(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := unix.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	for _, open := range []func(string) (*os.File, error){
		func(p string) (*os.File, error) { return Append(p, 0o644) },
		func(p string) (*os.File, error) { return OpenLog(p, 0o644) },
	} {
		if f, err := open(p); err == nil {
			f.Close()
			t.Error("a FIFO was opened")
		}
	}
}

func TestOpenLogTakesDevNull(t *testing.T) {
	f, err := OpenLog(os.DevNull, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if f, err := Append(os.DevNull, 0o644); err == nil {
		f.Close()
		t.Error("Append opened a device")
	}
}

func TestCreateTruncatesAndAppendAppends(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, []byte("old content"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("a\n"))
	f.Close()
	f, err = Append(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("b\n"))
	f.Close()
	if data, _ := os.ReadFile(p); string(data) != "a\nb\n" {
		t.Errorf("file = %q", data)
	}
}

func TestReplaceReplacesTheLinkNotItsTarget(t *testing.T) {
	dir := t.TempDir()
	target := plant(t, dir, "f")
	p := filepath.Join(dir, "f")
	if err := WriteFile(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	checkUntouched(t, target)
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o644 {
		t.Fatalf("%s: %v, %v; want a regular file, mode 0644", p, fi.Mode(), err)
	}
	if data, _ := os.ReadFile(p); string(data) != "new" {
		t.Errorf("file = %q", data)
	}
	assertOnly(t, dir, "f")
}

func TestReplaceLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := Replace(p, 0o644, func(w io.Writer) error {
		w.Write([]byte("half"))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want boom", err)
	}
	if data, _ := os.ReadFile(p); string(data) != "old" {
		t.Errorf("file = %q, want it as it was", data)
	}
	assertOnly(t, dir, "f")
}

func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, _ := os.ReadDir(dir)
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if len(got) != len(names) {
		t.Fatalf("%s holds %q, want %q", dir, got, names)
	}
	for i := range got {
		if got[i] != names[i] {
			t.Fatalf("%s holds %q, want %q", dir, got, names)
		}
	}
}

func TestPrivateDir(t *testing.T) {
	parent := t.TempDir()
	p := filepath.Join(parent, "state")
	if err := PrivateDir(p); err != nil {
		t.Fatalf("new dir: %v", err)
	}
	if fi, _ := os.Stat(p); fi.Mode().Perm() != 0o700 {
		t.Errorf("mode %v, want 0700", fi.Mode().Perm())
	}
	if err := PrivateDir(p); err != nil {
		t.Errorf("existing private dir: %v", err)
	}

	open := filepath.Join(parent, "open")
	os.Mkdir(open, 0o700)
	os.Chmod(open, 0o777)
	if err := PrivateDir(open); !errors.Is(err, ErrNotPrivate) {
		t.Errorf("mode 0777: err = %v, want ErrNotPrivate", err)
	}

	link := filepath.Join(parent, "link")
	os.Symlink(p, link)
	if err := PrivateDir(link); !errors.Is(err, ErrSymlink) {
		t.Errorf("link to a private dir: err = %v, want ErrSymlink", err)
	}

	file := filepath.Join(parent, "file")
	os.WriteFile(file, nil, 0o600)
	if err := PrivateDir(file); !errors.Is(err, ErrNotPrivate) {
		t.Errorf("a file: err = %v, want ErrNotPrivate", err)
	}
}

func TestPrivateDirOwnedByAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a directory to another user")
	}
	p := filepath.Join(t.TempDir(), "state")
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Skipf("chown: %v", err)
	}
	if err := PrivateDir(p); !errors.Is(err, ErrNotPrivate) {
		t.Errorf("dir of uid 65534: err = %v, want ErrNotPrivate", err)
	}
	if err := SafeParent(p); !errors.Is(err, ErrNotPrivate) {
		t.Errorf("SafeParent, dir of uid 65534: err = %v, want ErrNotPrivate", err)
	}
}

func TestSafeParent(t *testing.T) {
	if err := SafeParent(t.TempDir()); err != nil {
		t.Errorf("own dir: %v", err)
	}
	if fi, err := os.Stat("/tmp"); err == nil && fi.Mode()&os.ModeSticky != 0 {
		if err := SafeParent("/tmp"); err != nil {
			t.Errorf("/tmp: %v", err)
		}
	}
	open := t.TempDir()
	os.Chmod(open, 0o777)
	if err := SafeParent(open); !errors.Is(err, ErrNotPrivate) {
		t.Errorf("mode 0777, not sticky: err = %v, want ErrNotPrivate", err)
	}
}

func TestOwnLink(t *testing.T) {
	dir := t.TempDir()
	real := t.TempDir()
	link := filepath.Join(dir, "out")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := OwnLink(link); err != nil {
		t.Errorf("the user's own link: %v", err)
	}
	if err := OwnLink(real); err != nil {
		t.Errorf("a directory: %v", err)
	}
	if err := OwnLink(filepath.Join(dir, "missing")); err != nil {
		t.Errorf("a missing path: %v", err)
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a link to another user")
	}
	if err := os.Lchown(link, 65534, 65534); err != nil {
		t.Skipf("lchown: %v", err)
	}
	for _, p := range []string{link, link + "/"} {
		if err := OwnLink(p); !errors.Is(err, ErrSymlink) {
			t.Errorf("%s, a link of uid 65534: err = %v, want ErrSymlink", p, err)
		}
	}
}

// A dangling link would make O_CREAT create its target: refused too.
func TestOpenRefusesDanglingSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(t.TempDir(), "would-be-created")
	if err := os.Symlink(target, filepath.Join(dir, "f")); err != nil {
		t.Fatal(err)
	}
	if f, err := Append(filepath.Join(dir, "f"), 0o644); err == nil {
		f.Close()
		t.Error("a dangling link was opened")
	} else if !errors.Is(err, ErrSymlink) {
		t.Errorf("err = %v, want ErrSymlink", err)
	}
	if _, err := os.Lstat(target); err == nil {
		t.Error("the link's target was created")
	}
}

// What is not jobtrace's at one of its names is removed, never followed;
// what may be data is left.
func TestReclaim(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	os.Symlink(target, link)
	fifo := filepath.Join(dir, "fifo")
	unix.Mkfifo(fifo, 0o600)
	hard := filepath.Join(dir, "hard")
	os.Link(target, hard)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o700)

	for _, tc := range []struct {
		path, what string
		gone       bool
	}{
		{link, "a symbolic link to " + target, true},
		{fifo, "a FIFO", true},
		{hard, "", false},
		{target, "", false},
		{sub, "", false},
		{filepath.Join(dir, "absent"), "", false},
	} {
		what, err := Reclaim(tc.path)
		if err != nil || what != tc.what {
			t.Errorf("Reclaim(%s) = %q, %v; want %q", filepath.Base(tc.path), what, err, tc.what)
		}
		_, lerr := os.Lstat(tc.path)
		if gone := errors.Is(lerr, fs.ErrNotExist); gone != tc.gone && filepath.Base(tc.path) != "absent" {
			t.Errorf("%s gone: %v, want %v", filepath.Base(tc.path), gone, tc.gone)
		}
	}
	if b, err := os.ReadFile(target); err != nil || string(b) != "keep" {
		t.Errorf("the link's target was touched: %q, %v", b, err)
	}
	// Open can then create the file where the link was.
	f, err := Append(link, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
}

func TestReplaceGivesPermWhateverTheUmask(t *testing.T) {
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	p := filepath.Join(t.TempDir(), "f")
	for _, perm := range []os.FileMode{0o644, 0o600, 0o640} {
		if err := WriteFile(p, []byte("x"), perm); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Lstat(p); err != nil || fi.Mode().Perm() != perm {
			t.Errorf("mode %v, %v; want %v", fi.Mode().Perm(), err, perm)
		}
	}
}

// TestReplaceIsARename checks that the file at path is replaced by a new
// one, not rewritten: another name of the old file keeps its content.
func TestReplaceIsARename(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(p, filepath.Join(dir, "g")); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(p); string(data) != "new" {
		t.Errorf("file = %q", data)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "g")); string(data) != "old" {
		t.Errorf("the old file's other name holds %q, want old", data)
	}
	assertOnly(t, dir, "f", "g")
}

func TestReplaceLeavesADirectory(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "d")
	if err := os.Mkdir(p, 0o755); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(p, []byte("x"), 0o644)
	if !errors.Is(err, fs.ErrExist) {
		t.Errorf("err = %v, want one saying the file exists", err)
	}
	if fi, err := os.Lstat(p); err != nil || !fi.IsDir() {
		t.Errorf("%s is no longer a directory: %v", p, err)
	}
	assertOnly(t, dir, "d")
}

// TestCreateLeavesAnEmptyFileUntouched checks that an empty file is not
// truncated (ext4 writes a truncated file's blocks out at its close): its
// modification time stays.
func TestCreateLeavesAnEmptyFileUntouched(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	then := time.Now().Add(-time.Hour).Truncate(time.Second)
	if err := os.Chtimes(p, then, then); err != nil {
		t.Fatal(err)
	}
	f, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if fi, err := os.Stat(p); err != nil || !fi.ModTime().Equal(then) {
		t.Errorf("modified at %v, %v; want %v", fi.ModTime(), err, then)
	}
}
