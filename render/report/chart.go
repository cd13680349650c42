package report

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jobtrace/jobtrace/internal/figure"
	"github.com/jobtrace/jobtrace/runmodel"
)

// MaxPhases bounds the rows of the timeline and of the phase table; the
// phases beyond it are counted and said.
const MaxPhases = 2000

// MaxPoints bounds the points drawn per chart series: a run with more rows
// has consecutive rows merged, keeping each group's highest value so that a
// spike stays visible.
const MaxPoints = 1000

// Geometry of every SVG, in user units. The timeline and the charts share
// the left margin and plot width, so their time axes line up when the
// browser scales them to the same width.
const (
	svgWidth   = 1200
	plotLeft   = 250
	plotRight  = 24
	plotWidth  = svgWidth - plotLeft - plotRight
	ganttRow   = 20
	ganttAxis  = 26
	chartPlot  = 110
	chartTop   = 28
	chartAxis  = 26
	chartTotal = chartTop + chartPlot + chartAxis
	maxIndent  = 10
)

// unit says how a chart's values print.
type unit int

const (
	unitPct unit = iota
	unitBytes
	unitRate // bytes per second
)

// seriesDef is one line of a chart: a column of the CSV, as it is (a gauge
// or a rate already) or as a delta turned into a rate per second.
type seriesDef struct {
	name  string
	color string
	col   runmodel.Col
	delta bool
	scale float64 // applied after the rate; 0 means 1
	// share marks a share of the time (stall time over the time it was
	// counted in), at most 100 %: the kernel's stall totals are read a
	// moment after the row's time, so over a window of 50 ms a stall
	// total can run ahead of the window and read as more than all of it.
	share bool
}

type chartDef struct {
	title  string
	sub    string // a second line under the title
	unit   unit
	minMax float64 // the y axis goes at least this high
	series []seriesDef
	extra  []seriesDef // not drawn, in the hover values
}

const (
	colorJob   = "#2563eb"
	colorHost  = "#94a3b8"
	colorRead  = "#0d9488"
	colorWrite = "#d97706"
	colorCPU   = "#2563eb"
	colorMem   = "#9333ea"
	colorIO    = "#dc2626"
)

// chartDefs lists the charts, top to bottom. Pressure stall is the job's
// when its cgroup had it, else the machine's; a chart with no value at
// all is left out.
func chartDefs(rows []runmodel.Row) []chartDef {
	stall := []seriesDef{
		{name: "job cpu", color: colorCPU, col: runmodel.JobCPUStall, delta: true, scale: 100, share: true},
		{name: "job memory", color: colorMem, col: runmodel.JobMemoryStall, delta: true, scale: 100, share: true},
		{name: "job io", color: colorIO, col: runmodel.JobIOStall, delta: true, scale: 100, share: true},
	}
	if !anyValue(rows, runmodel.JobCPUStall, runmodel.JobMemoryStall, runmodel.JobIOStall) {
		stall = []seriesDef{
			{name: "host cpu", color: colorCPU, col: runmodel.HostCPUStall, delta: true, scale: 100, share: true},
			{name: "host memory", color: colorMem, col: runmodel.HostMemoryStall, delta: true, scale: 100, share: true},
			{name: "host io", color: colorIO, col: runmodel.HostIOStall, delta: true, scale: 100, share: true},
		}
	}
	defs := []chartDef{
		{title: "CPU", sub: "share of all CPUs", unit: unitPct, minMax: 100, series: []seriesDef{
			{name: "job", color: colorJob, col: runmodel.JobCPUPct},
			{name: "host", color: colorHost, col: runmodel.HostCPUPct},
		}},
		// The machine's memory would flatten the job's line: it is in the
		// hover values only.
		{title: "Memory", sub: "the job's, in use", unit: unitBytes, minMax: 1024, series: []seriesDef{
			{name: "job", color: colorJob, col: runmodel.JobMemory},
		}, extra: []seriesDef{
			{name: "host", col: runmodel.HostMemoryUsed},
		}},
		{title: "Disk IO", sub: "the job's, per second", unit: unitRate, minMax: 1024, series: []seriesDef{
			{name: "read", color: colorRead, col: runmodel.JobRead, delta: true},
			{name: "write", color: colorWrite, col: runmodel.JobWrite, delta: true},
		}},
		{title: "Network", sub: "the machine's, per second", unit: unitRate, minMax: 1024, series: []seriesDef{
			{name: "received", color: colorRead, col: runmodel.HostNetRx, delta: true},
			{name: "sent", color: colorWrite, col: runmodel.HostNetTx, delta: true},
		}},
		{title: "Pressure stall", sub: "share of time some tasks waited", unit: unitPct, minMax: 1, series: stall},
	}
	var out []chartDef
	for _, d := range defs {
		var keep []seriesDef
		for _, s := range d.series {
			if anyValue(rows, s.col) {
				keep = append(keep, s)
			}
		}
		if len(keep) == 0 && d.unit == unitPct && d.minMax == 1 {
			continue // no pressure stall information on this system
		}
		d.series = keep
		out = append(out, d)
	}
	return out
}

func anyValue(rows []runmodel.Row, cols ...runmodel.Col) bool {
	for _, r := range rows {
		for _, c := range cols {
			if _, ok := r.Get(c); ok {
				return true
			}
		}
	}
	return false
}

