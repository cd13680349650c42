//go:build linux

package cgroup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A pressure file of a kernel with PSI disabled at boot (psi=0, or built
// with CONFIG_PSI_DEFAULT_DISABLED) is still made in every cgroup before
// Linux 6.1, and reading it fails with EOPNOTSUPP: its figures are absent,
// as those of a file that does not exist, and Read reports no problem (the
// sampler warns of what Read returns), while it still reads every other
// file. Another errno still is a problem.
func TestReadPressurePSIDisabled(t *testing.T) {
	r := NewReader("testdata/v2/sys/fs/cgroup/ci.slice/job-42")
	defer r.Close()
	var full Stats
	if err := r.Read(&full); err != nil {
		t.Fatal(err)
	}
	if !full.CPUPressure.HasSome || !full.MemoryPressure.HasSome || !full.IOPressure.HasSome {
		t.Fatalf("fixture without pressure: %+v", full)
	}
	errno := syscall.EOPNOTSUPP
	r.readHook = func(path string) syscall.Errno {
		if strings.HasSuffix(path, ".pressure") {
			return errno
		}
		return 0
	}
	want := full
	want.CPUPressure, want.MemoryPressure, want.IOPressure = Pressure{}, Pressure{}, Pressure{}
	// The files are kept open since the first Read; a new Reader opens
	// them first.
	fresh := NewReader(r.Dir())
	defer fresh.Close()
	fresh.readHook = r.readHook
	for _, rd := range []*Reader{r, fresh} {
		var s Stats
		if err := rd.Read(&s); err != nil {
			t.Errorf("PSI disabled: Read reports %v", err)
		}
		if s != want {
			t.Errorf("PSI disabled:\n got %+v\nwant %+v", s, want)
		}
	}

	errno = syscall.EIO
	var s Stats
	err := r.Read(&s)
	if !errors.Is(err, syscall.EIO) || !strings.Contains(err.Error(), "cpu.pressure") {
		t.Errorf("EIO: Read returns %v", err)
	}
	if s != want {
		t.Errorf("EIO:\n got %+v\nwant %+v", s, want)
	}
}

// A cgroup whose cgroup.pressure is set to 0 (Linux 6.1 or later) hides
// its pressure files: they are absent, from a Reader that had them open as
// from a new one, and come back when it is set to 1. Needs a cgroup v2
// hierarchy where a cgroup may be made (root).
func TestReadCgroupPressureOff(t *testing.T) {
	g, _ := createTestGroup(t)
	control := filepath.Join(g.Dir, "cgroup.pressure")
	if _, err := os.Stat(control); err != nil {
		t.Skipf("no cgroup.pressure (Linux 6.1 or later): %v", err)
	}
	if _, err := os.Stat(filepath.Join(g.Dir, "cpu.pressure")); err != nil {
		t.Skipf("no cpu.pressure (PSI disabled here): %v", err)
	}
	kept := NewReader(g.Dir)
	defer kept.Close()
	var s Stats
	if err := kept.Read(&s); err != nil || !s.CPU.UsageUsec.Present || !s.CPUPressure.HasSome {
		t.Fatalf("PSI on: %+v, %v", s, err)
	}
	set := func(v string) {
		t.Helper()
		if err := writeFile(control, v); err != nil {
			t.Fatal(err)
		}
	}
	set("0")
	defer set("1")
	fresh := NewReader(g.Dir)
	defer fresh.Close()
	for _, r := range []*Reader{kept, fresh} {
		if err := r.Read(&s); err != nil {
			t.Errorf("cgroup.pressure 0: Read reports %v", err)
		}
		if !s.CPU.UsageUsec.Present || s.CPUPressure != (Pressure{}) || s.MemoryPressure != (Pressure{}) ||
			s.IOPressure != (Pressure{}) {
			t.Errorf("cgroup.pressure 0: %+v", s)
		}
	}
	set("1")
	if err := kept.Read(&s); err != nil || !s.CPUPressure.HasSome || !s.IOPressure.HasSome {
		t.Errorf("cgroup.pressure 1 again: %+v, %v", s, err)
	}
}
