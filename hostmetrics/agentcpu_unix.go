//go:build linux || illumos

package hostmetrics

import (
	"time"

	"golang.org/x/sys/unix"
)

// agentCPU returns the CPU time the agent has used so far, every thread
// together: what a walk of the job's tree costs it.
func agentCPU() (time.Duration, bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts) != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
