package report

import (
	"io"
	"math"
	"strconv"
	"time"

	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/internal/figure"
	"github.com/jobtrace/jobtrace/runmodel"
	"github.com/jobtrace/jobtrace/spans/wire"
)

// svgStyle is shared by the standalone usage.svg and the report, where the
// page's stylesheet has the same rules.
const svgStyle = `text{font:12px system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;fill:#334155}
.t{font-weight:600;fill:#0f172a}.ax{font-size:11px;fill:#64748b}.lg{font-size:11px}
.grid{stroke:#e2e8f0;stroke-width:1}.base{stroke:#cbd5e1;stroke-width:1}
.line{fill:none;stroke-width:1.5;stroke-linejoin:round}
.hov{fill:transparent}.hov:hover{fill:rgba(15,23,42,.07)}
.bar{fill:#3b82f6}.bar.d1{fill:#60a5fa}.bar.d2{fill:#93c5fd}.bar.job{fill:#1e3a8a}.bar.fail{fill:#dc2626}
.bar:hover{opacity:.8}.pl.fail{fill:#b91c1c}.more{fill:#64748b;font-style:italic}`

// timeAxis appends the vertical grid lines between y0 and y1 and the time
// labels at ly.
func timeAxis(b []byte, a axis, y0, y1, ly float64) []byte {
	for _, o := range a.ticks() {
		x := a.x(a.start.Add(o))
		b = append(b, `<line class="grid" x1="`...)
		b = appendF1(b, x)
		b = append(b, `" y1="`...)
		b = appendF1(b, y0)
		b = append(b, `" x2="`...)
		b = appendF1(b, x)
		b = append(b, `" y2="`...)
		b = appendF1(b, y1)
		b = append(b, `"/><text class="ax" x="`...)
		b = appendF1(b, x)
		b = append(b, `" y="`...)
		b = appendF1(b, ly)
		if o == 0 {
			b = append(b, `" text-anchor="start">`...)
		} else {
			b = append(b, `" text-anchor="middle">`...)
		}
		b = figure.AppendDuration(b, o)
		b = append(b, `</text>`...)
	}
	return append(b, '\n')
}

// ganttSVG draws the job and its phases, one row each, indented by depth,
// on the time axis a, with their events as markers on their rows.
func ganttSVG(d *Data, a axis) string {
	phases := d.Phases
	more := d.Skipped
	if len(phases) > MaxPhases {
		more += len(phases) - MaxPhases
		phases = phases[:MaxPhases]
	}
	evs := placeEvents(d, phases)
	rows := 1 + len(phases)
	if more > 0 {
		rows++
	}
	if evs.more > 0 {
		rows++
	}
	h := ganttAxis + rows*ganttRow + 6
	b := make([]byte, 0, 2<<10+rows*512+len(evs.shown)*256)
	b = appendSVGHead(b, "gantt", "phases", 0, h)
	b = timeAxis(b, a, ganttAxis-6, float64(h), ganttAxis-10)
	var tip []byte
	// A bar runs for the span's duration, the job's to its exit.
	row := func(i int, name, class string, depth int, p *Phase) {
		y := float64(ganttAxis + i*ganttRow)
		indent := min(depth, maxIndent) * 12
		chars := (plotLeft - 12 - indent) / 7
		x0, x1 := a.x(p.Start), a.x(p.Start.Add(p.Duration))
		w := max(x1-x0, 1.5)
		tip = appendSpanTip(tip[:0], p, d.Job.Start)
		b = append(b, `<g><title>`...)
		b = appendEsc(b, tip)
		b = append(b, `</title><text class="pl `...)
		b = append(b, class...)
		b = append(b, `" x="`...)
		b = strconv.AppendInt(b, int64(6+indent), 10)
		b = append(b, `" y="`...)
		b = appendF1(b, y+14)
		b = append(b, `">`...)
		b = appendEscString(b, cleantext.CutRunes(name, chars))
		b = append(b, `</text><rect class="bar `...)
		b = append(b, class...)
		b = append(b, `" x="`...)
		b = appendF1(b, x0)
		b = append(b, `" y="`...)
		b = appendF1(b, y+3)
		b = append(b, `" width="`...)
		b = appendF1(b, w)
		b = append(b, `" height="`...)
		b = strconv.AppendInt(b, ganttRow-6, 10)
		b = append(b, "\" rx=\"2\"/></g>\n"...)
	}
	job := d.Job
	jp := jobPhase(job)
	row(0, job.Name, "job", 0, &jp)
	for i := range phases {
		p := &phases[i]
		class := depthClass[p.Depth%3]
		if p.Depth%3 < 0 {
			class = "d" + strconv.Itoa(p.Depth%3)
		}
		if p.Failed {
			class = "fail"
		}
		row(i+1, p.Name, class, p.Depth+1, p)
	}
	// The markers come after every bar, so that no bar hides one.
	for _, e := range evs.shown {
		x := a.x(e.Time)
		y := float64(ganttAxis+e.row*ganttRow) + ganttRow/2
		b = append(b, `<path class="ev" d="M`...)
		b = appendF1(b, x)
		b = append(b, ' ')
		b = appendF1(b, y-6.5)
		b = append(b, `l4.5 6.5-4.5 6.5-4.5-6.5z"><title>`...)
		tip = appendEventTip(tip[:0], e, job.Start)
		b = appendEsc(b, tip)
		b = append(b, "</title></path>\n"...)
	}
	last := rows - 1
	if evs.more > 0 {
		b = appendMore(b, ganttAxis+last*ganttRow+14, evs.more, "events")
		last--
	}
	if more > 0 {
		b = appendMore(b, ganttAxis+last*ganttRow+14, more, "phases")
	}
	b = append(b, "</svg>"...)
	return string(b)
}

