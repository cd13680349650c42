//go:build unix && !linux

package supervise

import "syscall"

func setParentDeathSignal(*syscall.SysProcAttr) {}

func (j *Job) start() error {
	j.cmd.SysProcAttr = j.sysProcAttr()
	return j.cmd.Start()
}
