//go:build unix

package hostmetrics

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// ExitUsageOf returns the usage the kernel reported for a process that has
// been waited for; the zero ExitUsage when there is none.
func ExitUsageOf(ps *os.ProcessState) ExitUsage {
	if ps == nil {
		return ExitUsage{}
	}
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return ExitUsage{}
	}
	return ExitUsageOfRusage(ru)
}

// ExitUsageOfRusage converts what wait4(2) reports for a reaped process.
func ExitUsageOfRusage(ru *syscall.Rusage) ExitUsage {
	// ru_maxrss is in KiB everywhere but on darwin, where it is in bytes.
	unit := uint64(1024)
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		unit = 1
	}
	return ExitUsage{
		User:       time.Duration(ru.Utime.Nano()),
		System:     time.Duration(ru.Stime.Nano()),
		MaxRSS:     uint64(ru.Maxrss) * unit,
		ReadBytes:  uint64(ru.Inblock) * 512,
		WriteBytes: uint64(ru.Oublock) * 512,
	}
}