// depthClass is the class of a phase's bar by its depth, modulo 3.
var depthClass = [3]string{"d0", "d1", "d2"}

// appendMore appends the line at y that says n more things are not shown.
func appendMore(b []byte, y, n int, what string) []byte {
	b = append(b, `<text class="more" x="6" y="`...)
	b = strconv.AppendInt(b, int64(y), 10)
	b = append(b, `">… and `...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, " more "...)
	b = append(b, what...)
	return append(b, ", not shown</text>\n"...)
}

// MaxEvents bounds the event markers on the timeline; the events beyond
// it, and those of phases not shown or without a time, are counted and
// said.
const MaxEvents = 500

// MaxEventAttributes bounds the attributes an event's hover text lists;
// the others are counted in it.
const MaxEventAttributes = 20

// maxTipRunes bounds each name and value in an event's hover text: a
// value may be as long as a job cares to make it.
const maxTipRunes = 200

// placedEvent is an event drawn on row (0 for the job) of the span named
// span.
type placedEvent struct {
	runmodel.Event
	row  int
	span string
}

type placedEvents struct {
	shown []placedEvent
	more  int
}

// placeEvents picks the events drawn: the job's, then each shown phase's,
// in order, at most MaxEvents; more counts every other event of the run.
func placeEvents(d *Data, phases []Phase) placedEvents {
	var p placedEvents
	add := func(row int, span string, evs []runmodel.Event) {
		for _, e := range evs {
			if e.Time.IsZero() || len(p.shown) == MaxEvents {
				p.more++
				continue
			}
			p.shown = append(p.shown, placedEvent{e, row, span})
		}
	}
	add(0, d.Job.Name, d.Job.Events)
	for i, ph := range phases {
		add(i+1, ph.Name, ph.Events)
	}
	for _, ph := range d.Phases[len(phases):] {
		p.more += len(ph.Events)
	}
	return p
}

