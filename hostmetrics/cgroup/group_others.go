//go:build !linux

package cgroup

import (
	"fmt"
	"runtime"
	"time"
)

func notSupported(op string) error {
	return fmt.Errorf("%w: %s: cgroups exist only on Linux, not on %s", ErrNotSupported, op, runtime.GOOS)
}

// Create makes a cgroup for a job; it is supported only on Linux.
func Create(mount, parent, name string) (*Group, error) {
	return nil, notSupported("create cgroup")
}

// AddProc moves a process into the group; it is supported only on Linux.
// Descendants returns how many live cgroups are below dir: an error here.
func Descendants(dir string) (uint64, error) { return 0, notSupported("count cgroups") }

func (g *Group) AddProc(pid int) error { return notSupported("move process to cgroup") }

// End kills every process in the group and removes it; it is supported
// only on Linux.
func (g *Group) End(timeout time.Duration) error { return notSupported("end cgroup") }

// Remove removes the group; it is supported only on Linux.
func (g *Group) Remove(timeout time.Duration) error { return notSupported("remove cgroup") }
