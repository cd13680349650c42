package report

import (
	"bytes"
	"io"
	"testing"

	"github.com/jobtrace/jobtrace/runmodel"
)

// BenchmarkPage is the page of the fixture written by hand (appendPage),
// by its html/template parsed once, and by an html/template parsed afresh
// each time, as every run of jobtrace did once: parsing and
// html/template's escaping analysis (done at the first Execute) are
// paid again in every process.
func BenchmarkPage(b *testing.B) {
	run, _, err := runmodel.ReadDir(runDir)
	if err != nil {
		b.Fatal(err)
	}
	d := dataOf(run)
	p, err := pageOf(d, drawCharts(d, newAxis(d.Job.Start, d.Job.End)))
	if err != nil {
		b.Fatal(err)
	}
	b.Run("by-hand", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf = appendPage(buf[:0], &p)
		}
	})
	var buf bytes.Buffer
	b.Run("html-template-parsed", func(b *testing.B) {
		for b.Loop() {
			buf.Reset()
			if err := referencePage().Execute(&buf, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("html-template-fresh", func(b *testing.B) {
		for b.Loop() {
			buf.Reset()
			if err := parseReference().Execute(&buf, p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkPageAndImage draws report.html and usage.svg of the real run of
// testdata/run in memory, as WriteHTML and WriteSVG do.
func BenchmarkPageAndImage(b *testing.B) {
	run, _, err := runmodel.ReadDir(runDir)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := WriteHTML(io.Discard, run); err != nil {
			b.Fatal(err)
		}
		if err := WriteSVG(io.Discard, run); err != nil {
			b.Fatal(err)
		}
	}
}