// appendEventTip appends the hover text of an event marker: its name,
// time, span and attributes, each clipped to maxTipRunes.
func appendEventTip(b []byte, e placedEvent, jobStart time.Time) []byte {
	b = append(b, cleantext.CutRunes(e.Name, maxTipRunes)...)
	b = append(b, "\n+"...)
	b = figure.AppendDuration(b, e.Time.Sub(jobStart))
	b = append(b, " ("...)
	b = e.Time.UTC().AppendFormat(b, "15:04:05.000")
	b = append(b, " UTC) in "...)
	b = append(b, cleantext.CutRunes(e.span, maxTipRunes)...)
	for i, kv := range e.Attributes {
		if i == MaxEventAttributes {
			b = append(b, "\n… and "...)
			b = strconv.AppendInt(b, int64(len(e.Attributes)-i), 10)
			b = append(b, " more attributes"...)
			break
		}
		b = append(b, '\n')
		b = append(b, cleantext.CutRunes(string(kv.Key), maxTipRunes)...)
		b = append(b, " = "...)
		b = append(b, cleantext.CutRunes(runmodel.Text(kv.Value), maxTipRunes)...)
	}
	return b
}

// jobPhase is the job as a row of the timeline and the table: failed by its
// result (wire.Failed), as its span's status is set.
func jobPhase(j Job) Phase {
	return Phase{Name: j.Name, Start: j.Start, End: j.End, Duration: j.Duration, Result: j.Result, Failed: wire.Failed(j.Result), Usage: j.Usage, Verdict: j.Verdict}
}

// appendSpanTip appends the hover text of a timeline bar.
func appendSpanTip(b []byte, p *Phase, jobStart time.Time) []byte {
	u := &p.Usage
	b = append(b, p.Name...)
	b = append(b, "\nstart +"...)
	b = figure.AppendDuration(b, p.Start.Sub(jobStart))
	b = append(b, ", duration "...)
	b = figure.AppendDuration(b, p.Duration)
	if p.Result != "" {
		b = append(b, "\nresult "...)
		b = append(b, p.Result...)
	}
	if p.Verdict.Kind != "" {
		b = append(b, "\nverdict "...)
		b = append(b, p.Verdict.Kind...)
		b = append(b, ": "...)
		b = append(b, p.Verdict.Reason...)
	}
	if c := cpuSeconds(*u); c.OK {
		b = append(b, "\nCPU "...)
		b = figure.AppendSeconds(b, c.V)
	}
	if u.CPUAvg.OK {
		b = append(b, ", avg "...)
		b = figure.AppendPercent(b, u.CPUAvg.V*100)
	}
	if u.CPUPeak.OK {
		b = append(b, ", peak "...)
		b = figure.AppendPercent(b, u.CPUPeak.V*100)
	}
	if u.MemoryPeak.OK {
		b = append(b, "\npeak memory "...)
		b = figure.AppendBytes(b, u.MemoryPeak.V)
	}
	if u.DiskRead.OK || u.DiskWrite.OK {
		b = append(b, "\ndisk read "...)
		b = appendOptBytes(b, u.DiskRead)
		b = append(b, ", written "...)
		b = appendOptBytes(b, u.DiskWrite)
		if u.DiskHost {
			b = append(b, " ("...)
			b = append(b, runmodel.HostDiskNote...)
			b = append(b, ')')
		}
	}
	return b
}

func cpuSeconds(u Usage) Opt {
	if !u.CPUUser.OK && !u.CPUSystem.OK {
		return Opt{}
	}
	return Opt{u.CPUUser.V + u.CPUSystem.V, true}
}

// optBytes writes a size that may be absent.
func optBytes(o Opt) string {
	if !o.OK {
		return figure.Absent
	}
	return figure.Bytes(o.V)
}

// appendOptBytes appends a size that may be absent.
func appendOptBytes(b []byte, o Opt) []byte {
	if !o.OK {
		return append(b, figure.Absent...)
	}
	return figure.AppendBytes(b, o.V)
}

// chartsHead is the height of the line that names the job above the charts
// in the standalone image, which is seen without the page.
const chartsHead = 30

// charts holds every chart drawn once, stacked below chartsHead, for both
// the page and the standalone image: the page's SVG shows the same body
// through a view box that starts below the head.
type charts struct {
	h    int // height of the charts, without the head
	body []byte
	// plots are the charts' values at their points, for the page's
	// crosshair; times are the points' times.
	plots []plotData
	times []time.Time
}

