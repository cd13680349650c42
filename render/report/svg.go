package report

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jobtrace/jobtrace/runmodel"
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

// timeAxis draws the vertical grid lines between y0 and y1 and the time
// labels at ly.
func timeAxis(b *strings.Builder, a axis, y0, y1, ly float64) {
	step, offs := a.ticks()
	for _, o := range offs {
		x := a.x(a.start.Add(o))
		b.WriteString(`<line class="grid" x1="` + f1(x) + `" y1="` + f1(y0) + `" x2="` + f1(x) + `" y2="` + f1(y1) + `"/>`)
		anchor := "middle"
		if o == 0 {
			anchor = "start"
		}
		b.WriteString(`<text class="ax" x="` + f1(x) + `" y="` + f1(ly) + `" text-anchor="` + anchor + `">` + esc(elapsed(o, step)) + `</text>`)
	}
	b.WriteByte('\n')
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
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="gantt" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="phases">`+"\n", svgWidth, h, svgWidth, h)
	timeAxis(&b, a, ganttAxis-6, float64(h), ganttAxis-10)
	row := func(i int, name, class string, depth int, start, end time.Time, tip string) {
		y := float64(ganttAxis + i*ganttRow)
		indent := min(depth, maxIndent) * 12
		chars := (plotLeft - 12 - indent) / 7
		x0, x1 := a.x(start), a.x(end)
		w := max(x1-x0, 1.5)
		fmt.Fprintf(&b, `<g><title>%s</title>`, esc(tip))
		fmt.Fprintf(&b, `<text class="pl %s" x="%d" y="%.1f">%s</text>`, class, 6+indent, y+14, esc(clip(name, chars)))
		fmt.Fprintf(&b, `<rect class="bar %s" x="%.1f" y="%.1f" width="%.1f" height="%d" rx="2"/></g>`+"\n", class, x0, y+3, w, ganttRow-6)
	}
	job := d.Job
	row(0, job.Name, "job", 0, job.Start, job.End, spanTip(jobPhase(job), job.Start))
	for i, p := range phases {
		class := fmt.Sprintf("d%d", p.Depth%3)
		if p.Failed {
			class = "fail"
		}
		row(i+1, p.Name, class, p.Depth+1, p.Start, p.End, spanTip(p, job.Start))
	}
	// The markers come after every bar, so that no bar hides one.
	for _, e := range evs.shown {
		x := a.x(e.Time)
		y := float64(ganttAxis+e.row*ganttRow) + ganttRow/2
		fmt.Fprintf(&b, `<path class="ev" d="M%.1f %.1fl4.5 6.5-4.5 6.5-4.5-6.5z"><title>%s</title></path>`+"\n", x, y-6.5, esc(eventTip(e, job.Start)))
	}
	last := rows - 1
	if evs.more > 0 {
		fmt.Fprintf(&b, `<text class="more" x="6" y="%d">… and %d more events, not shown</text>`+"\n", ganttAxis+last*ganttRow+14, evs.more)
		last--
	}
	if more > 0 {
		fmt.Fprintf(&b, `<text class="more" x="6" y="%d">… and %d more phases, not shown</text>`+"\n", ganttAxis+last*ganttRow+14, more)
	}
	b.WriteString("</svg>")
	return b.String()
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

// eventTip is the hover text of an event marker: its name, time, span and
// attributes, each clipped to maxTipRunes.
func eventTip(e placedEvent, jobStart time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n+%s (%s UTC) in %s", clip(e.Name, maxTipRunes), formatDuration(e.Time.Sub(jobStart)), e.Time.UTC().Format("15:04:05.000"), clip(e.span, maxTipRunes))
	for i, kv := range e.Attributes {
		if i == MaxEventAttributes {
			fmt.Fprintf(&b, "\n… and %d more attributes", len(e.Attributes)-i)
			break
		}
		fmt.Fprintf(&b, "\n%s = %s", clip(string(kv.Key), maxTipRunes), clip(runmodel.Text(kv.Value), maxTipRunes))
	}
	return b.String()
}

// jobPhase is the job as a row of the timeline and the table.
func jobPhase(j Job) Phase {
	return Phase{Name: j.Name, Start: j.Start, End: j.End, Result: j.Result, Failed: j.Result != "success", Usage: j.Usage, Verdict: j.Verdict}
}

// spanTip is the hover text of a timeline bar.
func spanTip(p Phase, jobStart time.Time) string {
	var b strings.Builder
	u := p.Usage
	fmt.Fprintf(&b, "%s\nstart +%s, duration %s", p.Name, formatDuration(p.Start.Sub(jobStart)), formatDuration(p.End.Sub(p.Start)))
	if p.Result != "" {
		fmt.Fprintf(&b, "\nresult %s", p.Result)
	}
	if p.Verdict.Kind != "" {
		fmt.Fprintf(&b, "\nverdict %s: %s", p.Verdict.Kind, p.Verdict.Reason)
	}
	if c := cpuSeconds(u); c.OK {
		fmt.Fprintf(&b, "\nCPU %.2f s", c.V)
	}
	if u.CPUAvg.OK {
		fmt.Fprintf(&b, ", avg %s", formatValue(u.CPUAvg.V*100, unitPct))
	}
	if u.CPUPeak.OK {
		fmt.Fprintf(&b, ", peak %s", formatValue(u.CPUPeak.V*100, unitPct))
	}
	if u.MemoryPeak.OK {
		fmt.Fprintf(&b, "\npeak memory %s", formatBytes(u.MemoryPeak.V))
	}
	if u.DiskRead.OK || u.DiskWrite.OK {
		fmt.Fprintf(&b, "\ndisk read %s, written %s", optBytes(u.DiskRead), optBytes(u.DiskWrite))
	}
	return b.String()
}

func cpuSeconds(u Usage) Opt {
	if !u.CPUUser.OK && !u.CPUSystem.OK {
		return Opt{}
	}
	return Opt{u.CPUUser.V + u.CPUSystem.V, true}
}

func optBytes(o Opt) string {
	if !o.OK {
		return "–"
	}
	return formatBytes(o.V)
}

// chartsHead is the height of the line that names the job above the charts
// in the standalone image, which is seen without the page.
const chartsHead = 30

// charts holds every chart drawn once, stacked below chartsHead, for both
// the page and the standalone image: the page's SVG shows the same body
// through a view box that starts below the head.
type charts struct {
	h    int // height of the charts, without the head
	body string
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
	var b strings.Builder
	if len(d.Rows) == 0 {
		fmt.Fprintf(&b, `<text class="more" x="%d" y="%d">no resource usage samples (%s)</text>`, plotLeft, chartsHead+chartTop+20, "resource-usage.csv missing or empty")
	}
	ends := bucket(len(d.Rows))
	c := charts{h: h}
	for i, def := range defs {
		if len(d.Rows) == 0 {
			break
		}
		c.plots = append(c.plots, chart(&b, d.Rows, ends, def, a, float64(chartsHead+i*chartTotal)))
	}
	if len(d.Rows) > 0 {
		for _, end := range ends {
			c.times = append(c.times, d.Rows[end-1].Time)
		}
	}
	c.body = b.String()
	return c
}

// pageSVG is the charts as the page shows them, without the head.
func (c charts) pageSVG() string {
	return fmt.Sprintf(`<svg xmlns="http://www.w3.org/2000/svg" class="charts" viewBox="0 %d %d %d" width="%d" height="%d" role="img" aria-label="resource usage">`+"\n", chartsHead, svgWidth, c.h, svgWidth, c.h) +
		c.body + "</svg>"
}

// standaloneSVG is the charts as an image of their own (usage.svg): the
// job named above them, with the style the page would have given.
func (c charts) standaloneSVG(d *Data) string {
	h := c.h + chartsHead
	var b strings.Builder
	b.Grow(len(c.body) + 512)
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" class="charts" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="resource usage">`+"\n", svgWidth, h, svgWidth, h)
	fmt.Fprintf(&b, "<style>%s</style>\n<rect width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n", svgStyle)
	name := d.Job.Name
	if name == "" {
		name = "job"
	}
	line := name
	if d.Job.Result != "" {
		line += " · " + d.Job.Result
	}
	if !d.Job.Start.IsZero() {
		line += " · started " + d.Job.Start.UTC().Format("2006-01-02 15:04:05 UTC") + " · " + formatDuration(d.Job.End.Sub(d.Job.Start))
	}
	fmt.Fprintf(&b, `<text class="t" x="6" y="20">%s</text>`+"\n", esc(line))
	b.WriteString(c.body)
	b.WriteString("</svg>")
	return b.String()
}

