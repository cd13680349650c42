//go:build timing

package hostmetrics

import (
	"testing"
	"time"
)

// A sample taken after the job's reap but before JobExited waits for its
// usage rather than reading a tree that has lost it, and not the whole
// ExitWait when the usage comes.
func TestJobStateWaitsForExitUsage(t *testing.T) {
	var j jobState
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
}