// drawCharts draws every chart, stacked, starting at y = chartsHead.
func drawCharts(d *Data, a axis) charts {
	defs := chartDefs(d.Rows)
	h := len(defs) * chartTotal
	if h == 0 {
		h = chartTotal
	}
	ends := bucket(len(d.Rows))
	b := make([]byte, 0, 512+len(defs)*(3<<10+len(ends)*384))
	if len(d.Rows) == 0 {
		b = append(b, `<text class="more" x="`...)
		b = strconv.AppendInt(b, plotLeft, 10)
		b = append(b, `" y="`...)
		b = strconv.AppendInt(b, chartsHead+chartTop+20, 10)
		b = append(b, `">no resource usage samples (resource-usage.csv missing or empty)</text>`...)
	}
	c := charts{h: h}
	for i, def := range defs {
		if len(d.Rows) == 0 {
			break
		}
		var p plotData
		b, p = chart(b, d.Rows, ends, def, a, float64(chartsHead+i*chartTotal))
		c.plots = append(c.plots, p)
	}
	if len(d.Rows) > 0 {
		c.times = make([]time.Time, 0, len(ends))
		for _, end := range ends {
			c.times = append(c.times, d.Rows[end-1].Time)
		}
	}
	c.body = b
	return c
}

// appendSVGHead appends the opening tag of an SVG of class class, named
// label, whose view box starts at y and is h high.
func appendSVGHead(b []byte, class, label string, y, h int) []byte {
	b = append(b, `<svg xmlns="http://www.w3.org/2000/svg" class="`...)
	b = append(b, class...)
	b = append(b, `" viewBox="0 `...)
	b = strconv.AppendInt(b, int64(y), 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, svgWidth, 10)
	b = append(b, ' ')
	b = strconv.AppendInt(b, int64(h), 10)
	b = append(b, `" width="`...)
	b = strconv.AppendInt(b, svgWidth, 10)
	b = append(b, `" height="`...)
	b = strconv.AppendInt(b, int64(h), 10)
	b = append(b, `" role="img" aria-label="`...)
	b = append(b, label...)
	return append(b, "\">\n"...)
}

// pageSVG is the charts as the page shows them, without the head.
func (c charts) pageSVG() string {
	b := make([]byte, 0, len(c.body)+256)
	b = appendSVGHead(b, "charts", "resource usage", chartsHead, c.h)
	b = append(b, c.body...)
	b = append(b, "</svg>"...)
	return string(b)
}

