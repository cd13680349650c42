// Package realsource reads this machine's own resource source
// (hostmetrics.NewSource) with a child process as the job, for the tests
// of the sinks that turn samples into rows and metrics.
package realsource

import (
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
)

// Gap is the time between two samples Read takes, so that the second has
// deltas to show.
const Gap = 50 * time.Millisecond

// Read takes one sample of this machine's source for each of reasons, Gap
// apart, into the same Sample, and hands each to fn. The job is a sleeping
// child process where a sleep command is found (not on Windows); it is
// killed and reaped before Read returns. A figure the machine does not
// give is logged, not a failure.
func Read(tb testing.TB, reasons []hostmetrics.Reason, fn func(*hostmetrics.Sample)) {
	tb.Helper()
	src, err := hostmetrics.NewSource(hostmetrics.Config{WorkDir: tb.TempDir()})
	if err != nil {
		tb.Fatal(err)
	}
	defer src.Close()
	if runtime.GOOS != "windows" {
		if path, err := exec.LookPath("sleep"); err == nil {
			cmd := exec.Command(path, "300")
			if err := cmd.Start(); err != nil {
				tb.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			src.SetJob(cmd.Process.Pid)
		}
	}
	var s hostmetrics.Sample
	for i, reason := range reasons {
		if i > 0 {
			time.Sleep(Gap)
		}
		s.Time, s.Reason = time.Now(), reason
		if err := src.Read(&s); err != nil {
			tb.Logf("read: %v", err)
		}
		fn(&s)
	}
}
