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

// A job run as commands one after the other, each given by SetJob and
// reaped in turn, is the sum of their usage, and the larger of their peaks.
func TestJobStateAddsCommands(t *testing.T) {
	var j jobState
	j.SetJob(42)
	j.JobExited(ExitUsage{User: time.Second, System: 2 * time.Second, MaxRSS: 300, ReadBytes: 4, WriteBytes: 5})
	j.SetJob(43)
	j.JobExited(ExitUsage{User: time.Second, System: time.Second, MaxRSS: 100, ReadBytes: 1, WriteBytes: 1})
	// A second report of a command already reaped is not counted again.
	j.JobExited(ExitUsage{User: time.Hour})
	_, _, got := j.current(nil)
	want := ExitUsage{User: 2 * time.Second, System: 3 * time.Second, MaxRSS: 300, ReadBytes: 5, WriteBytes: 6}
	if got != want {
		t.Errorf("usage %+v, want %+v", got, want)
	}
}

// A walk of the job's tree that read the job's process holds its usage:
// the sample adds what JobExited gave before the walk. One that did not
// read it, the job having been reaped meanwhile, takes JobExited's usage,
// waited for as current does: here it comes while exitedAfterWalk checks
// whether the job is gone.
func TestJobStateExitedAfterWalk(t *testing.T) {
	var j jobState
	j.SetJob(42)
	pid, _, before := j.current(func(int) bool { return false })
	j.JobExited(ExitUsage{User: time.Second, WriteBytes: 64 << 20}) // reaped once read
	if got := j.exitedAfterWalk(pid, true, before, nil); got != before {
		t.Errorf("job read by the walk: %+v, want %+v from before it", got, before)
	}

	j = jobState{}
	j.SetJob(43)
	pid, _, before = j.current(func(int) bool { return false })
	want := ExitUsage{User: time.Second, System: 2 * time.Second, ReadBytes: 3, WriteBytes: 64 << 20}
	got := j.exitedAfterWalk(pid, false, before, func(int) bool {
		j.JobExited(want)
		return true
	})
	if got != want {
		t.Errorf("job reaped before the walk read it: %+v, want %+v", got, want)
	}

	// Not read, yet still there (its files not readable): nothing to wait
	// for.
	j = jobState{}
	j.SetJob(44)
	if got := j.exitedAfterWalk(44, false, ExitUsage{}, func(int) bool { return false }); got != (ExitUsage{}) {
		t.Errorf("job not read and not gone: %+v", got)
	}
	// No job to read.
	if got := j.exitedAfterWalk(0, false, want, func(int) bool { t.Error("gone asked without a job"); return true }); got != want {
		t.Errorf("no job: %+v, want %+v", got, want)
	}
}
