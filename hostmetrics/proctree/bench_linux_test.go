package proctree

import (
	"os"
	"strconv"
	"testing"
	"time"
)

// BenchmarkSample samples a real tree of sh and N sleeping children.
func BenchmarkSample(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			cmd := spawnSleepers(b, n)
			roots := []int{cmd.Process.Pid}
			r := NewReader("/proc")
			r.Sample(roots, time.Now())
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if u, err := r.Sample(roots, time.Time{}); err != nil || u.Processes != n+1 {
					b.Fatalf("Sample = %+v, %v", u, err)
				}
			}
		})
	}
}

// BenchmarkFloor reads with os.ReadFile the same files as one Sample of the
// same tree, with the pids known in advance: the cost of the reads alone,
// against which BenchmarkSample is judged.
func BenchmarkFloor(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run("N="+strconv.Itoa(n), func(b *testing.B) {
			cmd := spawnSleepers(b, n)
			r := NewReader("/proc")
			r.Sample([]int{cmd.Process.Pid}, time.Now())
			var paths []string
			for _, p := range r.Procs() {
				dir := "/proc/" + strconv.Itoa(p.PID)
				if p.Threads != 1 {
					b.Fatalf("pid %d has %d threads; the floor lists single-threaded trees only", p.PID, p.Threads)
				}
				paths = append(paths, dir+"/stat", dir+"/statm", dir+"/io",
					dir+"/task/"+strconv.Itoa(p.PID)+"/children")
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				for _, path := range paths {
					if _, err := os.ReadFile(path); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
