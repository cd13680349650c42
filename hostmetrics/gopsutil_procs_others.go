//go:build !windows && ((!linux && !illumos) || gopsutil)

package hostmetrics

import (
	"context"

	"github.com/shirou/gopsutil/v4/process"
)

// processTable appends to dst every process of the system with its parent:
// gopsutil's list of pids (one sysctl for all on darwin and the BSDs), then
// each one's parent (one sysctl per process there). Thread counts are not
// in it: they are read for the processes of the job's tree only.
func processTable(ctx context.Context, dst []procLink) ([]procLink, error) {
	pids, err := process.PidsWithContext(ctx)
	if err != nil {
		return dst, err
	}
	for _, pid := range pids {
		ppid, err := (&process.Process{Pid: pid}).PpidWithContext(ctx)
		if err != nil {
			continue // gone since the list was made
		}
		dst = append(dst, procLink{PID: pid, PPID: ppid, Threads: -1})
	}
	return dst, nil
}
