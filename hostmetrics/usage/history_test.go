package usage

import (
	"testing"
	"time"
	"unsafe"

	"github.com/jobtrace/jobtrace/hostmetrics"
)

// steady is a sample at second sec of a job that uses half a CPU of two
// (0.5 s of CPU a second: 0.25 of the machine) and writes 1000 bytes a
// second, with mem bytes in use.
func steady(sec float64, mem uint64) *hostmetrics.Sample {
	at := time.Duration(sec * float64(time.Second))
	return sample(at, at/2, mem, uint64(1000*sec), sec, sec)
}

// The usage over a past window is that of a Window fed the samples from
// the last one at or before its start to the first at or after its end.
func TestHistoryOverWidensToSamples(t *testing.T) {
	var h History
	for sec := range 11 {
		h.Add(steady(float64(sec), uint64(100+sec)))
	}
	u, span, ok := h.Over(t0.Add(2500*time.Millisecond), t0.Add(5500*time.Millisecond))
	if !ok {
		t.Fatal("no usage")
	}
	if !span.From.Equal(t0.Add(2*time.Second)) || !span.To.Equal(t0.Add(6*time.Second)) {
		t.Errorf("covered %v to %v, want seconds 2 to 6", span.From.Sub(t0), span.To.Sub(t0))
	}
	var w Window
	w.Begin(steady(2, 102))
	for sec := 3; sec < 6; sec++ {
		w.Add(steady(float64(sec), uint64(100+sec)))
	}
	want := w.End(steady(6, 106))
	if u != want {
		t.Errorf("usage\n%+v\nwant the Window's\n%+v", u, want)
	}
	if u.CPU() != 2*time.Second || u.WriteBytes != 4000 || u.MemoryPeak != 106 || u.Samples != 5 || !near(u.CPUAvg, 0.25) {
		t.Errorf("cpu %v write %d memory %d samples %d avg %v; want 2s, 4000, 106, 5, 0.25", u.CPU(), u.WriteBytes, u.MemoryPeak, u.Samples, u.CPUAvg)
	}

	// Ends on samples are taken as they are.
	_, span, _ = h.Over(t0.Add(2*time.Second), t0.Add(5*time.Second))
	if !span.From.Equal(t0.Add(2*time.Second)) || !span.To.Equal(t0.Add(5*time.Second)) {
		t.Errorf("covered %v to %v, want seconds 2 to 5", span.From.Sub(t0), span.To.Sub(t0))
	}
	// A phase shorter than the interval, between two samples, has the
	// usage of those two.
	u, span, ok = h.Over(t0.Add(7200*time.Millisecond), t0.Add(7300*time.Millisecond))
	if !ok || u.Samples != 2 || u.CPU() != 500*time.Millisecond || !span.From.Equal(t0.Add(7*time.Second)) {
		t.Errorf("a short phase: ok %v samples %d cpu %v from %v", ok, u.Samples, u.CPU(), span.From.Sub(t0))
	}
}

func TestHistoryOverOutside(t *testing.T) {
	var h History
	if _, _, ok := h.Over(t0, t0.Add(time.Second)); ok {
		t.Error("usage from an empty history")
	}
	h.Add(steady(10, 1))
	if _, _, ok := h.Over(t0.Add(9*time.Second), t0.Add(11*time.Second)); ok {
		t.Error("usage from one sample")
	}
	for sec := 11; sec <= 20; sec++ {
		h.Add(steady(float64(sec), 1))
	}
	for _, c := range []struct {
		name       string
		start, end float64
		ok         bool
		from, to   float64
	}{
		{"before the first sample", 1, 9, false, 0, 0},
		{"ending on the first sample", 5, 10, false, 0, 0},
		{"after the last sample", 21, 25, false, 0, 0},
		{"beginning on the last sample", 20, 25, false, 0, 0},
		{"end before start", 15, 14, false, 0, 0},
		{"begun before the first sample", 5, 12.5, true, 10, 13},
		{"ending after the last sample", 18.5, 30, true, 18, 20},
		{"a phase of no length", 14.5, 14.5, true, 14, 15},
	} {
		at := func(sec float64) time.Time { return t0.Add(time.Duration(sec * float64(time.Second))) }
		u, span, ok := h.Over(at(c.start), at(c.end))
		if ok != c.ok {
			t.Errorf("%s: ok %v, want %v", c.name, ok, c.ok)
			continue
		}
		if !ok {
			continue
		}
		if !span.From.Equal(at(c.from)) || !span.To.Equal(at(c.to)) {
			t.Errorf("%s: covered %v to %v, want %vs to %vs", c.name, span.From.Sub(t0), span.To.Sub(t0), c.from, c.to)
		}
		if want := time.Duration((c.to - c.from) / 2 * float64(time.Second)); u.CPU() != want {
			t.Errorf("%s: cpu %v, want %v", c.name, u.CPU(), want)
		}
	}
}

