package sizing

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
	"unsafe"
)

// Every figure falls in a bucket whose bounds hold it, no wider than
// 1/BusySubBuckets of it.
func TestBusyBuckets(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		v := math.Ldexp(r.Float64()+0.5, r.IntN(BusyOctaves)-6) // 1/128 to 4096 CPUs
		i := bucket(v)
		lo := 0.0
		if i > 0 {
			lo = upper(i - 1)
			if (i-1)%BusySubBuckets == 0 {
				lo = math.Ldexp(MinBusyCPUs, (i-1)/BusySubBuckets)
			}
		}
		if v < MinBusyCPUs {
			if i != 0 {
				t.Fatalf("%g in bucket %d, want 0", v, i)
			}
			continue
		}
		if v < lo || v >= upper(i) || upper(i)-lo > v/BusySubBuckets*1.0000001 {
			t.Fatalf("%g in bucket %d [%g, %g)", v, i, lo, upper(i))
		}
	}
	if got := bucket(1e9); got != BusyBuckets-1 {
		t.Errorf("a billion CPUs in bucket %d, want the last, %d", got, BusyBuckets-1)
	}
}

// The histogram is a fixed size however long the job, and counting a
// span allocates nothing.
func TestBusyCPUsBound(t *testing.T) {
	// Time and most in each bucket, the total time, the time above one
	// CPU and the peak.
	if n, want := unsafe.Sizeof(BusyCPUs{}), uintptr(2*BusyBuckets*8+3*8); n != want || n > 10<<10 {
		t.Errorf("BusyCPUs takes %d bytes, want %d (under 10 KiB)", n, want)
	}
	var b BusyCPUs
	r := rand.New(rand.NewPCG(3, 4))
	if n := testing.AllocsPerRun(1000, func() { b.Add(r.Float64()*8, time.Second) }); n != 0 {
		t.Errorf("Add allocates %v times", n)
	}
	// A day at one sample a second, then a figure past the last bucket:
	// the peak stays exact.
	for range 86400 {
		b.Add(r.Float64()*8, time.Second)
	}
	b.Add(10000, time.Second)
	if b.Peak() != 10000 || b.Quantile(1) != 10000 {
		t.Errorf("peak %g, quantile 1 %g; want 10000", b.Peak(), b.Quantile(1))
	}
}

// The 95th percentile weighs each span by the time it covers: a hundred
// boundary samples 5 ms apart at 4 CPUs do not outweigh a minute at one.
func TestBusyQuantileWeighted(t *testing.T) {
	var b BusyCPUs
	for range 60 {
		b.Add(1, time.Second)
	}
	for range 100 {
		b.Add(4, 5*time.Millisecond)
	}
	b.Add(0.25, 3*time.Second)
	if p := b.Quantile(Quantile); p != 1 {
		t.Errorf("p95 %g, want 1", p)
	}
	if b.Peak() != 4 || b.AboveOne() != 500*time.Millisecond || b.Time() != 63500*time.Millisecond {
		t.Errorf("peak %g, above one %v, time %v", b.Peak(), b.AboveOne(), b.Time())
	}
	// Unweighted, the 95th of 161 figures would be one of the 4s.
	var u BusyCPUs
	for range 60 {
		u.Add(1, time.Second)
	}
	for range 100 {
		u.Add(4, time.Second)
	}
	if p := u.Quantile(Quantile); p != 4 {
		t.Errorf("p95 of equal spans %g, want 4", p)
	}
	// The quantile is a figure counted, the most of its bucket: at most
	// 1/32 above the exact one.
	var c BusyCPUs
	c.Add(2.26, 20*time.Minute)
	c.Add(2.3, 20*time.Minute)
	c.Add(2.28, 20*time.Minute)
	c.Add(0.1, time.Minute)
	c.Add(7, time.Second)
	if p := c.Quantile(Quantile); p != 2.3 {
		t.Errorf("p95 %g, want 2.3, the most of the bucket [2.25, 2.3125)", p)
	}
	if p := c.Quantile(0.5); p != 2.3 {
		t.Errorf("median %g, want 2.3 (2.28 exactly, within 1/32)", p)
	}
}

func TestBusyEmptyAndOdd(t *testing.T) {
	var b BusyCPUs
	if b.Quantile(Quantile) != 0 || b.Time() != 0 {
		t.Errorf("empty: %g, %v", b.Quantile(Quantile), b.Time())
	}
	b.Add(math.NaN(), time.Second)
	b.Add(3, 0)
	b.Add(-1, time.Second) // no rate: a counter's changes are never negative
	if b.Time() != 0 || b.Peak() != 0 || b.Quantile(Quantile) != 0 {
		t.Errorf("time %v, peak %g, p95 %g; want none", b.Time(), b.Peak(), b.Quantile(Quantile))
	}
}

// Against the exact weighted quantile of random spans: the histogram's is
// never below it, at most 1/BusySubBuckets above it, never above the peak,
// and grows with q.
func TestBusyQuantileWithinABucket(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := range 300 {
		var b BusyCPUs
		type span struct{ cpus, sec float64 }
		var spans []span
		for range 1 + r.IntN(200) {
			s := span{cpus: math.Ldexp(r.Float64()+0.5, r.IntN(12)-5), sec: []float64{0.001, 0.2, 1, 1, 1, 5}[r.IntN(6)]}
			spans = append(spans, s)
			b.Add(s.cpus, time.Duration(s.sec*float64(time.Second)))
		}
		slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.cpus, b.cpus) })
		prev := 0.0
		for _, q := range []float64{0.5, 0.9, 0.95, 0.99, 1} {
			var total, sum float64
			for _, s := range spans {
				total += time.Duration(s.sec * float64(time.Second)).Seconds()
			}
			exact := spans[len(spans)-1].cpus
			for _, s := range spans {
				sum += time.Duration(s.sec * float64(time.Second)).Seconds()
				if sum >= q*total*(1-1e-12) {
					exact = s.cpus
					break
				}
			}
			got := b.Quantile(q)
			if got < exact || got > exact*(1+1.0/BusySubBuckets) || got > b.Peak() || got < prev {
				t.Fatalf("round %d, q %g: %g, exact %g, peak %g, previous %g", round, q, got, exact, b.Peak(), prev)
			}
			prev = got
		}
	}
}
