//go:build linux && timing

package proctree

import (
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// burnIterations makes each burner use about 2 s of CPU with dash.
const burnIterations = 1000000

// TestSampleCPUAccuracy compares the CPU that sampling sees in a tree of two
// CPU burners under an sh with what the kernel reports for the whole tree in
// the rusage of wait4.
func TestSampleCPUAccuracy(t *testing.T) {
	if testing.Short() {
		t.Skip("burns about 4 s of CPU")
	}
	burn := "i=0; while [ $i -lt " + strconv.Itoa(burnIterations) + " ]; do i=$((i+1)); done"
	cmd := exec.Command("sh", "-c", "sh -c '"+burn+"' & sh -c '"+burn+"' & wait")
	if err := cmd.Start(); err != nil {
		t.Skipf("cannot start sh: %v", err)
	}
	defer cmd.Process.Kill()
	root := []int{cmd.Process.Pid}
	r := NewReader("/proc")
	// The CPU of the burners is their last sampled CPU once they are gone:
	// what they burn after the last sample that saw them is missed, at most
	// one sampling interval each.
	const interval = 20 * time.Millisecond
	var exited, live time.Duration
	var rootProc Proc
	for {
		if _, err := r.Sample(root, time.Now()); err != nil {
			t.Fatalf("Sample: %v", err)
		}
		e := r.Exited()
		exited += e.CPUUser + e.CPUSystem
		procs := r.Procs()
		if len(procs) == 0 {
			t.Fatal("the root process vanished before it was reaped")
		}
		rootProc = procs[0]
		live = 0
		for _, p := range procs {
			live += p.CPUUser + p.CPUSystem
		}
		// The root stays a zombie until cmd.Wait reaps it, so its stat
		// still shows what it and the children it waited for used.
		if rootProc.State == 'Z' {
			break
		}
		time.Sleep(interval)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("burner: %v", err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	kernel := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())

	sampled := exited + live
	t.Logf("wait4 rusage %v; sampled live+exited %v (%.1f%%); zombie root own+children %v",
		kernel, sampled, 100*float64(sampled-kernel)/float64(kernel),
		rootProc.CPUUser+rootProc.CPUSystem+rootProc.ChildUser+rootProc.ChildSystem)
	if kernel < time.Second {
		t.Fatalf("the burners used only %v of CPU", kernel)
	}
	if d := sampled - kernel; d > kernel/100+30*time.Millisecond || d < -kernel/20 {
		t.Errorf("sampled CPU %v, wait4 says %v: off by %v", sampled, kernel, d)
	}
	own := rootProc.CPUUser + rootProc.CPUSystem + rootProc.ChildUser + rootProc.ChildSystem
	if d := own - kernel; d > 40*time.Millisecond || d < -40*time.Millisecond {
		t.Errorf("zombie root's own and children's CPU %v, wait4 says %v", own, kernel)
	}
}
