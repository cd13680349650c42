//go:build linux

package cgroup

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/jobtrace/jobtrace/internal/cgrouptree"
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

// End kills every process in the group and below it and removes the
// groups, deepest first, giving up after timeout with an error saying what
// is left: cgroup.kill kills them all at once (Linux 5.14 and later), and
// each process still listed is sent SIGKILL until none is (the only way on
// older kernels). Ending a group that is already gone is not an error.
func (g *Group) End(timeout time.Duration) error {
	g.r.Close()
	if err := cgrouptree.Remove(g.Dir, time.Now().Add(timeout), true); err != nil {
		return fmt.Errorf("cgroup: end %s after %v: %w", g.Dir, timeout, err)
	}
	return nil
}

// Remove waits until no process is left in the group or below it, then
// removes any child cgroups (the job may have made some) and the group's
// directory. It gives up after timeout with an error saying what is left.
// Removing a group that is already gone is not an error. Ending a job's
// cgroup, its processes killed, is package cgrouptree's Remove.
func (g *Group) Remove(timeout time.Duration) error {
	g.r.Close()
	if err := cgrouptree.Remove(g.Dir, time.Now().Add(timeout), false); err != nil {
		return fmt.Errorf("cgroup: remove %s after %v: %w", g.Dir, timeout, err)
	}
	return nil
}