// chart draws one chart at y offset top: title and legend, y grid, lines
// broken where values are absent, and one hover column per point with the
// values of every series; it returns what it drew for the crosshair.
func chart(b *strings.Builder, rows []runmodel.Row, ends []int, def chartDef, a axis, top float64) plotData {
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
	hi := def.minMax
	begin := 0
	for i, end := range ends {
		pts[i].t = rows[end-1].Time
		pts[i].v = make([]Opt, len(def.series))
		for s := range def.series {
			p := peak(all[s][begin:end])
			pts[i].v[s] = p
			if p.OK && p.V > hi {
				hi = p.V
			}
		}
		pts[i].x = make([]Opt, len(def.extra))
		for s := range def.extra {
			pts[i].x[s] = peak(extra[s][begin:end])
		}
		begin = end
	}
	hi = niceMax(hi, def.unit)
	y0 := top + chartTop
	y1 := y0 + chartPlot
	y := func(v float64) float64 { return y1 - v/hi*chartPlot }

	fmt.Fprintf(b, `<text class="t" x="6" y="%.1f">%s</text>`, top+18, esc(def.title))
	if def.sub != "" {
		fmt.Fprintf(b, `<text class="ax" x="6" y="%.1f">%s</text>`, top+34, esc(def.sub))
	}
	lx := float64(plotLeft)
	for _, sd := range def.series {
		fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="10" height="10" rx="2" fill="%s"/><text class="lg" x="%.1f" y="%.1f">%s</text>`, lx, top+9, sd.color, lx+14, top+18, esc(sd.name))
		lx += 24 + 7*float64(len(sd.name))
	}
	if len(def.series) == 0 {
		fmt.Fprintf(b, `<text class="more" x="%.1f" y="%.1f">not measured on this system</text>`, lx, top+18)
	}
	for _, f := range []float64{0, 0.5, 1} {
		yy := y(f * hi)
		class := "grid"
		if f == 0 {
			class = "base"
		}
		fmt.Fprintf(b, `<line class="%s" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/>`, class, plotLeft, yy, svgWidth-plotRight, yy)
		fmt.Fprintf(b, `<text class="ax" x="%d" y="%.1f" text-anchor="end">%s</text>`, plotLeft-8, yy+4, esc(formatValue(f*hi, def.unit)))
	}
	timeAxis(b, a, y0, y1, y1+16)
	for s, sd := range def.series {
		var path strings.Builder
		pen := false
		for _, p := range pts {
			v := p.v[s]
			if !v.OK {
				pen = false
				continue
			}
			cmd := 'L'
			if !pen {
				cmd = 'M'
			}
			path.WriteByte(byte(cmd))
			path.WriteString(f1(a.x(p.t)) + " " + f1(y(v.V)))
			pen = true
		}
		if path.Len() > 0 {
			fmt.Fprintf(b, `<path class="line" stroke="%s" d="%s"/>`+"\n", sd.color, path.String())
		}
	}
	// Hover columns: from half way to the previous point to half way to
	// the next one.
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
		var tip strings.Builder
		tip.WriteString("+" + formatDuration(p.t.Sub(a.start)) + " (" + p.t.Format("15:04:05") + " UTC)")
		for s, sd := range def.series {
			v := "–"
			if p.v[s].OK {
				v = formatValue(p.v[s].V, def.unit)
			}
			tip.WriteString("\n" + sd.name + ": " + v)
		}
		for s, sd := range def.extra {
			if v := p.x[s]; v.OK {
				tip.WriteString("\n" + sd.name + ": " + formatValue(v.V, def.unit))
			}
		}
		b.WriteString(`<rect class="hov" x="` + f1(left) + `" y="` + f1(y0) + `" width="` + f1(right-left) + `" height="` + strconv.Itoa(chartPlot) + `"><title>` + esc(tip.String()) + "</title></rect>\n")
	}
	plot := plotData{Title: def.title, Top: y0, Bottom: y1}
	for s, sd := range def.series {
		sp := seriesPlot{Name: sd.name, Color: sd.color, V: make([]string, len(pts)), Y: make([]float64, len(pts))}
		for i, p := range pts {
			sp.V[i], sp.Y[i] = "–", -1
			if v := p.v[s]; v.OK {
				sp.V[i], sp.Y[i] = formatValue(v.V, def.unit), math.Round(y(v.V)*10)/10
			}
		}
		plot.Series = append(plot.Series, sp)
	}
	for s, sd := range def.extra {
		sp := seriesPlot{Name: sd.name, V: make([]string, len(pts))}
		for i, p := range pts {
			sp.V[i] = "–"
			if v := p.x[s]; v.OK {
				sp.V[i] = formatValue(v.V, def.unit)
			}
		}
		plot.Series = append(plot.Series, sp)
	}
	return plot
}

// WriteSVG writes the charts alone as a standalone SVG (usage.svg).
func WriteSVG(w io.Writer, run *runmodel.Run) error { return writeSVG(w, dataOf(run)) }

func writeSVG(w io.Writer, d *Data) error {
	return writeChartsSVG(w, d, drawCharts(d, newAxis(d.Job.Start, d.Job.End)))
}

func writeChartsSVG(w io.Writer, d *Data, c charts) error {
	_, err := io.WriteString(w, c.standaloneSVG(d)+"\n")
	return err
}
