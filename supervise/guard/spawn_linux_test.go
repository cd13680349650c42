package guard

import (
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

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
	g.Job(os.Getpid())
	g.Arm(time.Hour)
	g.Release()
	g.Arm(0) // after Release: nothing
	time.Sleep(50 * time.Millisecond)
	if g.proc != nil || g.pid.Load() != 0 {
		t.Errorf("a guard process was started: pid %d", g.pid.Load())
	}
}

// Once started and released, the guard process exits by itself and is
// reaped.
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
	for {
		if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); os.IsNotExist(err) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the released guard %d still exists", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Orphans past MaxOrphans are counted and said once; telling them never
// blocks, even with no guard process reading yet.
func TestOrphansAreBounded(t *testing.T) {
	var warns []string
	g := Start(Options{Warn: func(s string) { warns = append(warns, s) }})
	defer g.Release()
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
