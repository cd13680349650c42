//go:build timing && linux

package main

import (
	"fmt"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/runmodel"
)

// workloadSeconds is how long each workload runs: past sizing.MinDuration,
// with a dozen samples at the default interval.
const workloadSeconds = 12

// Crowding: the machine is shared, and a workload that wants CPUs gets
// fewer when others keep them busy. A run where others than the job kept
// more than crowdedShare of all CPUs busy (the machine's busy share less
// the job's) must get the advice `starved`, which suggests no CPUs: what
// it used is not what it wanted. When it does not (its tasks waited for a
// CPU less than the verdict's share), it is tried again, up to
// workloadAttempts runs; the test fails with what every run saw.
const (
	crowdedShare     = 0.25
	workloadAttempts = 3
)

// saw says what a run measured, for a workload whose advice is wrong: the
// advice, its figures, and how busy the machine was beside the job (the
// machine is shared; a neighbour's load shows there).
func saw(run *runmodel.Run, a sizing.Advice) string {
	u := &run.Job.Usage
	return fmt.Sprintf("saw %s %q: p95 %.2f CPUs, peak %.2f, above one %v, memory peak %.0f MiB, over %v; "+
		"the job's CPU %.0f%% and the machine's %.0f%% of %d CPUs",
		a.Kind, a.Text, a.CPUBusyP95, a.CPUBusyPeak, a.AboveOneCPU, float64(a.MemoryPeak)/(1<<20), a.Duration,
		100*u.CPUAvg, 100*u.SystemCPUAvg, a.NumCPU)
}

// Real work of a known size run under the built jobtrace: the advice says
// what it used. stress-ng's stressors keep a given number of CPUs busy or a
// given amount of memory in use.
func TestAdviceOnWorkloads(t *testing.T) {
	if _, err := exec.LookPath("stress-ng"); err != nil {
		t.Skip("stress-ng is not installed (.ci/run installs it)")
	}
	timeout := "--timeout=" + strconv.Itoa(workloadSeconds) + "s"
	for _, c := range []struct {
		name string
		job  []string
		// check says what is wrong with the advice, "" when nothing is.
		check func(a sizing.Advice) string
		// cpus is set for a workload whose figures depend on the CPUs it
		// gets: a run crowded by others is tried again.
		cpus bool
	}{
		{"one CPU", []string{"stress-ng", "--cpu=1", timeout}, func(a sizing.Advice) string {
			if a.NumCPU < 2 {
				return "" // on one CPU it keeps them all busy: the next case
			}
			switch {
			case a.CPUBusyP95 < 0.85 || a.CPUBusyP95 > 1.15:
				return "p95 not about 1 CPU"
			case a.AboveOneCPU > a.Duration/10:
				return "more than one CPU busy for over a tenth of the time"
			case a.Kind != sizing.Sized || a.CPUs != 2:
				return "not a 2-CPU machine"
			}
			return ""
		}, true},
		{"every CPU", []string{"sh", "-c", "exec stress-ng --cpu=$(nproc) " + timeout}, func(a sizing.Advice) string {
			if a.Kind != sizing.NeedsCPUs || a.CPUs != 2*a.NumCPU {
				return fmt.Sprintf("not %s with %d CPUs", sizing.NeedsCPUs, 2*a.NumCPU)
			}
			return ""
		}, true},
		{"512 MiB", []string{"stress-ng", "--vm=1", "--vm-bytes=512M", "--vm-keep", timeout}, func(a sizing.Advice) string {
			switch {
			case a.MemoryPeak < 512<<20 || a.MemoryPeak > 700<<20:
				return "memory peak not about 512 MiB (and stress-ng's own)"
			case a.Memory != 2<<30:
				return "not a 2 GiB machine"
			}
			return ""
		}, false},
		{"too short", []string{"sleep", "2"}, func(a sizing.Advice) string {
			if a.Kind != sizing.TooShort {
				return "not too short"
			}
			return ""
		}, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var seen []string
			for attempt := 1; ; attempt++ {
				start := time.Now()
				run, set, _ := advised(t, "1s", c.job...)
				a := run.Advice()
				if got := set[sizing.AttrText].AsString(); got != a.Text {
					t.Logf("the run itself said %q", got)
				}
				u := &run.Job.Usage
				crowded := c.cpus && u.SystemCPUAvg-u.CPUAvg > crowdedShare
				msg := c.check(a)
				t.Logf("run %d, %v: %s (crowded: %v; %s)", attempt, time.Since(start).Round(time.Second), saw(run, a), crowded, msg)
				switch {
				case msg == "":
					return
				case crowded && a.Kind == sizing.Starved && a.CPUs == 0:
					t.Logf("crowded by others, and the advice says it was starved: right")
					return
				case crowded && attempt < workloadAttempts:
					seen = append(seen, saw(run, a))
					continue
				case crowded:
					t.Errorf("%s in %d runs, each crowded by others (more than %.0f%% of the CPUs): %s; before: %q",
						msg, attempt, 100*crowdedShare, saw(run, a), seen)
				default:
					t.Errorf("%s: %s", msg, saw(run, a))
				}
				return
			}
		})
	}
}
