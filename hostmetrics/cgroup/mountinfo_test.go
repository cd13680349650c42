package cgroup

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseMountInfo(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     Mount
	}{
		{"pure v2", "22 1 252:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n" +
			"25 24 0:27 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate\n",
			Mount{Point: "/sys/fs/cgroup", Root: "/"}},
		{"hybrid", "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n" +
			"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n" +
			"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n",
			Mount{Point: "/sys/fs/cgroup/unified", Root: "/"}},
		{"container sub-tree, no optional fields, escaped", "1000 999 0:27 /kubepods/pod1 /sys/fs/cgroup\\040x ro - cgroup2 cgroup rw\n",
			Mount{Point: "/sys/fs/cgroup x", Root: "/kubepods/pod1"}},
	} {
		got, err := parseMountInfo("mountinfo", []byte(tc.in))
		if err != nil || got != tc.want {
			t.Errorf("%s: got %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
	if _, err := parseMountInfo("mountinfo", []byte("22 1 252:1 / / rw - ext4 /dev/vda1 rw\n")); !errors.Is(err, ErrNoCgroup2) {
		t.Errorf("no cgroup2: err = %v", err)
	}
	if _, err := parseMountInfo("mountinfo", []byte("22 1 252:1 / / rw ext4 /dev/vda1 rw\n")); !errors.Is(err, ErrParse) {
		t.Errorf("no separator: err = %v", err)
	}
}

func TestParseProcCgroup(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"pure v2", "0::/system.slice/runner.service\n", "/system.slice/runner.service"},
		{"hybrid", "9:name=systemd:/\n4:memory:/process_api/b00e\n1:cpu:/\n0::/\n", "/"},
		{"hybrid in a child", "1:cpu:/\n0::/jobtrace-1\n", "/jobtrace-1"},
	} {
		got, err := parseProcCgroup("cgroup", []byte(tc.in))
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q, %v; want %q", tc.name, got, err, tc.want)
		}
	}
	if _, err := parseProcCgroup("cgroup", []byte("4:memory:/a\n1:cpu:/\n")); !errors.Is(err, ErrNoCgroup2) {
		t.Errorf("v1 only: err = %v", err)
	}
	if _, err := parseProcCgroup("cgroup", []byte("garbage\n")); !errors.Is(err, ErrParse) {
		t.Errorf("garbage: err = %v", err)
	}
}

func TestMountDir(t *testing.T) {
	for _, tc := range []struct {
		m          Mount
		path, want string
	}{
		{Mount{"/sys/fs/cgroup", "/"}, "/system.slice/a.service", "/sys/fs/cgroup/system.slice/a.service"},
		{Mount{"/sys/fs/cgroup/unified", "/"}, "/", "/sys/fs/cgroup/unified"},
		{Mount{"/sys/fs/cgroup", "/kubepods/pod1"}, "/kubepods/pod1/c1", "/sys/fs/cgroup/c1"},
		{Mount{"/sys/fs/cgroup", "/kubepods/pod1"}, "/kubepods/pod1", "/sys/fs/cgroup"},
	} {
		got, err := tc.m.Dir(tc.path)
		if err != nil || got != tc.want {
			t.Errorf("%+v.Dir(%q) = %q, %v; want %q", tc.m, tc.path, got, err, tc.want)
		}
	}
	if _, err := (Mount{"/sys/fs/cgroup", "/kubepods/pod1"}).Dir("/kubepods/pod10"); !errors.Is(err, ErrNoCgroup2) {
		t.Errorf("outside: err = %v", err)
	}
}

// quickMount takes a usual mount point only when it is a cgroup2 mount
// whose directory of the process's cgroup holds the process: never the
// wrong mount, which mountinfo then finds.
func TestQuickMount(t *testing.T) {
	const pid = 12
	root := t.TempDir()
	v2, hybrid := filepath.Join(root, "v2"), filepath.Join(root, "v2", "unified")
	group := func(dir, procs string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(procs), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	group(filepath.Join(v2, "system.slice", "runner.service"), "7\n12\n")
	group(filepath.Join(hybrid, "ci"), "3\n12\n40\n")
	// A container's mount of its own sub-tree /kubepods/pod1: its cgroup
	// /kubepods/pod1/c1 is c1 there, and a kubepods/pod1/c1 below it is
	// another cgroup.
	group(filepath.Join(v2, "c1"), "12\n")
	group(filepath.Join(v2, "kubepods", "pod1", "c1"), "120\n1\n")
	// Cut at the bound, the last line would read 12.
	big := strings.Repeat("1000000\n", MaxProcsCheckBytes/8-1) + "10000\n"
	group(filepath.Join(v2, "big"), big+"123\n12\n")
	// is: cgroup2 mounts whose root the kernel does not tell (before
	// statmount); rooted: cgroup2 mounts with their roots.
	is := func(points ...string) mountLook {
		return func(d string) (bool, string, bool) { return slices.Contains(points, d), "", false }
	}
	rooted := func(roots map[string]string) mountLook {
		return func(d string) (bool, string, bool) { r, ok := roots[d]; return ok, r, ok }
	}
	for _, tc := range []struct {
		name, path string
		look       mountLook
		want       Mount // zero: not found, mountinfo decides
	}{
		{"pure v2", "/system.slice/runner.service", is(v2, hybrid), Mount{v2, "/"}},
		{"hybrid", "/ci", is(hybrid), Mount{hybrid, "/"}},
		{"container sub-tree", "/kubepods/pod1/c1", is(v2), Mount{}},
		{"not in the group", "/ci", is(v2, hybrid), Mount{}},
		{"no cgroup2 there", "/system.slice/runner.service", is(), Mount{}},
		{"too many processes to read", "/big", is(v2), Mount{}},
		{"pure v2, root told", "/system.slice/runner.service", rooted(map[string]string{v2: "/", hybrid: "/"}), Mount{v2, "/"}},
		{"hybrid, root told", "/ci", rooted(map[string]string{hybrid: "/"}), Mount{hybrid, "/"}},
		{"container sub-tree, root told", "/kubepods/pod1/c1", rooted(map[string]string{v2: "/kubepods/pod1"}), Mount{v2, "/kubepods/pod1"}},
		{"outside the sub-tree shown", "/kubepods/pod2/c1", rooted(map[string]string{v2: "/kubepods/pod1"}), Mount{}},
	} {
		m, dir, ok := quickMount([]string{v2, hybrid}, tc.path, pid, tc.look)
		if ok != (tc.want != Mount{}) || m != tc.want {
			t.Errorf("%s: got %+v %q %v, want %+v", tc.name, m, dir, ok, tc.want)
			continue
		}
		if want, _ := tc.want.Dir(tc.path); ok && dir != want {
			t.Errorf("%s: dir %q, want %q", tc.name, dir, want)
		}
	}
}
