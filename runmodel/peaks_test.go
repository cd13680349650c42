package runmodel_test

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/internal/figure"
	"github.com/jobtrace/jobtrace/render/summary"
	"github.com/jobtrace/jobtrace/runmodel"
)

// The end-of-job summary's total row (the job's usage, a usage.Window over
// its samples) and its statistics (runmodel.Series over the same samples)
// give the same CPU peak and mean, by one rule of spans (usage.PeakSpans):
// here the job keeps a quarter of its 2 CPUs busy, with boundary samples a
// few milliseconds apart, and ends 100 ms after its last interval sample
// having kept both CPUs busy in those 100 ms. Before, the window left the
// last 100 ms out of its peak (25 %) and the statistics took them alone,
// over 200 ms (50 %); the machine's CPU differed the same way.
func TestSummaryTotalAndStatisticsAgreeOnPeaks(t *testing.T) {
	t0 := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	var samples []hostmetrics.Sample
	var cpu time.Duration
	var busy, idle float64
	prev := 0.0
	add := func(sec, share float64, reason hostmetrics.Reason) {
		d := sec - prev
		prev = sec
		cpu += time.Duration(share * 2 * d * float64(time.Second))
		busy += share * 2 * d
		idle += (1 - share) * 2 * d
		s := hostmetrics.Sample{Time: t0.Add(time.Duration(sec * float64(time.Second))), Reason: reason}
		s.Host.NumCPU = 2
		s.Host.HasCPU, s.Host.CPU = true, hostmetrics.CPUTimes{User: busy, Idle: idle}
		s.Job.HasCgroup, s.Job.CgroupOwn = true, true
		s.Job.Cgroup.HasCPU, s.Job.Cgroup.CPUUser = true, cpu
		s.Job.Cgroup.HasMemory, s.Job.Cgroup.Memory = true, uint64(100+sec)<<20
		samples = append(samples, s)
	}
	add(0, 0, hostmetrics.ReasonStart)
	for i := 1; i <= 5; i++ {
		add(float64(i), 0.25, hostmetrics.ReasonInterval)
		if i == 2 {
			add(2.004, 0.25, hostmetrics.ReasonBoundary)
		}
	}
	add(5.1, 1, hostmetrics.ReasonEnd)

	rec := runmodel.NewRecorder()
	var w usage.Window
	var u usage.Usage
	for i := range samples {
		s := &samples[i]
		rec.Samples().Sample(s)
		switch {
		case i == 0:
			w.Begin(s)
		case i == len(samples)-1:
			w.Add(s) // as a session's windows get every sample, then End
			u = w.End(s)
		default:
			w.Add(s)
		}
	}
	stats, err := rec.Run("")
	if err != nil {
		t.Fatal(err)
	}
	run := &runmodel.Run{HasJob: true, Job: runmodel.Span{Name: "build", Usage: u}}
	run.SetStats(stats.Stats)
	sum := summary.Build(run, summary.JobInfo{Name: "build", Duration: 5100 * time.Millisecond})
	tot, st := sum.Total, sum.Stats

	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if !near(tot.CPUPeak, st.CPU.Peak) || !near(tot.CPUAvg, st.CPU.Mean) {
		t.Errorf("CPU: the total row's avg %v and peak %v, the statistics' %v and %v", tot.CPUAvg, tot.CPUPeak, st.CPU.Mean, st.CPU.Peak)
	}
	// The last 100 ms are joined to the span before: 0.5 s + 0.2 s of CPU
	// over 1.1 s of 2 CPUs.
	if want := 100 * 0.7 / 2.2; math.Abs(tot.CPUPeak-want) > 1e-6 {
		t.Errorf("CPU peak %v, want %v", tot.CPUPeak, want)
	}
	if !near(100*u.SystemCPUPeak, st.HostCPU.Peak) || !near(100*u.SystemCPUAvg, st.HostCPU.Mean) {
		t.Errorf("machine CPU: the job's usage avg %v peak %v, the statistics' %v and %v", u.SystemCPUAvg, u.SystemCPUPeak, st.HostCPU.Mean, st.HostCPU.Peak)
	}
	if float64(tot.MemoryPeak) != st.Memory.Peak {
		t.Errorf("memory peak: %d in the total row, %v in the statistics", tot.MemoryPeak, st.Memory.Peak)
	}
	// And so the text prints the same figures in both.
	var b strings.Builder
	if err := summary.WriteText(&b, sum); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, f := range []string{figure.Percent(tot.CPUPeak), figure.Percent(tot.CPUAvg)} {
		if !strings.Contains(lineOf(text, "jobtrace:   total", "total"), " "+f) || !strings.Contains(lineOf(text, "jobtrace:   job CPU", "job CPU"), " "+f) {
			t.Errorf("%q is not in both the total row and the statistics:\n%s", f, text)
		}
	}
}
