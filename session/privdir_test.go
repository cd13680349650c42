//go:build unix

package session

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

func TestParsePrivateDirName(t *testing.T) {
	for name, want := range map[string]int{
		"jobtrace-123-456": 123, "jobtrace-1-0": 1,
		"jobtrace-123": 0, "jobtrace--456": 0, "jobtrace-12a-456": 0, "jobtrace-12-4x": 0,
		"jobtrace-0-1": 0, "xjobtrace-1-2": 0, "jobtrace-1-2-3": 0, "jobtrace-spool-1": 0,
	} {
		pid, ok := parsePrivateDirName(name)
		if ok != (want > 0) || pid != want {
			t.Errorf("%q: %d, %v", name, pid, ok)
		}
	}
}

// deadPid returns the pid of a process that has exited.
func deadPid(t *testing.T) int {
	c := exec.Command("true")
	if err := c.Run(); err != nil {
		t.Skip(err)
	}
	return c.Process.Pid
}

func TestSweepPrivateDirs(t *testing.T) {
	parent := t.TempDir()
	dead := deadPid(t)
	old := time.Now().Add(-time.Hour)
	mk := func(name string, age time.Time) string {
		p := filepath.Join(parent, name)
		if err := os.Mkdir(p, 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(p, "f"), []byte("x"), 0o600)
		os.Chtimes(p, age, age)
		return p
	}
	stale := mk(fmt.Sprintf("jobtrace-%d-1", dead), old)
	young := mk(fmt.Sprintf("jobtrace-%d-2", dead), time.Now())
	alive := mk(fmt.Sprintf("jobtrace-%d-3", os.Getppid()), old)
	mine := mk(fmt.Sprintf("jobtrace-%d-4", os.Getpid()), old)
	locked := mk(fmt.Sprintf("jobtrace-%d-5", dead), old)
	other := mk("jobtrace-spool-6", old)
	lock, err := lockPrivateDir(locked)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	target := mk("target", old)
	link := filepath.Join(parent, fmt.Sprintf("jobtrace-%d-7", dead))
	os.Symlink(target, link)

	if n := sweepPrivateDirs(parent, time.Now()); n != 1 {
		t.Errorf("removed %d directories, want 1", n)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the stale directory is left: %v", err)
	}
	for _, p := range []string{young, alive, mine, locked, other, link, filepath.Join(target, "f")} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s was removed", p)
		}
	}
}

// A run's own private directory carries its pid and is locked for as long
// as the run holds it.
func TestNewPrivateDirIsLocked(t *testing.T) {
	parent := t.TempDir()
	dir, lock, _, err := newPrivateDir(parent)
	if err != nil {
		t.Fatal(err)
	}
	if pid, ok := parsePrivateDirName(filepath.Base(dir)); !ok || pid != os.Getpid() {
		t.Errorf("name %s", dir)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("mode %v, %v", fi.Mode(), err)
	}
	if _, err := lockPrivateDir(dir); err == nil {
		t.Error("a second lock was granted")
	}
	lock.Close()
	l2, err := lockPrivateDir(dir)
	if err != nil {
		t.Errorf("lock after release: %v", err)
	} else {
		l2.Close()
	}
}
