package hostmetrics

import (
	"testing"
	"time"
)

// A sample taken after the job's reap but before JobExited waits for its
// usage rather than reading a tree that has lost it.
func TestJobStateWaitsForExitUsage(t *testing.T) {
	var j jobState
	if pid, known, _ := j.current(nil); pid != 0 || known {
		t.Fatalf("before SetJob: pid %d known %v", pid, known)
	}
	j.SetJob(42)
	go func() {
		time.Sleep(20 * time.Millisecond)
		j.JobExited(ExitUsage{User: time.Second})
	}()
	start := time.Now()
	pid, known, exited := j.current(func(int) bool { return true })
	if pid != 0 || !known || exited.User != time.Second {
		t.Errorf("after the wait: pid %d known %v exited %+v", pid, known, exited)
	}
	if waited := time.Since(start); waited >= ExitWait {
		t.Errorf("waited %v, the whole ExitWait", waited)
	}
	// A running job is not waited for.
	j.SetJob(43)
	if pid, _, _ := j.current(func(int) bool { return false }); pid != 43 {
		t.Errorf("pid %d, want 43", pid)
	}
}
