package usagemetrics

import (
	"os/exec"
	"runtime"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
)

// TestRealSource records samples from this system's own source, with a
// child process as the job. Whatever the system gives must match Table; on
// Linux the host's and the tree's figures must be there.
func TestRealSource(t *testing.T) {
	src, err := hostmetrics.NewSource(hostmetrics.Config{WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	if runtime.GOOS != "windows" {
		if path, err := exec.LookPath("sleep"); err == nil {
			cmd := exec.Command(path, "300")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
			src.SetJob(cmd.Process.Pid)
		}
	}

	r := newRig(t)
	var s hostmetrics.Sample
	for i, reason := range []hostmetrics.Reason{hostmetrics.ReasonStart, hostmetrics.ReasonInterval, hostmetrics.ReasonEnd} {
		if i > 0 {
			time.Sleep(50 * time.Millisecond)
		}
		s.Time, s.Reason = time.Now(), reason
		if err := src.Read(&s); err != nil {
			t.Logf("read: %v", err) // a missing figure is not a failure
		}
		r.rec.Sample(&s)
	}
	ms := r.collect()
	t.Logf("recorded: %v", names(ms))
	for name, got := range ms {
		m := lookup(t, name)
		checkKind(t, m, got)
		for _, p := range pointsOf(got) {
			checkKeys(t, m, p.attrs)
			if !hasExemplarOf(p, r.span) {
				t.Errorf("%s: a data point without an exemplar of the active span", name)
			}
		}
	}
	if runtime.GOOS != "linux" {
		return
	}
	for _, n := range []string{
		"system.cpu.time", "system.cpu.utilization", "system.memory.usage", "system.memory.utilization",
		"system.paging.faults", "system.network.io", "system.filesystem.usage",
		"jobtrace.system.cpu.load_average.1m", "process.cpu.time", "process.memory.usage",
		"process.thread.count", "jobtrace.process.count",
	} {
		if _, ok := ms[n]; !ok {
			t.Errorf("%s not recorded from the Linux source", n)
		}
	}
	if v := values(t, ms, "jobtrace.process.count")[""]; v < 1 {
		t.Errorf("jobtrace.process.count = %v with a child running", v)
	}
	if v := values(t, ms, "system.memory.usage")["system.memory.state=used"]; v <= 0 {
		t.Errorf("system.memory.usage{used} = %v", v)
	}
}
