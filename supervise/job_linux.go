package supervise

import "syscall"

// setParentDeathSignal makes the kernel kill the job if jobtrace dies, so
// the job never lives on as an orphan.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// startProcess forks and executes the job (see start). Linux sends the
// parent-death signal when the thread that forked the child ends, not the
// process; the Go runtime ends a thread only when a goroutine exits while
// locked to it (runtime.LockOSThread), which nothing in jobtrace's binary
// does (TestNoGoroutineEndsItsThread in cmd/jobtrace), so that thread lives
// as long as jobtrace. A program that embeds this package and ends a locked
// goroutine on the thread that started a job ends the job with it.
//
// With Options.CgroupFD the job is born in its cgroup (clone3 with
// CLONE_INTO_CGROUP), so no process of the job ever runs outside it. If the
// kernel refuses that (too old, or no permission on the cgroup), the job is
// started again without it and CgroupErr says why.
func (j *Job) startProcess(attr *syscall.ProcAttr) (int, error) {
	if j.opts.CgroupFD <= 0 {
		return j.forkExec(attr, j.sysProcAttr())
	}
	sys := j.sysProcAttr()
	sys.UseCgroupFD = true
	sys.CgroupFD = j.opts.CgroupFD
	pid, err := j.forkExec(attr, sys)
	if err != nil {
		j.cgroupErr = err
		pid, err = j.forkExec(attr, j.sysProcAttr())
	}
	return pid, err
}
