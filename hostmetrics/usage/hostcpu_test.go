package usage

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics"
)

// hostReading is a sample's reading of a one-CPU machine: when, in ms, and
// its busy and idle time so far, in ticks of 10 ms; none for a sample
// without the machine's CPU time.
type hostReading struct {
	ms, busy, idle int
	none           bool
}

// shownOf takes the readings, the last one the run's last, and lists what
// each sample shows: the span's ends in ms and its busy share, or "–".
// The span's From was read at sp.at, its To sp.D later.
func shownOf(readings []hostReading) string {
	var h HostCPU
	var out []string
	for i, r := range readings {
		c := hostmetrics.CPUTimes{User: float64(r.busy) / 100, Idle: float64(r.idle) / 100}
		at := t0.Add(time.Duration(r.ms) * time.Millisecond)
		h.Take(at, &c, !r.none, i == len(readings)-1)
		sp, ok := h.Shown()
		if !ok {
			out = append(out, "–")
			continue
		}
		share, _ := HostShare(&sp)
		from := sp.at.Sub(t0).Milliseconds()
		out = append(out, fmt.Sprintf("%d-%d %.0f%%", from, from+sp.D.Milliseconds(), 100*share))
	}
	return strings.Join(out, " | ")
}

// The one rule of the machine's CPU share a sample shows: that of the last
// span of at least MinPeakSpan ended by it, never one over a few clock
// ticks; the run's last sample, sooner, lengthens the span before it.
func TestHostCPUShown(t *testing.T) {
	type shownCase struct {
		readings []hostReading
		want     string
	}
	for name, c := range map[string]shownCase{
		"a sample a second": {[]hostReading{{0, 0, 0, false}, {1000, 50, 50, false}, {2000, 125, 75, false}},
			"– | 0-1000 50% | 1000-2000 75%"},
		// Between 1000 and 1003 ms the machine's time moved by one busy
		// tick, between 1003 and 1005 ms by one idle tick: 100 % and 0 %
		// over spans of one tick.
		"samples milliseconds apart show the span before": {[]hostReading{
			{0, 0, 0, false}, {1000, 50, 50, false}, {1002, 50, 50, false}, {1003, 51, 50, false}, {1005, 51, 51, false}, {2000, 101, 101, false}},
			"– | 0-1000 50% | 0-1000 50% | 0-1000 50% | 0-1000 50% | 1000-2000 50%"},
		"the last sample, sooner, lengthens the span before": {[]hostReading{
			{0, 0, 0, false}, {1000, 50, 50, false}, {1003, 51, 50, false}},
			"– | 0-1000 50% | 0-1003 50%"},
		"a run shorter than MinPeakSpan: one span at its end": {[]hostReading{
			{0, 0, 0, false}, {3, 1, 0, false}, {50, 3, 2, false}},
			"– | – | 0-50 60%"},
		"a sample without the reading shows none; the next span covers it": {[]hostReading{
			{0, 0, 0, false}, {1000, 50, 50, false}, {2000, 0, 0, true}, {3000, 150, 150, false}},
			"– | 0-1000 50% | – | 1000-3000 50%"},
	} {
		t.Run(name, func(t *testing.T) {
			if got := shownOf(c.readings); got != c.want {
				t.Errorf("shown %s\nwant  %s", got, c.want)
			}
		})
	}
}
