package cgroup

import (
	"errors"
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
