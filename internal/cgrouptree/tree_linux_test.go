package cgrouptree

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// patience bounds waits that end as soon as the kernel is done, so that a
// busy machine only makes the test slower.
const patience = 30 * time.Second

// cgroup2Mount returns where the host's cgroup2 file system is mounted, or
// skips.
func cgroup2Mount(t *testing.T) string {
	t.Helper()
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if fs := strings.Fields(pre); ok && strings.HasPrefix(post, "cgroup2 ") && len(fs) > 4 {
			return fs[4]
		}
	}
	t.Skip("no cgroup2 mount")
	return ""
}

// testGroup makes a cgroup with a child cgroup, and in the child a shell
// that starts a background sleep once it is in: the child's processes are
// forked inside it. It returns the cgroup, the shell and the processes
// listed.
func testGroup(t *testing.T) (string, *exec.Cmd, []int) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("making a cgroup needs root")
	}
	dir := filepath.Join(cgroup2Mount(t), fmt.Sprintf("jobtrace-test-tree-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cgroup2 mount not writable: %v", err)
	}
	nested := filepath.Join(dir, "nested")
	if err := os.Mkdir(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	sh := exec.Command("sh", "-c", "read x; sleep 300 & sleep 300")
	in, err := sh.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := sh.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, pid := range Procs(dir) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		sh.Process.Kill()
		sh.Wait()
		Remove(dir, time.Now().Add(patience), true)
	})
	if err := writeFile(filepath.Join(nested, "cgroup.procs"), strconv.Itoa(sh.Process.Pid)); err != nil {
		t.Fatal(err)
	}
	io.WriteString(in, "go\n")
	deadline := time.Now().Add(patience)
	for {
		procs := Procs(dir)
		if len(procs) >= 2 {
			return dir, sh, procs
		}
		if time.Now().After(deadline) {
			t.Fatalf("the shell's sleeps never showed in %s: %v", dir, procs)
		}
		time.Sleep(Poll)
	}
}

// On a kernel without cgroup.kill (Linux before 5.14), the processes must
// be signalled one by one: Remove does it at every look, and the cgroups go.
// Without it (kill false: what a caller that ignored cgroup.kill's absence
// did), the processes stay and the cgroup with them.
func TestRemoveKillsWithoutCgroupKill(t *testing.T) {
	dir, sh, procs := testGroup(t)
	if err := remove(dir, time.Now().Add(50*time.Millisecond), false, false); !errors.Is(err, ErrPopulated) {
		t.Fatalf("remove without killing = %v, want ErrPopulated", err)
	}
	if err := remove(dir, time.Now().Add(patience), false, true); err != nil {
		t.Fatalf("remove killing each process: %v", err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s still there: %v", dir, err)
	}
	var ee *exec.ExitError
	if err := sh.Wait(); !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("the shell ended with %v, want SIGKILL", err)
	}
	for _, pid := range procs {
		if alive(pid) {
			t.Errorf("process %d of the cgroup still runs", pid)
		}
	}
}

func TestRemoveWithCgroupKill(t *testing.T) {
	dir, sh, procs := testGroup(t)
	if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
		t.Skipf("kernel without cgroup.kill: %v", err)
	}
	if err := Remove(dir, time.Now().Add(patience), true); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s still there: %v", dir, err)
	}
	sh.Wait()
	for _, pid := range procs {
		if alive(pid) {
			t.Errorf("process %d of the cgroup still runs", pid)
		}
	}
}

func TestRemoveGone(t *testing.T) {
	if err := Remove(filepath.Join(t.TempDir(), "gone"), time.Now(), true); err != nil {
		t.Errorf("a cgroup that is gone: %v", err)
	}
}

// alive tells whether pid runs, a zombie not counting: the background sleep
// is re-parented to a process that reaps it when it will.
func alive(pid int) bool {
	deadline := time.Now().Add(patience)
	for {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return false
		}
		if i := strings.LastIndexByte(string(data), ')'); i > 0 && strings.HasPrefix(string(data[i:]), ") Z") {
			return false
		}
		if time.Now().After(deadline) {
			return true
		}
		time.Sleep(Poll)
	}
}

// Kill, without cgroup.kill, signals every process listed in the cgroup
// and below it, and says which; the cgroups are left for Remove.
func TestKillSignalsEachListed(t *testing.T) {
	dir, sh, procs := testGroup(t)
	got := kill(dir, false)
	if !slices.Contains(got, sh.Process.Pid) || len(got) < len(procs) {
		t.Errorf("kill listed %v, want at least %v", got, procs)
	}
	var ee *exec.ExitError
	if err := sh.Wait(); !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Errorf("the shell ended with %v, want SIGKILL", err)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Errorf("kill removed the cgroup: %v", err)
	}
	if err := Remove(dir, time.Now().Add(patience), false); err != nil {
		t.Errorf("the emptied cgroup: %v", err)
	}
}

// Kill says every process it killed, those cgroup.kill killed at once
// included: they are listed before the kernel takes them out of the list.
func TestKillSaysWhatCgroupKillKilled(t *testing.T) {
	dir, sh, procs := testGroup(t)
	if _, err := os.Stat(filepath.Join(dir, "cgroup.kill")); err != nil {
		t.Skipf("kernel without cgroup.kill: %v", err)
	}
	got := Kill(dir)
	for _, pid := range procs {
		if !slices.Contains(got, pid) {
			t.Errorf("Kill said %v, without %d (listed before it: %v)", got, pid, procs)
		}
	}
	sh.Wait()
}
