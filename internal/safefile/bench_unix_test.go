//go:build unix

package safefile

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// BenchmarkReplace replaces a file of 16 KiB, the size of an artifact, in
// a directory of $TMPDIR; cpu-ns/op is the process's CPU time per
// replacement (getrusage), which a busy machine skews less than the wall
// time.
func BenchmarkReplace(b *testing.B) {
	p := filepath.Join(b.TempDir(), "report.html")
	data := make([]byte, 16<<10)
	start := cpuTime(b)
	for b.Loop() {
		if err := WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(cpuTime(b)-start)/float64(b.N), "cpu-ns/op")
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