// Past MaxHeldSamples the history is thinned: it stays bounded, keeps its
// first and last samples, its counters stay exact between the samples
// held, and a memory peak at a dropped sample is kept.
func TestHistoryBounded(t *testing.T) {
	var h History
	const n = 3*MaxHeldSamples + 7
	spikeAt := 1001 // a sample the thinning drops (odd, while every second one is kept)
	for i := range n {
		mem := uint64(100)
		if i == spikeAt {
			mem = 5000
		}
		h.Add(steady(float64(i), mem))
		if h.Len() > MaxHeldSamples {
			t.Fatalf("%d samples held after %d given, more than MaxHeldSamples (%d)", h.Len(), i+1, MaxHeldSamples)
		}
	}
	if h.Gap() < 2*time.Second {
		t.Errorf("gap %v after %d samples a second apart, want at least 2s", h.Gap(), n)
	}
	last := float64(n - 1)
	u, span, ok := h.Over(t0, t0.Add(time.Duration(last*float64(time.Second))))
	if !ok || !span.From.Equal(t0) || !span.To.Equal(t0.Add(time.Duration(last*float64(time.Second)))) {
		t.Fatalf("whole run: ok %v, covered %v to %v; want 0 to %vs", ok, span.From.Sub(t0), span.To.Sub(t0), last)
	}
	if want := time.Duration(last / 2 * float64(time.Second)); u.CPU() != want || u.WriteBytes != uint64(1000*last) {
		t.Errorf("cpu %v write %d, want %v and %d", u.CPU(), u.WriteBytes, want, uint64(1000*last))
	}
	if u.MemoryPeak != 5000 {
		t.Errorf("memory peak %d, want the dropped sample's 5000", u.MemoryPeak)
	}
	// A window in the thinned part is widened to the samples held around
	// it, by at most the gap at each end, and its counters are exact.
	u, span, ok = h.Over(t0.Add(2000*time.Second), t0.Add(2010*time.Second))
	if !ok {
		t.Fatal("no usage in the thinned part")
	}
	if span.From.After(t0.Add(2000*time.Second)) || span.To.Before(t0.Add(2010*time.Second)) ||
		t0.Add(2000*time.Second).Sub(span.From) > h.Gap() || span.To.Sub(t0.Add(2010*time.Second)) > h.Gap() {
		t.Errorf("covered %v to %v for 2000s to 2010s, gap %v", span.From.Sub(t0), span.To.Sub(t0), h.Gap())
	}
	if want := span.To.Sub(span.From) / 2; u.CPU() != want {
		t.Errorf("cpu %v over %v, want %v", u.CPU(), span.To.Sub(span.From), want)
	}
}

// A reset at a sample the thinning drops is kept: the History holds the
// totals of the changes (monotonic's rule), so a window over the samples
// held around it leaves its unknown change out, as a Window fed every
// sample does. Taken as read, the samples held would say the counter went
// up by the reset's drop less.
func TestHistoryKeepsResets(t *testing.T) {
	var h History
	const n = 2*MaxHeldSamples + 1
	resetAt := 1001 // a sample the thinning drops
	for i := range n {
		rx := uint64(100 * i)
		if i >= resetAt {
			rx -= 50000 // an interface went away
		}
		h.Add(netSample(time.Duration(i)*time.Second, rx))
	}
	if h.Gap() == 0 {
		t.Fatal("the history was not thinned")
	}
	u, _, ok := h.Over(t0, t0.Add(time.Duration(n-1)*time.Second))
	if want := uint64(100 * (n - 2)); !ok || u.NetworkReceive != want {
		t.Errorf("received %d (ok %v), want %d: every second's 100 but the reset's", u.NetworkReceive, ok, want)
	}
}

// What a full History holds in memory, as docs/sampling.md says: at most
// 1.4 MiB.
func TestHistoryMemory(t *testing.T) {
	if size := unsafe.Sizeof(point{}) * MaxHeldSamples; size > 14<<20/10 {
		t.Errorf("a full History holds %d bytes, more than docs/sampling.md's 1.4 MiB", size)
	}
	var h History
	n := 0
	for ; n < 2*MaxHeldSamples; n++ {
		h.Add(steady(float64(n), 1))
	}
	s := steady(0, 1)
	if allocs := testing.AllocsPerRun(1000, func() {
		n++
		s.Time = t0.Add(time.Duration(n) * time.Second)
		h.Add(s)
	}); allocs != 0 {
		t.Errorf("Add allocates %v times once full, want none", allocs)
	}
}
