//go:build linux

package cgroup

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/jobtrace/jobtrace/internal/rawfile"
)

// Create makes the cgroup <mount>/<parent>/<name> for a job and returns it.
// parent must exist ("" or "/" is the mount's root); name must not.
//
// On a host where the hierarchy has controllers, Create first asks the parent
// to enable cpu, io, memory and pids for its children (cgroup.subtree_control)
// so that the new cgroup gets memory.*, io.* and pids.* files. It enables only
// those the parent itself has, one at a time, and never fails because of it:
// the kernel refuses when the parent is not the root and still holds processes
// (a process may live only in a leaf once controllers are enabled below it,
// the "no internal process" rule), or when a controller is not delegated.
// The group then has what it has; Controllers says which.
//
// Creating needs write access to the parent directory: root, or a delegated
// sub-tree (such as a systemd unit with Delegate=yes). Moving a process in
// with AddProc also needs write access to cgroup.procs of the common
// ancestor of the process's current cgroup and the group.
func Create(mount, parent, name string) (*Group, error) {
	if err := checkName(name); err != nil {
		return nil, err
	}
	pdir := filepath.Join(mount, parent)
	// The small files are read with bare system calls (rawfile.ReadFile),
	// in one buffer.
	buf := make([]byte, 512)
	enableControllers(pdir, &buf)
	dir := filepath.Join(pdir, name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cgroup: create: %w", err)
	}
	g := &Group{Dir: dir, r: NewReader(dir)}
	if n, err := rawfile.ReadFile(filepath.Join(dir, "cgroup.controllers"), &buf); err == nil {
		g.Controllers = strings.Fields(string(buf[:n]))
	}
	return g, nil
}

// enableControllers writes "+<controller>" to dir/cgroup.subtree_control for
// each wanted controller that dir offers and has not enabled yet. Errors are
// ignored: see Create.
func enableControllers(dir string, buf *[]byte) {
	n, err := rawfile.ReadFile(filepath.Join(dir, "cgroup.controllers"), buf)
	if err != nil {
		return
	}
	have := strings.Fields(string((*buf)[:n]))
	n, err = rawfile.ReadFile(filepath.Join(dir, "cgroup.subtree_control"), buf)
	if err != nil {
		n = 0
	}
	on := strings.Fields(string((*buf)[:n]))
	for _, c := range wantedControllers {
		if !contains(have, c) || contains(on, c) {
			continue
		}
		_ = writeSubtreeControl(filepath.Join(dir, "cgroup.subtree_control"), "+"+c)
	}
}

// writeSubtreeControl is writeFile; tests replace it to see what Create asks
// for, since a plain file cannot act like cgroup.subtree_control.
var writeSubtreeControl = writeFile

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// writeFile writes s to an existing cgroup file in one write(2): the kernel
// acts on each write as a whole. Bare system calls, as rawfile.ReadFile's.
func writeFile(path, s string) error {
	fd, err := unix.Open(path, unix.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return &fs.PathError{Op: "open", Path: path, Err: err}
	}
	for {
		_, err = unix.Write(fd, []byte(s))
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		unix.Close(fd)
		return &fs.PathError{Op: "write", Path: path, Err: err}
	}
	if err := unix.Close(fd); err != nil {
		return &fs.PathError{Op: "close", Path: path, Err: err}
	}
	return nil
}

// Descendants returns how many live cgroups are below dir (cgroup.stat's
// nr_descendants), which tells whether dir has any child without listing
// it.
func Descendants(dir string) (uint64, error) {
	path := filepath.Join(dir, "cgroup.stat")
	var buf []byte
	n, err := rawfile.ReadFile(path, &buf)
	if err != nil {
		return 0, err
	}
	return ParseDescendants(path, buf[:n])
}

// AddProc moves the process pid (and all its threads) into the group by
// writing it to cgroup.procs. Its children forked afterwards start in the
// group too.
func (g *Group) AddProc(pid int) error {
	if err := writeFile(filepath.Join(g.Dir, "cgroup.procs"), strconv.Itoa(pid)); err != nil {
		return fmt.Errorf("cgroup: move pid %d to %s: %w", pid, g.Dir, err)
	}
	return nil
}

// Kill sends SIGKILL to every process in the group and its descendants at
// once, by writing 1 to cgroup.kill, which Linux has since 5.14. On older
// kernels the file is absent and Kill returns an error wrapping
// ErrNotSupported; the caller then signals the processes itself.
func (g *Group) Kill() error {
	p := filepath.Join(g.Dir, "cgroup.kill")
	err := writeFile(p, "1")
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(g.Dir); serr == nil {
			return fmt.Errorf("%w: %s is absent (cgroup.kill needs Linux 5.14 or later)", ErrNotSupported, p)
		}
	}
	if err != nil {
		return fmt.Errorf("cgroup: kill %s: %w", g.Dir, err)
	}
	return nil
}

// removePoll is how often Remove looks again at a group that still holds
// processes; exiting processes leave it within a few milliseconds.
const removePoll = 5 * time.Millisecond

// Remove waits until no process is left in the group or below it, then
// removes any child cgroups (the job may have made some) and the group's
// directory. It gives up after timeout with an error saying what is left; the
// caller may Kill and Remove again. Removing a group that is already gone is
// not an error.
func (g *Group) Remove(timeout time.Duration) error {
	g.r.Close()
	deadline := time.Now().Add(timeout)
	for {
		err := removeTree(g.Dir)
		if err == nil || errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cgroup: remove %s after %v: %w", g.Dir, timeout, err)
		}
		time.Sleep(removePoll)
	}
}

var errPopulated = errors.New("processes still in the cgroup")

// removeTree removes dir and its child cgroups, deepest first, if no process
// is in any of them. A group without processes nor child groups goes with
// one rmdir, which the kernel refuses (EBUSY) for any other.
func removeTree(dir string) error {
	if err := syscall.Rmdir(dir); err == nil {
		return nil
	} else if errors.Is(err, fs.ErrNotExist) {
		return &fs.PathError{Op: "rmdir", Path: dir, Err: err}
	}
	if populated(dir) {
		return errPopulated
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
	// (it is being reaped); the caller retries.
	return os.Remove(dir)
}

// populated reports whether processes are in dir or below it. It reads
// "populated" from cgroup.events (every non-root cgroup has it), and falls
// back to a non-empty cgroup.procs.
func populated(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "cgroup.events"))
	if err == nil {
		if p, ok := parsePopulated(data); ok {
			return p
		}
	}
	procs, err := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
	return err == nil && len(bytes.TrimSpace(procs)) > 0
}
