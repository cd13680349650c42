package usagecsv

import (
	"os"
	"testing"
	"time"
)

// BenchmarkSample formats and writes one row with every column filled, to
// the null device, so that the figure is the formatting and the write call
// without the disk.
func BenchmarkSample(b *testing.B) {
	w, err := Create(os.DevNull, Options{MaxBytes: -1, Phase: func() Phase { return Phase{Name: "compile", SpanID: "00f067aa0ba902b7", Depth: 2} }})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Close()
	s, next := fullA(), fullB()
	w.Sample(s)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		next.Time = t0.Add(time.Duration(i+1) * time.Second)
		next.Host.Net.RxBytes += 1500
		w.Sample(next)
	}
	b.StopTimer()
	if w.Dropped() != 0 {
		b.Fatalf("%d rows dropped", w.Dropped())
	}
}

// BenchmarkFormat is the formatting of one row alone.
func BenchmarkFormat(b *testing.B) {
	r := row{cur: fullB(), prev: fullA(), start: t0, phase: Phase{Name: "compile", SpanID: "00f067aa0ba902b7", Depth: 2}}
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		buf = buf[:0]
		for i := range columns {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = columns[i].cell(buf, &r)
		}
	}
}
