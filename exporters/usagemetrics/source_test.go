package usagemetrics

import (
	"runtime"
	"testing"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/internal/realsource"
)

// TestRealSource records samples from this system's own source, with a
// child process as the job. Whatever the system gives must match table; on
// Linux the host's and the tree's figures must be there.
func TestRealSource(t *testing.T) {
	r := newRig(t)
	realsource.Read(t, []hostmetrics.Reason{hostmetrics.ReasonStart, hostmetrics.ReasonInterval, hostmetrics.ReasonEnd}, r.rec.Sample)
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
