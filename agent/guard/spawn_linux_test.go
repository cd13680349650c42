package guard

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// TestMain lets this test binary be the guard process, as jobtrace is.
func TestMain(m *testing.M) {
	if len(os.Args) == 2 && os.Args[1] == Arg {
		Main()
	}
	os.Exit(m.Run())
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
