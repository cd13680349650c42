package session

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/render/summary"
)

// peakSource is a job in a cgroup of its own whose memory in use is 100
// MiB at every sample, and whose memory.peak says it reached 300 MiB
// between them.
type peakSource struct{ quietSource }

func (*peakSource) Read(s *hostmetrics.Sample) error {
	s.Host.NumCPU = 2
	s.Job.HasCgroup, s.Job.CgroupOwn = true, true
	c := &s.Job.Cgroup
	c.HasMemory, c.Memory = true, 100<<20
	c.HasMemoryPeak, c.MemoryPeak = true, 300<<20
	return nil
}

// The summary's total row and its statistics give the job's peak memory
// by one rule: its cgroup's memory.peak when higher than sampled
// (hostmetrics.Job.MemoryPeak). Before, only the total row was raised to
// it: 300 MiB there, 100 MiB in the statistics under it.
func TestSummaryPeakMemoryIsOneFigure(t *testing.T) {
	var log syncBuffer
	set := boundarySampled(filepath.Join(t.TempDir(), "out"), &log)
	set.Summary, set.hooks.source = "off", &peakSource{}
	s := New(set)
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := s.Begin("compile"); err != nil {
		t.Fatal(err)
	}
	if err := s.End("compile", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Shutdown(context.Background(), Outcome{Ended: time.Now()}); err != nil {
		t.Fatal(err)
	}
	sum := summary.Build(model(s.pipe, s.pipe.Dir(), s.log), summary.JobInfo{Name: "build"})
	if !sum.Total.HasMemory || sum.Total.MemoryPeak != 300<<20 || sum.Stats.Memory.Peak != 300<<20 {
		t.Errorf("peak memory %d in the total row, %v in the statistics; want 300 MiB in both", sum.Total.MemoryPeak, sum.Stats.Memory.Peak)
	}
}
