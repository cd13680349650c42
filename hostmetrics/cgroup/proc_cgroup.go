package cgroup

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/jobtrace/jobtrace/hostmetrics/internal/kernfmt"
)

// SelfPath reads <procRoot>/self/cgroup and returns the cgroup v2 path of
// the calling process, such as "/user.slice/user-1000.slice/session-2.scope"
// or "/" when it is in the root cgroup.
func SelfPath(procRoot string) (string, error) {
	p := filepath.Join(procRoot, "self", "cgroup")
	data, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	return parseProcCgroup(p, data)
}

// parseProcCgroup finds the cgroup v2 entry of a /proc/<pid>/cgroup file.
// Each line is "hierarchy-ID:controller-list:path" (cgroups(7)); the v2 entry
// is the one with ID 0 and an empty controller list, "0::/path". On a hybrid
// host the v1 lines come first and are skipped.
func parseProcCgroup(name string, data []byte) (string, error) {
	n := 0
	for len(data) > 0 {
		var line []byte
		line, data = kernfmt.NextLine(data)
		n++
		if len(line) == 0 {
			continue
		}
		id, rest, ok1 := strings.Cut(string(line), ":")
		ctrl, p, ok2 := strings.Cut(rest, ":")
		if !ok1 || !ok2 {
			return "", parseErr(name, n, "want ID:controllers:path")
		}
		if id == "0" && ctrl == "" {
			// After a cgroup is removed while a process is still in it
			// (impossible for v2, but seen on v1), the kernel appends
			// " (deleted)"; it is not part of the path.
			p = strings.TrimSuffix(p, " (deleted)")
			if !strings.HasPrefix(p, "/") {
				return "", parseErr(name, n, "path is not absolute")
			}
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: no 0:: line in %s", ErrNoCgroup2, name)
}

// Dir returns the directory of the cgroup at path (as in /proc/self/cgroup)
// under the mount m. When the mount shows a sub-tree (Root is not "/"), the
// part of the path above it is removed; a path outside the sub-tree has no
// directory under this mount and gives an error wrapping ErrNoCgroup2.
func (m Mount) Dir(cgroupPath string) (string, error) {
	root := path.Clean("/" + m.Root)
	p := path.Clean("/" + cgroupPath)
	if root != "/" {
		switch {
		case p == root:
			p = "/"
		case strings.HasPrefix(p, root+"/"):
			p = p[len(root):]
		default:
			return "", fmt.Errorf("%w: cgroup %s is outside the mount of %s at %s", ErrNoCgroup2, cgroupPath, m.Root, m.Point)
		}
	}
	return filepath.Join(m.Point, filepath.FromSlash(p)), nil
}

// SelfDir finds the cgroup2 mount and the calling process's cgroup under
// procRoot, and returns that cgroup's directory, such as
// /sys/fs/cgroup/system.slice/runner.service.
func SelfDir(procRoot string) (string, error) {
	m, err := FindMount(procRoot)
	if err != nil {
		return "", err
	}
	p, err := SelfPath(procRoot)
	if err != nil {
		return "", err
	}
	return m.Dir(p)
}