// values turns a column into the figures drawn: deltas become rates over
// the time since the last row that had the column (rows left empty
// between two walks of a large process tree are covered by the next
// walked row's delta, docs/csv.md).
func values(rows []runmodel.Row, s seriesDef) []Opt {
	out := make([]Opt, len(rows))
	scale := s.scale
	if scale == 0 {
		scale = 1
	}
	var last time.Time
	for i, r := range rows {
		v, ok := r.Get(s.col)
		if !s.delta {
			if ok {
				out[i] = Opt{v * scale, true}
			}
			continue
		}
		if i == 0 {
			last = r.Time
			continue
		}
		if !ok {
			continue
		}
		dt := r.Time.Sub(last).Seconds()
		last = r.Time
		if dt <= 0 {
			continue
		}
		rate := v / dt
		if s.share {
			rate = min(rate, 1)
		}
		out[i] = Opt{rate * scale, true}
	}
	return out
}

// bucket groups rows so that at most MaxPoints are drawn: it returns the
// end index (exclusive) of each group.
func bucket(n int) []int {
	k := (n + MaxPoints - 1) / MaxPoints
	if k < 1 {
		k = 1
	}
	var ends []int
	for i := k; i < n+k; i += k {
		ends = append(ends, min(i, n))
	}
	return ends
}

// peak is the highest present value in vs.
func peak(vs []Opt) Opt {
	var p Opt
	for _, v := range vs {
		if v.OK && (!p.OK || v.V > p.V) {
			p = v
		}
	}
	return p
}

// axis maps times to x and picks the time ticks.
type axis struct {
	start time.Time
	span  time.Duration
}

func newAxis(start, end time.Time) axis {
	span := end.Sub(start)
	if span <= 0 {
		span = time.Second
	}
	return axis{start, span}
}

func (a axis) x(t time.Time) float64 {
	f := float64(t.Sub(a.start)) / float64(a.span)
	f = math.Max(0, math.Min(1, f))
	return plotLeft + f*plotWidth
}

var tickSteps = []time.Duration{
	10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond,
	100 * time.Millisecond, 200 * time.Millisecond, 500 * time.Millisecond,
	time.Second, 2 * time.Second, 5 * time.Second, 10 * time.Second, 15 * time.Second, 30 * time.Second,
	time.Minute, 2 * time.Minute, 5 * time.Minute, 10 * time.Minute, 15 * time.Minute, 30 * time.Minute,
	time.Hour, 2 * time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, 24 * time.Hour,
}

// ticks returns the offsets of the time labels: about ten over the plot,
// each a whole number of a step of tickSteps, which the rule of durations
// (figure.Duration) writes exactly: 250ms, 1m05s, 1h30m.
func (a axis) ticks() (offs []time.Duration) {
	step := tickSteps[len(tickSteps)-1]
	for _, s := range tickSteps {
		if a.span/s <= 10 {
			step = s
			break
		}
	}
	for o := time.Duration(0); o <= a.span && len(offs) < 200; o += step {
		offs = append(offs, o)
	}
	return offs
}

// niceMax rounds a chart's highest value up to 1, 2 or 5 times a power of
// ten (a power of two times a power of 1024 for bytes), so that the axis
// labels, it and its half, are round: the rules of package figure write
// them without rounding.
func niceMax(v float64, u unit) float64 {
	if v <= 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 1
	}
	base := 10.0
	if u != unitPct {
		base = 1024
	}
	p := math.Pow(base, math.Floor(math.Log(v)/math.Log(base)))
	steps := []float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000}
	if u != unitPct {
		steps = []float64{1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024}
	}
	for _, m := range steps {
		if m*p >= v && !math.IsInf(m*p, 0) {
			return m * p
		}
	}
	return v
}

// formatValue writes a chart's value as appendValue does.
func formatValue(v float64, u unit) string {
	return string(appendValue(make([]byte, 0, 16), v, u))
}

// appendValue appends a chart's value in its unit, by the rules of package
// figure: percent, bytes or bytes per second.
func appendValue(b []byte, v float64, u unit) []byte {
	switch u {
	case unitPct:
		return figure.AppendPercent(b, v)
	case unitRate:
		return figure.AppendRate(b, v)
	}
	return figure.AppendBytes(b, v)
}

// appendF1 appends a coordinate with one decimal, as %.1f writes it.
func appendF1(b []byte, v float64) []byte { return strconv.AppendFloat(b, v, 'f', 1, 64) }

func plain(s string) bool { return utf8.ValidString(s) && !strings.ContainsFunc(s, escaped) }

// appendEscString appends s escaped for XML and HTML: every text that
// comes from the job (phase names, attributes) goes through it, or through
// appendEsc, before it is written in SVG.
func appendEscString(b []byte, s string) []byte {
	if plain(s) {
		return append(b, s...)
	}
	return appendEscaped(b, s)
}

// appendEsc appends s escaped as appendEscString escapes a string.
func appendEsc(b, s []byte) []byte {
	if utf8.Valid(s) && !bytes.ContainsFunc(s, escaped) {
		return append(b, s...)
	}
	return appendEscaped(b, string(s))
}

func appendEscaped(b []byte, s string) []byte {
	for _, r := range s {
		switch r {
		case '<':
			b = append(b, "&lt;"...)
		case '>':
			b = append(b, "&gt;"...)
		case '&':
			b = append(b, "&amp;"...)
		case '"':
			b = append(b, "&#34;"...)
		case '\'':
			b = append(b, "&#39;"...)
		default:
			// Control characters are not allowed in XML 1.0.
			if r < 0x20 && r != '\n' && r != '\t' || r == 0xFFFE || r == 0xFFFF {
				r = '\uFFFD'
			}
			b = utf8.AppendRune(b, r)
		}
	}
	return b
}

// escaped reports whether esc changes r.
func escaped(r rune) bool {
	switch r {
	case '<', '>', '&', '"', '\'', 0xFFFE, 0xFFFF:
		return true
	}
	return r < 0x20 && r != '\n' && r != '\t'
}
