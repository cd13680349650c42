package cgroup

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/jobtrace/jobtrace/internal/kernfmt"
	"github.com/jobtrace/jobtrace/internal/rawfile"
)

// Mount is a cgroup2 mount found in /proc/<pid>/mountinfo.
type Mount struct {
	// Point is where the hierarchy is mounted: /sys/fs/cgroup on a pure
	// cgroup v2 host, /sys/fs/cgroup/unified on a hybrid one.
	Point string
	// Root is the cgroup of the hierarchy shown at Point, "/" unless the
	// mount was made inside a cgroup namespace or is a bind mount of a
	// sub-tree (as in some containers).
	Root string
}

// FindMount reads <procRoot>/self/mountinfo (procRoot is normally /proc) and
// returns the first cgroup2 mount, or an error wrapping ErrNoCgroup2.
func FindMount(procRoot string) (Mount, error) {
	path := filepath.Join(procRoot, "self", "mountinfo")
	var buf []byte
	n, err := rawfile.ReadFile(path, &buf)
	if err != nil {
		return Mount{}, err
	}
	return parseMountInfo(path, buf[:n])
}

// parseMountInfo finds the first cgroup2 line of a mountinfo file. Its
// format is in proc(5):
//
//	41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
//	(1)(2)(3) (4) (5)                   (6)         (7) (8)   (9)     (10)
//
// where (7) is zero or more optional fields ended by "-", and (8) is the file
// system type. Paths escape space, tab, newline and backslash as \ooo octal.
func parseMountInfo(path string, data []byte) (Mount, error) {
	n := 0
	for len(data) > 0 {
		var line []byte
		line, data = kernfmt.NextLine(data)
		n++
		if len(line) == 0 {
			continue
		}
		f := strings.Fields(string(line))
		sep := -1
		for i := 6; i < len(f); i++ {
			if f[i] == "-" {
				sep = i
				break
			}
		}
		if len(f) < 7 || sep < 0 || sep+1 >= len(f) {
			return Mount{}, parseErr(path, n, "want mountinfo fields")
		}
		if f[sep+1] != "cgroup2" {
			continue
		}
		return Mount{Point: unescapeOctal(f[4]), Root: unescapeOctal(f[3])}, nil
	}
	return Mount{}, fmt.Errorf("%w: no cgroup2 mount in %s", ErrNoCgroup2, path)
}

// unescapeOctal undoes the \ooo escaping of mountinfo paths.
func unescapeOctal(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }
