//go:build linux

package cgroup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/internal/timingtest"
)

// createTestGroup makes a cgroup for the test at the root of the host's
// cgroup2 mount and removes it at the end, or skips when the host does not
// allow it.
func createTestGroup(t *testing.T) (*Group, Mount) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("creating a cgroup needs root")
	}
	m, err := FindMount("/proc")
	if err != nil {
		t.Skipf("no cgroup2 mount: %v", err)
	}
	name := fmt.Sprintf("jobtrace-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	g, err := Create(m.Point, "", name)
	if err != nil {
		if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
			t.Skipf("cgroup2 mount %s is not writable: %v", m.Point, err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := g.End(timingtest.Patience); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	return g, m
}

func TestGroupOnThisHost(t *testing.T) {
	g, m := createTestGroup(t)
	t.Logf("created %s, controllers %q", g.Dir, g.Controllers)

	// A process moved in with AddProc.
	sleep := exec.Command("sleep", "60")
	if err := sleep.Start(); err != nil {
		t.Fatal(err)
	}
	defer sleep.Process.Kill()
	if err := g.AddProc(sleep.Process.Pid); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", sleep.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	p, err := parseProcCgroup("cgroup", data)
	if err != nil {
		t.Fatal(err)
	}
	if dir, _ := m.Dir(p); dir != g.Dir {
		t.Fatalf("sleep is in %s, want %s", dir, g.Dir)
	}

	// A process started in the group (clone3 CLONE_INTO_CGROUP) that burns
	// some CPU and exits: cpu.stat keeps the time of exited processes.
	fd, err := syscall.Open(g.Dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	burn := exec.Command("sh", "-c", "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done")
	burn.SysProcAttr = &syscall.SysProcAttr{UseCgroupFD: true, CgroupFD: fd}
	err = burn.Run()
	syscall.Close(fd)
	if err != nil {
		t.Fatal(err)
	}
	var s Stats
	if err := g.Read(&s); err != nil {
		t.Fatal(err)
	}
	t.Logf("stats: %+v", s)
	if use, ok := s.CPU.UsageUsec.Get(); !ok || use < 10_000 {
		t.Errorf("cpu.stat usage_usec = %+v after a busy loop, want ≥ 10 ms", s.CPU.UsageUsec)
	}
	if s.CPU.UserUsec.Value+s.CPU.SystemUsec.Value > s.CPU.UsageUsec.Value+1 {
		t.Errorf("user+system > usage: %+v", s.CPU)
	}
	if !s.CPUPressure.HasSome || !s.IOPressure.HasSome || !s.MemoryPressure.HasSome {
		t.Errorf("pressure files absent: %+v %+v %+v", s.CPUPressure, s.MemoryPressure, s.IOPressure)
	}
	if g.HasController("memory") != s.MemoryCurrent.Present {
		t.Errorf("memory controller %v but memory.current present %v", g.HasController("memory"), s.MemoryCurrent.Present)
	}

	// Remove refuses while the sleep is in the group...
	if err := g.Remove(20 * time.Millisecond); err == nil || !strings.Contains(err.Error(), "processes still in the cgroup") {
		t.Errorf("Remove with a process inside: %v", err)
	}
	// ...End kills it and removes the group, with a child cgroup the job
	// made.
	if err := os.Mkdir(filepath.Join(g.Dir, "nested"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := g.End(timingtest.Patience); err != nil {
		t.Fatal(err)
	}
	err = sleep.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("sleep ended with %v, want SIGKILL", err)
	}
	if _, err := os.Stat(g.Dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s still there: %v", g.Dir, err)
	}
	// Reading a removed group: everything absent, an error that says why.
	if err := g.Read(&s); !errors.Is(err, fs.ErrNotExist) || s != (Stats{}) {
		t.Errorf("read after remove: %+v, %v", s, err)
	}
}

func TestSelfDirOnThisHost(t *testing.T) {
	dir, err := SelfDir("/proc")
	if errors.Is(err, ErrNoCgroup2) {
		t.Skipf("no cgroup v2 here: %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	var s Stats
	if err := ReadDir(dir, &s); err != nil {
		t.Fatal(err)
	}
	if !s.CPU.UsageUsec.Present {
		t.Errorf("%s: cpu.stat absent: %+v", dir, s)
	}
}

func TestCreateRejectsBadNames(t *testing.T) {
	for _, name := range []string{"", ".", "..", "a/b"} {
		if _, err := Create(t.TempDir(), "", name); err == nil {
			t.Errorf("Create(%q) succeeded", name)
		}
	}
}

func BenchmarkReadThisHost(b *testing.B) {
	dir, err := SelfDir("/proc")
	if err != nil {
		b.Skip(err)
	}
	r := NewReader(dir)
	var s Stats
	b.ReportAllocs()
	for b.Loop() {
		_ = r.Read(&s)
	}
}

func TestCreateEnablesWhatTheParentOffers(t *testing.T) {
	mount := t.TempDir()
	parent := filepath.Join(mount, "ci.slice")
	if err := os.Mkdir(parent, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(parent, "cgroup.controllers"), []byte("cpuset cpu memory pids\n"), 0o644)
	os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("cpu\n"), 0o644)
	var asked []string
	old := writeSubtreeControl
	defer func() { writeSubtreeControl = old }()
	writeSubtreeControl = func(path, s string) error {
		asked = append(asked, s)
		return syscall.EBUSY // a parent that still holds processes refuses
	}
	g, err := Create(mount, "ci.slice", "job-1")
	if err != nil {
		t.Fatal(err)
	}
	// cpu is on already, io is not offered, no file of pids is read: only
	// memory is asked.
	if strings.Join(asked, " ") != "+memory" {
		t.Errorf("asked %q", asked)
	}
	if g.Dir != filepath.Join(parent, "job-1") || len(g.Controllers) != 0 {
		t.Errorf("group %+v", g)
	}
	if _, err := Create(mount, "ci.slice", "job-1"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("second Create: %v", err)
	}
}

// On this host, FindSelf finds the directory mountinfo gives.
func TestFindSelfAsMountinfo(t *testing.T) {
	m, err := FindMount("/proc")
	if err != nil {
		t.Skipf("no cgroup2 mount: %v", err)
	}
	p, err := SelfPath("/proc")
	if err != nil {
		t.Skipf("no cgroup v2: %v", err)
	}
	want, err := m.Dir(p)
	if err != nil {
		t.Skip(err)
	}
	_, dir, err := FindSelf("/proc")
	if err != nil || dir != want {
		t.Errorf("FindSelf: %q, %v; mountinfo says %q", dir, err, want)
	}
	// By statmount where the kernel has it, and by cgroup.procs.
	byStatfs := func(point string) (bool, string, bool) { return isCgroup2(point), "", false }
	for name, look := range map[string]mountLook{"statmount": lookMount, "cgroup.procs": byStatfs} {
		qm, quick, ok := quickMount([]string{MountV2, MountHybrid}, p, os.Getpid(), look)
		t.Logf("mountinfo: %+v %q; the usual mounts by %s: %+v %q %v", m, want, name, qm, quick, ok)
		if ok && quick != want {
			t.Errorf("the usual mounts by %s give %q, mountinfo %q", name, quick, want)
		}
	}
	if _, _, ok := statMount(MountV2); !ok {
		t.Logf("no statmount here")
	}
}

// BenchmarkFindSelf against BenchmarkFindSelfByMountinfo: the usual mounts
// checked with statfs and cgroup.procs, against mountinfo.
func BenchmarkFindSelf(b *testing.B) {
	if _, _, err := FindSelf("/proc"); err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		_, _, _ = FindSelf("/proc")
	}
}

func BenchmarkFindSelfByMountinfo(b *testing.B) {
	if _, _, err := FindSelf("/proc"); err != nil {
		b.Skip(err)
	}
	for b.Loop() {
		m, _ := FindMount("/proc")
		p, _ := SelfPath("/proc")
		_, _ = m.Dir(p)
	}
}

// Descendants reads cgroup.stat whole, however many controllers it lists
// (two lines each), past what one small buffer holds.
func TestDescendantsOfALongStat(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("nr_descendants 3\n")
	for i := range 40 {
		fmt.Fprintf(&b, "nr_subsys_controller%d 1\nnr_dying_subsys_controller%d 0\n", i, i)
	}
	if err := os.WriteFile(filepath.Join(dir, "cgroup.stat"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := Descendants(dir); n != 3 || err != nil {
		t.Errorf("Descendants = %d, %v; want 3 from a file of %d bytes", n, err, b.Len())
	}
}
