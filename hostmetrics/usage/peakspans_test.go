package usage

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// noFigure stands for a last sample without the figure.
const noFigure = math.MinInt

// spansOf gives PeakSpans readings at the times given (in ms, the reading
// being its time), the last one last unless open, and lists the spans
// they make: "from-to" in ms. A negative time is a reading whose change is
// unknown, at that time; noFigure a last sample without the figure.
func spansOf(ms []int, open bool) string {
	var s PeakSpans[int]
	var out []string
	put := func(done [2]PeakSpan[int], n int) {
		for _, sp := range done[:n] {
			if time.Duration(sp.To-sp.From)*time.Millisecond != sp.D {
				out = append(out, fmt.Sprintf("bad length %v", sp.D))
			}
			out = append(out, fmt.Sprintf("%d-%d", sp.From, sp.To))
		}
	}
	for i, m := range ms {
		last := i == len(ms)-1 && !open
		if m == noFigure {
			put(s.Take(time.Time{}, 0, false, false, last))
			continue
		}
		known := m >= 0
		m = max(m, -m)
		put(s.Next(t0.Add(time.Duration(m)*time.Millisecond), m, known, last))
	}
	if sp, ok := s.Held(); ok && open {
		out = append(out, fmt.Sprintf("held %d-%d", sp.From, sp.To))
	}
	return strings.Join(out, " ")
}

// The one rule of the spans of peaks and rates: at least MinPeakSpan, a
// shorter one joined to the next, the last joined to the one before, so
// that the spans cover the readings from the first to the last.
func TestPeakSpans(t *testing.T) {
	for _, c := range []struct {
		name string
		ms   []int
		open bool
		want string
	}{
		{"even", []int{0, 1000, 2000, 3000}, false, "0-1000 1000-2000 2000-3000"},
		{"short ones joined to the next", []int{0, 3, 5, 1000, 1004, 2000}, false, "0-1000 1000-2000"},
		{"the last short one joined to the one before", []int{0, 1000, 2000, 2100}, false, "0-1000 1000-2100"},
		{"a last one long enough stands alone", []int{0, 1000, 2000, 2200}, false, "0-1000 1000-2000 2000-2200"},
		{"all shorter than MinPeakSpan: one span", []int{0, 50, 120}, false, "0-120"},
		{"a reading not later ends nothing", []int{0, 1000, 1000, 2000}, false, "0-1000 1000-2000"},
		{"the last not later: the held one ends", []int{0, 1000, 2000, 2000}, false, "0-1000 1000-2000"},
		{"a reset leaves the span open", []int{0, 1000, -2000, 3000}, false, "0-1000 1000-3000"},
		{"a last reset: the held one ends", []int{0, 1000, 2000, -3000}, false, "0-1000 1000-2000"},
		{"a sample without the figure", []int{0, 1000, noFigure, 2000, 3000}, false, "0-1000 1000-2000 2000-3000"},
		{"a last sample without the figure", []int{0, 1000, 2000, noFigure}, false, "0-1000 1000-2000"},
		{"before the last, the held one", []int{0, 1000, 2000}, true, "0-1000 held 1000-2000"},
	} {
		if got := spansOf(c.ms, c.open); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