// appendStandaloneSVG appends the charts as an image of their own
// (usage.svg, with its last newline): the job named above them, with the
// style the page would have given.
func (c charts) appendStandaloneSVG(b []byte, d *Data) []byte {
	h := c.h + chartsHead
	b = append(b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n"...)
	b = appendSVGHead(b, "charts", "resource usage", 0, h)
	b = append(b, "<style>"+svgStyle+"</style>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n"...)
	name := d.Job.Name
	if name == "" {
		name = "job"
	}
	b = append(b, `<text class="t" x="6" y="20">`...)
	b = appendEscString(b, name)
	if d.Job.Result != "" {
		b = append(b, " · "...)
		b = appendEscString(b, d.Job.Result)
	}
	if !d.Job.Start.IsZero() {
		b = append(b, " · started "...)
		b = d.Job.Start.UTC().AppendFormat(b, "2006-01-02 15:04:05 UTC")
		b = append(b, " · "...)
		b = figure.AppendDuration(b, d.Job.Duration)
	}
	b = append(b, "</text>\n"...)
	b = append(b, c.body...)
	return append(b, "</svg>\n"...)
}

// chart appends one chart at y offset top: title and legend, y grid, lines
// broken where values are absent, and one hover column per point with the
// values of every series; it returns what it drew for the crosshair.
func chart(b []byte, rows []runmodel.Row, ends []int, def chartDef, a axis, top float64) ([]byte, plotData) {
	type pt struct {
		t    time.Time
		v, x []Opt
	}
	pts := make([]pt, len(ends))
	all := make([][]Opt, len(def.series))
	for s, sd := range def.series {
		all[s] = values(rows, sd)
	}
	extra := make([][]Opt, len(def.extra))
	for s, sd := range def.extra {
		extra[s] = values(rows, sd)
	}
	// Every point's values, in two slices cut up among the points.
	vs := make([]Opt, len(ends)*len(def.series))
	xs := make([]Opt, len(ends)*len(def.extra))
	hi := def.minMax
	begin := 0
	for i, end := range ends {
		pts[i].t = rows[end-1].Time
		pts[i].v = vs[i*len(def.series) : (i+1)*len(def.series) : (i+1)*len(def.series)]
		for s := range def.series {
			p := peak(all[s][begin:end])
			pts[i].v[s] = p
			if p.OK && p.V > hi {
				hi = p.V
			}
		}
		pts[i].x = xs[i*len(def.extra) : (i+1)*len(def.extra) : (i+1)*len(def.extra)]
		for s := range def.extra {
			pts[i].x[s] = peak(extra[s][begin:end])
		}
		begin = end
	}
	hi = niceMax(hi, def.unit)
	y0 := top + chartTop
	y1 := y0 + chartPlot
	// A value is drawn within the plot whatever it is: one below zero at
	// its bottom (no figure charted here can be), so that a hostile or
	// damaged CSV cannot put an infinite or NaN coordinate in the page.
	y := func(v float64) float64 {
		f := v / hi
		if !(f > 0) { // also NaN
			f = 0
		}
		return y1 - min(f, 1)*chartPlot
	}

	b = append(b, `<text class="t" x="6" y="`...)
	b = appendF1(b, top+18)
	b = append(b, `">`...)
	b = appendEscString(b, def.title)
	b = append(b, `</text>`...)
	if def.sub != "" {
		b = append(b, `<text class="ax" x="6" y="`...)
		b = appendF1(b, top+34)
		b = append(b, `">`...)
		b = appendEscString(b, def.sub)
		b = append(b, `</text>`...)
	}
	lx := float64(plotLeft)
	for _, sd := range def.series {
		b = append(b, `<rect x="`...)
		b = appendF1(b, lx)
		b = append(b, `" y="`...)
		b = appendF1(b, top+9)
		b = append(b, `" width="10" height="10" rx="2" fill="`...)
		b = append(b, sd.color...)
		b = append(b, `"/><text class="lg" x="`...)
		b = appendF1(b, lx+14)
		b = append(b, `" y="`...)
		b = appendF1(b, top+18)
		b = append(b, `">`...)
		b = appendEscString(b, sd.name)
		b = append(b, `</text>`...)
		lx += 24 + 7*float64(len(sd.name))
	}
	if len(def.series) == 0 {
		b = append(b, `<text class="more" x="`...)
		b = appendF1(b, lx)
		b = append(b, `" y="`...)
		b = appendF1(b, top+18)
		b = append(b, `">not measured on this system</text>`...)
	}
	for _, f := range [...]float64{0, 0.5, 1} {
		yy := y(f * hi)
		class := "grid"
		if f == 0 {
			class = "base"
		}
		b = append(b, `<line class="`...)
		b = append(b, class...)
		b = append(b, `" x1="`...)
		b = strconv.AppendInt(b, plotLeft, 10)
		b = append(b, `" y1="`...)
		b = appendF1(b, yy)
		b = append(b, `" x2="`...)
		b = strconv.AppendInt(b, svgWidth-plotRight, 10)
		b = append(b, `" y2="`...)
		b = appendF1(b, yy)
		b = append(b, `"/><text class="ax" x="`...)
		b = strconv.AppendInt(b, plotLeft-8, 10)
		b = append(b, `" y="`...)
		b = appendF1(b, yy+4)
		b = append(b, `" text-anchor="end">`...)
		b = appendValue(b, f*hi, def.unit) // figures and units only: nothing to escape
		b = append(b, `</text>`...)
	}
	b = timeAxis(b, a, y0, y1, y1+16)
	for s, sd := range def.series {
		open := len(b)
		b = append(b, `<path class="line" stroke="`...)
		b = append(b, sd.color...)
		b = append(b, `" d="`...)
		drawn := false
		pen := false
		for _, p := range pts {
			v := p.v[s]
			if !v.OK {
				pen = false
				continue
			}
			if pen {
				b = append(b, 'L')
			} else {
				b = append(b, 'M')
			}
			b = appendF1(b, a.x(p.t))
			b = append(b, ' ')
			b = appendF1(b, y(v.V))
			pen, drawn = true, true
		}
		if drawn {
			b = append(b, "\"/>\n"...)
		} else {
			b = b[:open]
		}
	}
	// Hover columns: from half way to the previous point to half way to
	// the next one. Their texts are figures, units, times and the series'
	// names: nothing to escape.
	for i, p := range pts {
		x := a.x(p.t)
		left, right := x, x
		if i > 0 {
			left = (a.x(pts[i-1].t) + x) / 2
		}
		if i < len(pts)-1 {
			right = (a.x(pts[i+1].t) + x) / 2
		}
		if right-left < 1 {
			left, right = x-2, x+2
		}
		b = append(b, `<rect class="hov" x="`...)
		b = appendF1(b, left)
		b = append(b, `" y="`...)
		b = appendF1(b, y0)
		b = append(b, `" width="`...)
		b = appendF1(b, right-left)
		b = append(b, `" height="`...)
		b = strconv.AppendInt(b, chartPlot, 10)
		b = append(b, `"><title>+`...)
		b = figure.AppendDuration(b, p.t.Sub(a.start))
		b = append(b, " ("...)
		b = p.t.AppendFormat(b, "15:04:05")
		b = append(b, " UTC)"...)
		for s, sd := range def.series {
			b = append(b, '\n')
			b = append(b, sd.name...)
			b = append(b, ": "...)
			if p.v[s].OK {
				b = appendValue(b, p.v[s].V, def.unit)
			} else {
				b = append(b, figure.Absent...)
			}
		}
		for s, sd := range def.extra {
			if v := p.x[s]; v.OK {
				b = append(b, '\n')
				b = append(b, sd.name...)
				b = append(b, ": "...)
				b = appendValue(b, v.V, def.unit)
			}
		}
		b = append(b, "</title></rect>\n"...)
	}
	// A list even when empty: the crosshair's script walks every chart's
	// series, and null would stop it before it drew anything.
	plot := plotData{Title: def.title, Top: y0, Bottom: y1, Series: make([]seriesPlot, 0, len(def.series)+len(def.extra))}
	for s, sd := range def.series {
		sp := seriesPlot{Name: sd.name, Color: sd.color, V: make([]string, len(pts)), Y: make([]float64, len(pts))}
		for i, p := range pts {
			sp.V[i], sp.Y[i] = figure.Absent, -1
			if v := p.v[s]; v.OK {
				sp.V[i], sp.Y[i] = formatValue(v.V, def.unit), math.Round(y(v.V)*10)/10
			}
		}
		plot.Series = append(plot.Series, sp)
	}
	for s, sd := range def.extra {
		sp := seriesPlot{Name: sd.name, V: make([]string, len(pts))}
		for i, p := range pts {
			sp.V[i] = figure.Absent
			if v := p.x[s]; v.OK {
				sp.V[i] = formatValue(v.V, def.unit)
			}
		}
		plot.Series = append(plot.Series, sp)
	}
	return b, plot
}

// WriteSVG writes the charts alone as a standalone SVG (usage.svg).
func WriteSVG(w io.Writer, run *runmodel.Run) error { return writeSVG(w, dataOf(run)) }

func writeSVG(w io.Writer, d *Data) error {
	c := drawCharts(d, newAxis(d.Job.Start, d.Job.End))
	_, err := w.Write(c.appendStandaloneSVG(make([]byte, 0, len(c.body)+1024), d))
	return err
}
