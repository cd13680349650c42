package hostmetrics

import (
	"strconv"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/internal/sleeptree"
)

// BenchmarkRead measures one full sample as the agent takes it without a
// cgroup: the host files and the job's process tree of sh and N sleeping
// children. Every iteration walks the tree (ReasonEnd), as every sample of
// a tree within CheapWalkProcs does. bench/ compares it with gopsutil and
// psutil and with the cgroup cases.
func BenchmarkRead(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			cmd := sleeptree.Start(b, n)
			src, err := NewSource(Config{WorkDir: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer src.Close()
			src.SetJob(cmd.Process.Pid)
			var s Sample
			s.Reason = ReasonEnd
			src.Read(&s)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				s.Time = time.Now()
				if err := src.Read(&s); err != nil || s.Job.Tree.Processes != n+1 {
					b.Fatalf("tree of %d processes, %v", s.Job.Tree.Processes, err)
				}
			}
		})
	}
	b.Run("host", func(b *testing.B) {
		src, err := NewSource(Config{WorkDir: b.TempDir()})
		if err != nil {
			b.Fatal(err)
		}
		defer src.Close()
		var s Sample
		src.Read(&s)
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			s.Time = time.Now()
			src.Read(&s)
		}
	})
}
