package guard

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/jobtrace/jobtrace/internal/timingtest"
)

// TestMain lets this test binary be the guard process, as jobtrace is,
// and checks that the tests leave no goroutine running.
func TestMain(m *testing.M) {
	if len(os.Args) == 2 && os.Args[1] == Arg {
		Main()
	}
	timingtest.VerifyTestMain(m)
}

// A job that ends before Delay gets no guard process.
func TestReleasedBeforeTheDelayStartsNothing(t *testing.T) {
	g := Start(Options{Warn: func(s string) { t.Error(s) }})
	defer g.Close()
	g.Job(os.Getpid())
	g.Arm(time.Hour)
	g.Release()
	g.Arm(0) // after Release: nothing
	time.Sleep(50 * time.Millisecond)
	if g.proc != nil || g.pid.Load() != 0 {
		t.Errorf("a guard process was started: pid %d", g.pid.Load())
	}
}

// Until the guard process is started, what it is told costs no file
// descriptor and no system call: a job that ends within Delay pays nothing
// for its guard (TestKilledJobtraceTakesItsJobAlong in cmd/jobtrace checks
// what it does once started).
func TestNothingIsOpenedBeforeTheGuardStarts(t *testing.T) {
	before := openFDs(t)
	g := Start(Options{Warn: func(s string) { t.Error(s) }})
	g.Job(os.Getpid())
	g.Cgroup("/sys/fs/cgroup/none")
	g.Dir(t.TempDir())
	g.Env("JOBTRACE_TEST=1")
	g.Orphan(4242, 1)
	if after := openFDs(t); after != before {
		t.Errorf("the guard holds %d file descriptors before it is started", after-before)
	}
	if g.w != nil {
		t.Errorf("the guard made its pipe before it was started")
	}
	g.Arm(0)
	deadline := time.Now().Add(time.Minute)
	for g.pid.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	g.Close()
	if g.pid.Load() == 0 {
		t.Fatal("no guard process was started")
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(fds)
}

// Once started and released, the guard process exits by itself, and Close
// reaps it: when Close returns, neither the process nor a goroutine of
// the Guard is left.
func TestReleasedGuardExits(t *testing.T) {
	g := Start(Options{Warn: func(s string) { t.Error(s) }})
	g.Arm(0)
	deadline := time.Now().Add(time.Minute)
	for g.pid.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("no guard process")
		}
		time.Sleep(time.Millisecond)
	}
	pid := int(g.pid.Load())
	if !g.IsGuard(pid) || g.IsGuard(pid+1) || g.IsGuard(0) {
		t.Error("IsGuard")
	}
	g.Release()
	g.Close()
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); !os.IsNotExist(err) {
		t.Errorf("the closed guard %d still exists: %v", pid, err)
	}
	goleak.VerifyNone(t)
}

// Close while the guard process is being started waits for the start and
// reaps what it started: nothing is left, whatever the timing.
func TestCloseWhileStarting(t *testing.T) {
	for range 5 {
		g := Start(Options{Warn: func(s string) { t.Error(s) }})
		g.Arm(0)
		g.Close()
		if pid := g.pid.Load(); pid != 0 {
			if _, err := os.Stat("/proc/" + strconv.Itoa(int(pid))); !os.IsNotExist(err) {
				t.Errorf("the closed guard %d still exists: %v", pid, err)
			}
		}
		goleak.VerifyNone(t)
	}
}

// Orphans past MaxOrphans are counted and said once; telling them never
// blocks, even with no guard process reading yet.
func TestOrphansAreBounded(t *testing.T) {
	var warns []string
	g := Start(Options{Warn: func(s string) { warns = append(warns, s) }})
	defer g.Close()
	for i := 0; i < MaxOrphans; i++ {
		g.Orphan(1000+i, 5)
		g.Orphan(1000+i, 5) // told once
	}
	for i := MaxOrphans; i < MaxOrphans+10; i++ {
		g.Orphan(1000+i, 5)
	}
	if len(g.orphans) != MaxOrphans || g.overflow != 10 {
		t.Errorf("%d orphans kept, %d over", len(g.orphans), g.overflow)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "more than 1024 orphans") {
		t.Errorf("warnings: %q", warns)
	}
}

// BenchmarkShortJob is the guard's part of a job that ends within Delay,
// as jobtrace run tells it: started, told about the job, armed, released.
func BenchmarkShortJob(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		g := Start(Options{})
		g.Cgroup("/sys/fs/cgroup/unified/jobtrace-4242")
		g.Dir(dir)
		g.Env("TRACEPARENT=00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "JOBTRACE_SOCKET="+dir+"/sock", "JOBTRACE_MARKER_DIR="+dir+"/markers")
		g.Job(os.Getpid())
		g.Arm(Delay)
		g.Disarm()
		g.Close()
	}
}
