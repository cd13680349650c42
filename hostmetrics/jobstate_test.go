package hostmetrics

import (
	"testing"
	"time"
)

// A sample taken after the job's reap but before JobExited gets the usage
// JobExited gives: here it comes while current checks whether the job is
// gone, so the outcome does not depend on the scheduler.
// TestJobStateWaitsForExitUsage (timing suite) has it come from another
// goroutine while current waits.
func TestJobStateTakesExitUsage(t *testing.T) {
	var j jobState
	if pid, known, _ := j.current(nil); pid != 0 || known {
		t.Fatalf("before SetJob: pid %d known %v", pid, known)
	}
	j.SetJob(42)
	pid, known, exited := j.current(func(int) bool {
		j.JobExited(ExitUsage{User: time.Second})
		return true
	})
	if pid != 0 || !known || exited.User != time.Second {
		t.Errorf("after the wait: pid %d known %v exited %+v", pid, known, exited)
	}
	// A running job is not waited for.
	j.SetJob(43)
	if pid, _, _ := j.current(func(int) bool { return false }); pid != 43 {
		t.Errorf("pid %d, want 43", pid)
	}
	// A job whose usage never comes is waited for ExitWait at most.
	j.SetJob(44)
	if pid, _, _ := j.current(func(int) bool { return true }); pid != 44 {
		t.Errorf("without JobExited: pid %d, want 44", pid)
	}
}
