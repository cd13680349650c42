package cgroup

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/jobtrace/jobtrace/internal/kernfmt"
	"github.com/jobtrace/jobtrace/internal/rawfile"
)

// SelfPath reads <procRoot>/self/cgroup and returns the cgroup v2 path of
// the calling process, such as "/user.slice/user-1000.slice/session-2.scope"
// or "/" when it is in the root cgroup.
func SelfPath(procRoot string) (string, error) {
	p := filepath.Join(procRoot, "self", "cgroup")
	var buf []byte
	n, err := rawfile.ReadFile(p, &buf)
	if err != nil {
		return "", err
	}
	return parseProcCgroup(p, buf[:n])
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
	_, dir, err := FindSelf(procRoot)
	return dir, err
}

// FindSelf finds the calling process's cgroup (SelfPath) and the cgroup2
// mount it is seen through, and returns the mount and the cgroup's
// directory. With procRoot /proc, it first looks at the places a cgroup2
// hierarchy is mounted on a pure cgroup v2 host and on a hybrid one
// (MountV2, MountHybrid), which costs a few system calls where mountinfo
// costs a line of the kernel's for each mount of the namespace: the first
// of them that is a cgroup2 mount is taken when it shows the cgroup, by
// the mount's root as mountinfo gives it (statmount(2), Linux 6.8 and
// later), or else when the cgroup's directory under it holds the calling
// process (its pid is in cgroup.procs, read up to MaxProcsCheckBytes).
// Otherwise, as with any other procRoot, FindMount reads mountinfo.
func FindSelf(procRoot string) (Mount, string, error) {
	p, err := SelfPath(procRoot)
	if err != nil {
		// Said as before SelfPath was read first: no mount, else no path.
		if _, merr := FindMount(procRoot); merr != nil {
			return Mount{}, "", merr
		}
		return Mount{}, "", err
	}
	if filepath.Clean(procRoot) == "/proc" {
		if m, dir, ok := quickMount([]string{MountV2, MountHybrid}, p, os.Getpid(), lookMount); ok {
			return m, dir, nil
		}
	}
	m, err := FindMount(procRoot)
	if err != nil {
		return Mount{}, "", err
	}
	dir, err := m.Dir(p)
	if err != nil {
		return Mount{}, "", err
	}
	return m, dir, nil
}

// Where a cgroup2 hierarchy is mounted: on a pure cgroup v2 host, and on a
// hybrid one (v1 controllers beside it).
const (
	MountV2     = "/sys/fs/cgroup"
	MountHybrid = "/sys/fs/cgroup/unified"
)

// MaxProcsCheckBytes bounds how much of cgroup.procs FindSelf reads to
// find the calling process in it, when the kernel cannot say the mount's
// root: a cgroup that holds more processes than that (a root cgroup with
// the host's kernel threads) is left to mountinfo.
const MaxProcsCheckBytes = 8 << 10

// mountLook says what is mounted at a point: whether it is a cgroup2
// mount, and its root when the kernel tells it (known).
type mountLook func(point string) (cgroup2 bool, root string, known bool)

// quickMount returns the first of points that is a cgroup2 mount (look)
// and the directory of cgroupPath under it, when that mount certainly
// shows it: its root is known and holds cgroupPath (Mount.Dir), or, the
// root unknown, the directory holds pid. Otherwise it gives false, and
// mountinfo decides.
func quickMount(points []string, cgroupPath string, pid int, look mountLook) (Mount, string, bool) {
	for _, point := range points {
		cg2, root, known := look(point)
		if !cg2 {
			continue
		}
		if known {
			m := Mount{Point: point, Root: root}
			dir, err := m.Dir(cgroupPath)
			if err != nil {
				return Mount{}, "", false
			}
			return m, dir, true
		}
		dir := filepath.Join(point, filepath.FromSlash(path.Clean("/"+cgroupPath)))
		if !holdsPid(dir, pid) {
			return Mount{}, "", false
		}
		return Mount{Point: point, Root: "/"}, dir, true
	}
	return Mount{}, "", false
}

// holdsPid reports whether pid is in dir's cgroup.procs, read up to
// MaxProcsCheckBytes.
func holdsPid(dir string, pid int) bool {
	var buf []byte
	n, err := rawfile.ReadFileUpTo(filepath.Join(dir, "cgroup.procs"), &buf, MaxProcsCheckBytes)
	if err != nil || n == MaxProcsCheckBytes {
		return false
	}
	want := strconv.Itoa(pid)
	data := buf[:n]
	for len(data) > 0 {
		var line []byte
		line, data = kernfmt.NextLine(data)
		if string(line) == want {
			return true
		}
	}
	return false
}
