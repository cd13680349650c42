package cgrouptree

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// Poll is how often Remove looks again at a cgroup that still holds
// processes; killed processes leave it within a few milliseconds.
const Poll = 5 * time.Millisecond

// ErrPopulated is the error of a cgroup that still holds processes.
var ErrPopulated = errors.New("processes still in the cgroup")

// Procs returns the processes listed in dir's cgroup.procs and in those of
// the cgroups below it.
func Procs(dir string) []int {
	var out []int
	_ = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return nil
		}
		data, err := os.ReadFile(filepath.Join(path, "cgroup.procs"))
		if err != nil {
			return nil
		}
		for _, f := range bytes.Fields(data) {
			if pid, err := strconv.Atoi(string(f)); err == nil && pid > 0 {
				out = append(out, pid)
			}
		}
		return nil
	})
	return out
}

// Kill kills the processes in dir and in the cgroups below it: all at once
// by cgroup.kill (Linux 5.14 and later), and each one listed by SIGKILL
// (the way on a kernel without cgroup.kill). It returns those listed.
func Kill(dir string) []int {
	return kill(dir, true)
}

// kill is Kill, with cgroup.kill written only when killFile is set. The
// processes are listed first: killed by cgroup.kill, they leave the list.
func kill(dir string, killFile bool) []int {
	procs := Procs(dir)
	if killFile {
		_ = writeFile(filepath.Join(dir, "cgroup.kill"), "1")
	}
	for _, pid := range procs {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	return procs
}

// Remove removes dir and the cgroups below it, deepest first, once no
// process is left in any of them, looking again every Poll until deadline;
// then it returns the last error, ErrPopulated when processes were left.
// With killing, it kills those processes first (Kill), and again at every
// look: a process may fork between the listing and its signal. A cgroup
// that is gone is removed.
func Remove(dir string, deadline time.Time, killing bool) error {
	return remove(dir, deadline, killing, killing)
}

// remove is Remove, with cgroup.kill written only when killFile is set:
// tests take the path of a kernel without it.
func remove(dir string, deadline time.Time, killFile, killing bool) error {
	if killing {
		kill(dir, killFile)
	}
	for {
		err := removeTree(dir)
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if killing {
			kill(dir, false)
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(Poll)
	}
}

// removeTree removes dir and the cgroups below it, deepest first, if no
// process is in any of them. A cgroup without processes nor child cgroups
// goes with one rmdir, which the kernel refuses (EBUSY) for any other.
func removeTree(dir string) error {
	if err := syscall.Rmdir(dir); err == nil {
		return nil
	} else if errors.Is(err, fs.ErrNotExist) {
		return &fs.PathError{Op: "rmdir", Path: dir, Err: err}
	}
	if Populated(dir) {
		return ErrPopulated
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if e.IsDir() {
			if err := removeTree(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
	}
	// rmdir can still say EBUSY for a moment after the last process left
	// (it is being reaped); the caller looks again.
	return os.Remove(dir)
}

// Populated reports whether processes are in dir or below it. It reads
// "populated" from cgroup.events (every non-root cgroup has it), and falls
// back to a non-empty cgroup.procs.
func Populated(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
	if err == nil {
		if p, ok := ParsePopulated(data); ok {
			return p
		}
	}
	procs, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	return err == nil && len(bytes.TrimSpace(procs)) > 0
}

// writeFile writes s to an existing cgroup file in one write(2), never
// through a symbolic link.
func writeFile(path, s string) error {
	fd, err := syscall.Open(path, syscall.O_WRONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return &fs.PathError{Op: "open", Path: path, Err: err}
	}
	_, err = syscall.Write(fd, []byte(s))
	if cerr := syscall.Close(fd); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
