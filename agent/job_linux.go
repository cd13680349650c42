package agent

import (
	"runtime"
	"syscall"
)

// setParentDeathSignal makes the kernel kill the job if jobtrace dies, so
// the job never lives on as an orphan.
func setParentDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// start starts the job from a goroutine locked to its OS thread that stays
// alive until the job has been reaped: Linux sends the parent-death signal
// when the thread that forked the child exits, not the process.
func (j *Job) start() error {
	j.cmd.SysProcAttr = j.sysProcAttr()
	errc := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		err := j.cmd.Start()
		errc <- err
		if err == nil {
			<-j.done
		}
		runtime.UnlockOSThread()
	}()
	return <-errc
}
