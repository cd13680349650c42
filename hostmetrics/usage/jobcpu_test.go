package usage

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
)

// jobReading is a sample's reading of the job's CPU time on a 2-CPU
// machine: when, in µs, and its CPU time so far, in ms; from where (the
// tree unless said); none for a sample without a new reading.
type jobReading struct {
	us, cpuMS int
	from      hostmetrics.From
	none      bool
}

// jobShownOf takes the readings, the last one the run's last, and lists
// what each sample shows: the span's ends in ms and the job's share of the
// CPUs, or "–".
func jobShownOf(readings []jobReading) string {
	var j JobCPU
	var out []string
	for i, r := range readings {
		from := r.from
		if from == hostmetrics.FromNone {
			from = hostmetrics.FromTree
		}
		at := t0.Add(time.Duration(r.us) * time.Microsecond)
		j.Take(at, time.Duration(r.cpuMS)*time.Millisecond, 0, from, 2, !r.none, i == len(readings)-1)
		sp, ok := j.Shown()
		if !ok {
			out = append(out, "–")
			continue
		}
		share, _ := JobShare(&sp)
		a, b := sp.Times()
		out = append(out, fmt.Sprintf("%d-%d %.0f%%", a.Sub(t0).Milliseconds(), b.Sub(t0).Milliseconds(), 100*share))
	}
	return strings.Join(out, " | ")
}

// The one rule of the job's CPU share a sample shows: that of the last
// span of at least MinPeakSpan ended by it, between readings timed to the
// millisecond, never one over a few clock ticks.
func TestJobCPUShown(t *testing.T) {
	type shownCase struct {
		readings []jobReading
		want     string
	}
	for name, c := range map[string]shownCase{
		"a sample a second": {[]jobReading{{0, 0, 0, false}, {1_000_000, 1000, 0, false}, {2_000_000, 1500, 0, false}},
			"– | 0-1000 50% | 1000-2000 25%"},
		// One CPU busy, the tree's time in ticks of 10 ms: 0 % from 1000
		// to 1005 ms, 100 % of both CPUs from 1005 to 1010.
		"samples milliseconds apart show the span before": {[]jobReading{
			{0, 0, 0, false}, {1_000_000, 1000, 0, false}, {1_005_000, 1000, 0, false}, {1_010_000, 1010, 0, false}, {2_000_000, 2000, 0, false}},
			"– | 0-1000 50% | 0-1000 50% | 0-1000 50% | 1000-2000 50%"},
		"the last sample, sooner, lengthens the span before": {[]jobReading{
			{0, 0, 0, false}, {1_000_000, 1000, 0, false}, {1_004_000, 1000, 0, false}},
			"– | 0-1000 50% | 0-1004 50%"},
		"a sample without a new reading shows none; the next span covers it": {[]jobReading{
			{0, 0, 0, false}, {1_000_000, 1000, 0, false}, {2_000_000, 1000, 0, true}, {3_000_000, 3000, 0, false}},
			"– | 0-1000 50% | – | 1000-3000 50%"},
		// 199.3 ms to the µs, 200 ms as the CSV writes the times: a
		// span of its own, both CPUs busy.
		"readings are timed to the millisecond": {[]jobReading{
			{0, 0, 0, false}, {1_000_900, 0, 0, false}, {1_200_200, 400, 0, false}, {2_000_000, 400, 0, false}},
			"– | 0-1000 0% | 1000-1200 100% | 1200-2000 0%"},
		// The tree after the cgroup: another counter, whose change is
		// unknown; the span goes on to the next reading.
		"a reading from elsewhere leaves the span open": {[]jobReading{
			{0, 0, hostmetrics.FromCgroup, false}, {1_000_000, 1000, hostmetrics.FromCgroup, false},
			{2_000_000, 700, 0, false}, {3_000_000, 1700, 0, false}},
			"– | 0-1000 50% | 0-1000 50% | 1000-3000 25%"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := jobShownOf(c.readings); got != c.want {
				t.Errorf("shown %s\nwant  %s", got, c.want)
			}
		})
	}
}

// JobBusy is the CPUs busy over a span, at most the machine's; without
// them, the CPU time over the span's length.
func TestJobBusy(t *testing.T) {
	sp := PeakSpan[JobCPUTotal]{From: JobCPUTotal{Used: time.Second}, To: JobCPUTotal{Used: 4 * time.Second, NumCPU: 2}, D: time.Second}
	if got := JobBusy(&sp); got != 2 {
		t.Errorf("3 s of CPU time in 1 s of 2 CPUs: %v CPUs busy, want 2", got)
	}
	sp.To.NumCPU = 0
	if got := JobBusy(&sp); got != 3 {
		t.Errorf("3 s of CPU time in 1 s, the CPUs not known: %v CPUs busy, want 3", got)
	}
}
