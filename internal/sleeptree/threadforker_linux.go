//go:build linux

package sleeptree

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/jobtrace/jobtrace/hostmetrics/cgroup"
	"github.com/jobtrace/jobtrace/internal/timingtest"
)

// forkerEnv, set to "1", makes a test binary that calls RunThreadForker
// the thread forker.
const forkerEnv = "SLEEPTREE_THREAD_FORKER"

// ForkerWait bounds how long the thread forker lives, should the test that
// started it fail to kill it.
const ForkerWait = 10 * time.Minute

// RunThreadForker is called first in the TestMain of a package that uses
// StartThreadForker. In the process StartThreadForker starts (the test
// binary again), it forks sleep from a thread other than the main one,
// keeps that thread, prints "<tid> <child pid>" and exits after ForkerWait;
// in any other process it returns at once.
func RunThreadForker() {
	if os.Getenv(forkerEnv) != "1" {
		return
	}
	found := make(chan bool)
	for {
		go func() {
			// Never unlocked: the thread stays this goroutine's, and
			// the main thread, taken by a goroutine that blocks, is not
			// used again for the next one.
			runtime.LockOSThread()
			if unix.Gettid() == os.Getpid() {
				found <- false
				time.Sleep(ForkerWait)
				return
			}
			cmd := exec.Command("sleep", "600")
			if err := cmd.Start(); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(2)
			}
			fmt.Printf("%d %d\n", unix.Gettid(), cmd.Process.Pid)
			found <- true
			cmd.Wait()
		}()
		if <-found {
			break
		}
	}
	time.Sleep(ForkerWait)
	os.Exit(0)
}

// StartThreadForker starts the test binary as a multi-threaded process
// whose child sleep was forked by a thread other than its main one: the
// child is listed only in that thread's /proc/<pid>/task/<tid>/children.
// With cgroupFD > 0 the process starts in that cgroup (a descriptor of its
// directory). It returns the forker's pid and its child's, checks that the
// child is where it says, and kills both at the end of the test.
func StartThreadForker(tb testing.TB, cgroupFD int) (pid, child int) {
	tb.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), forkerEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, UseCgroupFD: cgroupFD > 0, CgroupFD: cgroupFD}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatalf("cannot start the thread forker: %v", err)
	}
	tb.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
	var tid int
	if _, err := fmt.Fscan(bufio.NewReader(out), &tid, &child); err != nil {
		tb.Fatalf("thread forker: %v", err)
	}
	pid = cmd.Process.Pid
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, tid))
	if err != nil || tid == pid || string(data) != strconv.Itoa(child)+" " {
		tb.Fatalf("thread %d of %d lists children %q (%v), want only %d", tid, pid, data, err, child)
	}
	return pid, child
}

// Cgroup makes a cgroup v2 at the root of the host's cgroup2 mount for the
// test and returns it with a descriptor of its directory, or skips when
// the host does not allow it. It kills what is left in it and removes it
// at the end of the test.
func Cgroup(tb testing.TB) (*cgroup.Group, int) {
	tb.Helper()
	if os.Geteuid() != 0 {
		tb.Skip("making a cgroup needs root")
	}
	m, err := cgroup.FindMount("/proc")
	if err != nil {
		tb.Skipf("no cgroup2 mount: %v", err)
	}
	g, err := cgroup.Create(m.Point, "", fmt.Sprintf("sleeptree-%d-%d", os.Getpid(), time.Now().UnixNano()))
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		tb.Skipf("cgroup2 mount %s is read-only here: %v", m.Point, err)
	}
	if err != nil {
		tb.Fatal(err)
	}
	fd, err := unix.Open(g.Dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		g.Remove(0)
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		unix.Close(fd)
		if err := g.End(timingtest.Patience); err != nil {
			tb.Errorf("cleanup: %v", err)
		}
	})
	return g, fd
}
