package proctree

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/internal/sleeptree"
)

// spawnSleepers starts sh with n sleeping children (see package sleeptree).
func spawnSleepers(tb testing.TB, n int) *exec.Cmd { return sleeptree.Start(tb, n) }

func TestSampleRealProc(t *testing.T) {
	cmd := spawnSleepers(t, 5)
	r := NewReader("/proc")
	// From this test process, which has many threads: the sh was forked by
	// one of them, so it is found only through the task directory.
	u, err := r.Sample([]int{os.Getpid()}, time.Now())
	if err != nil {
		t.Fatalf("Sample: %v", err)
	}
	var sh, sleepers int
	for _, p := range r.Procs() {
		switch {
		case p.PID == cmd.Process.Pid:
			sh++
			if p.PPID != os.Getpid() || p.Comm != "sh" || p.RSS == 0 || p.IOAbsent {
				t.Errorf("sh = %+v", p)
			}
		case p.PPID == cmd.Process.Pid && p.Comm == "sleep":
			sleepers++
		}
	}
	if sh != 1 || sleepers != 5 {
		t.Errorf("found sh %d times and %d sleepers in %+v", sh, sleepers, r.Procs())
	}
	if u.Processes < 7 || u.Threads <= u.Processes || u.RSS == 0 || u.RChar == 0 {
		t.Errorf("Sample = %+v", u)
	}

	roots := []int{cmd.Process.Pid}
	r.Sample(roots, time.Now())
	if n := testing.AllocsPerRun(50, func() { r.Sample(roots, time.Now()) }); n != 0 {
		t.Errorf("Sample of a stable tree of 6 processes allocates %v times, want 0", n)
	}
}
