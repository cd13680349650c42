//go:build unix

package timingtest

import (
	"syscall"
	"testing"
	"time"
)

// LoopCPU runs op as a benchmark's loop (b.Loop) and reports, beside the
// wall time, the CPU time the process used per op, user and system
// (cpu-ns/op, from getrusage): on a machine other work keeps busy, the
// wall time of an operation says more about the machine than about the
// operation.
func LoopCPU(b *testing.B, op func()) {
	start := processCPU(b)
	for b.Loop() {
		op()
	}
	b.ReportMetric(float64(processCPU(b)-start)/float64(b.N), "cpu-ns/op")
}

func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
