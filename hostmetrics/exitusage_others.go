//go:build !unix

package hostmetrics

import "os"

// ExitUsageOf returns the CPU time the system reported for a process that
// has been waited for.
func ExitUsageOf(ps *os.ProcessState) ExitUsage {
	if ps == nil {
		return ExitUsage{}
	}
	return ExitUsage{User: ps.UserTime(), System: ps.SystemTime()}
}
