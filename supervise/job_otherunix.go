//go:build unix && !linux

package supervise

import "syscall"

func setParentDeathSignal(*syscall.SysProcAttr) {}

// startProcess forks and executes the job (see start).
func (j *Job) startProcess(attr *syscall.ProcAttr) (int, error) {
	return j.forkExec(attr, j.sysProcAttr())
}
