package supervise

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the kernel kill the job if jobtrace dies, so
// the job never lives on as an orphan.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// start starts the job from the calling goroutine's thread. Linux sends the
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
func (j *Job) start() error {
	j.cmd.SysProcAttr = j.sysProcAttr()
	if j.opts.CgroupFD > 0 {
		j.cmd.SysProcAttr.UseCgroupFD = true
		j.cmd.SysProcAttr.CgroupFD = j.opts.CgroupFD
	}
	err := j.cmd.Start()
	if err != nil && j.opts.CgroupFD > 0 {
		j.cgroupErr = err
		c := j.cmd
		j.cmd = &exec.Cmd{Path: c.Path, Args: c.Args, Env: c.Env, Dir: c.Dir,
			Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, SysProcAttr: j.sysProcAttr()}
		err = j.cmd.Start()
	}
	return err
}
