package cgroup

import (
	"fmt"
	"strings"
)

// Group is a cgroup v2 directory created for a job by Create.
type Group struct {
	// Dir is the cgroup's directory, <mount>/<parent>/<name>.
	Dir string
	// Controllers lists the controllers enabled for the group (its
	// cgroup.controllers when it was created), such as "cpu io memory pids".
	// It is empty on a hybrid host's unified hierarchy, where only cpu.stat
	// and the pressure files exist.
	Controllers []string

	r *Reader
}

// Read fills s from the group's files. See Reader.Read.
func (g *Group) Read(s *Stats) error { return g.r.Read(s) }

// HasController reports whether the controller (such as "memory") is enabled
// for the group.
func (g *Group) HasController(name string) bool {
	for _, c := range g.Controllers {
		if c == name {
			return true
		}
	}
	return false
}

// wantedControllers are the controllers whose files Stats reads. Create asks
// the parent to enable those it offers for its children.
var wantedControllers = []string{"cpu", "io", "memory"}

// checkName refuses names that would not make exactly one new directory.
func checkName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, "/\x00") {
		return fmt.Errorf("cgroup: invalid cgroup name %q", name)
	}
	return nil
}

// Open returns a Group for an existing cgroup directory, such as one made by
// an earlier Create, so it can be read, killed or removed.
func Open(dir string) *Group { return &Group{Dir: dir, r: NewReader(dir)} }
