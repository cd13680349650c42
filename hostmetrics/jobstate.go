package hostmetrics

import (
	"sync"
	"time"
)

// ExitWait bounds how long a sample waits, once the job has been reaped, for
// JobExited to give its usage: before it reads the job's tree, and again
// after when the job was reaped meanwhile (exitedAfterWalk). Between the
// reap and that call the job's CPU and IO, and those of every descendant it
// waited for, are in no file; a sample taken then (the end of a phase
// marked just before the job exits) would miss them.
const ExitWait = 200 * time.Millisecond

// jobState is what every Source knows of the job: its pid once started,
// and the usage wait4 reported once it has been reaped. A job may be a
// sequence of commands, each set by SetJob and reaped in turn (a program
// that runs the job's commands itself): their usage adds up. Its methods
// are safe for concurrent use; a Source embeds it for SetJob and JobExited.
type jobState struct {
	mu       sync.Mutex
	pid      int       // 0 before SetJob and after JobExited
	known    bool      // SetJob was called
	exited   ExitUsage // the job's, once JobExited was called: every command's
	exitedCh chan struct{}
	// outside is set when the job did not start in its cgroup (see
	// JobOutsideCgroup).
	outside bool
}

// JobOutsideCgroup records that the job was not started in its own cgroup
// (it was moved there once running, or could not be): children it forked
// before the move are outside the cgroup, whose members are then not the
// whole job.
func (j *jobState) JobOutsideCgroup() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.outside = true
}

// outsideCgroup reports whether JobOutsideCgroup was called.
func (j *jobState) outsideCgroup() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.outside
}

// SetJob records the job's pid.
func (j *jobState) SetJob(pid int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.pid, j.known = pid, true
	j.exitedCh = make(chan struct{})
}

// JobExited records the job's usage at its reap, added to that of the
// commands reaped before it.
func (j *jobState) JobExited(u ExitUsage) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.pid == 0 {
		return
	}
	j.exited.add(u)
	j.pid = 0
	close(j.exitedCh)
}

// add adds the usage of a process reaped after those of u: their times
// and IO add up, the peak is the larger.
func (u *ExitUsage) add(v ExitUsage) {
	u.User += v.User
	u.System += v.System
	u.MaxRSS = max(u.MaxRSS, v.MaxRSS)
	u.ReadBytes += v.ReadBytes
	u.WriteBytes += v.WriteBytes
}

// exitedAfterWalk returns the exit usage to add to a walk of the job's
// tree made after current gave pid and exited: exited, when the walk read
// the job's process (read) or there was none to read. Otherwise the job
// was reaped after current looked and before the walk read it: its usage,
// and that of every descendant it waited for, left /proc before JobExited
// gave it, in no figure the walk read. exitedAfterWalk then waits for it
// as current does (at most ExitWait) and returns the usage then; a sample
// that took exited would miss the job's whole usage, and the phase that
// ends with it everything the job did since the sample before (a phase
// marked just before the job exits).
func (j *jobState) exitedAfterWalk(pid int, read bool, exited ExitUsage, gone func(pid int) bool) ExitUsage {
	if pid <= 0 || read {
		return exited
	}
	_, _, after := j.current(gone)
	return after
}

// current returns the job's pid (0 before it started and once its usage is
// in), whether SetJob was called, and its exit usage (zero until then).
// When gone reports that the running job's pid no longer exists (it has
// been reaped but JobExited has not come yet), current first waits for
// JobExited, at most ExitWait. gone may be nil.
func (j *jobState) current(gone func(pid int) bool) (pid int, known bool, exited ExitUsage) {
	j.mu.Lock()
	pid, ch := j.pid, j.exitedCh
	j.mu.Unlock()
	if pid > 0 && gone != nil && gone(pid) {
		select {
		case <-ch:
		case <-time.After(ExitWait):
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.pid, j.known, j.exited
}
