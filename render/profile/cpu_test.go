package profile

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// spreadOf makes rows at the times given (ms) of a job whose process tree
// keeps one of 2 CPUs busy, its CPU time in ticks of 10 ms, a negative
// time a row without the job's CPU time, spreads their CPU time, and lists
// each row's, in ms, "–" for none.
func spreadOf(ms []int) string {
	t0 := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	rows := make([]Row, len(ms))
	last := 0
	for i, m := range ms {
		rows[i] = Row{Time: t0.Add(time.Duration(max(m, -m)) * time.Millisecond), CPUs: Opt{2, true}}
		if i > 0 && m >= 0 {
			rows[i].CPU = Opt{float64(m/10*10-last/10*10) / 1000, true}
			last = m
		}
	}
	spreadCPU(rows)
	var out []string
	for _, r := range rows[1:] {
		if !r.CPU.OK {
			out = append(out, "–")
			continue
		}
		out = append(out, fmt.Sprintf("%g", r.CPU.V*1000))
	}
	return strings.Join(out, " ")
}

// A row's CPU time in profile.json is its part of the span of at least
// 200 ms it is in (usage.JobCPU): one CPU busy, 1 ms of CPU time per ms,
// at every row, where a tick of the tree's CPU time fell on a row a few
// ms after the one before; the rows of a span sum to its CPU time.
func TestSpreadCPU(t *testing.T) {
	for _, c := range []struct {
		name string
		ms   []int
		want string
	}{
		{"rows a second apart keep their CPU time", []int{0, 1000, 2000}, "1000 1000"},
		{"rows milliseconds apart share their span's", []int{0, 700, 702, 706, 711, 1000}, "700 2 4 5 289"},
		{"a row without the CPU time has none, the next covers it", []int{0, 1000, -1500, 2000}, "1000 – 1000"},
		{"a row after the last span, the last row without it: none", []int{0, 1000, 1100, -1150}, "1000 – –"},
	} {
		if got := spreadOf(c.ms); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
}
