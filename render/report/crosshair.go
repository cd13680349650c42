package report

import (
	"math"
	"strconv"
	"time"

	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/internal/figure"
	"github.com/jobtrace/jobtrace/internal/jsonnumber"
	"github.com/jobtrace/jobtrace/internal/jsonstring"
	"github.com/jobtrace/jobtrace/runmodel"
)

// The crosshair: hovering the timeline or any chart of report.html draws a
// vertical line at that time across all of them, a dot on every line at
// the nearest point, and a box with that point's time, the phase it
// belongs to (Data.PointSpans, by runmodel.Placer) with the phases around
// it, and every series' value. It is a short inline script (crossScript) that reads
// the figures the page drew from a JSON data island (crossData); with
// scripts off the page is the same but for it, its values still in each
// chart's hover text.
//
// Its work and the page's size stay bounded: the data holds the points
// drawn (at most MaxPoints a series) and the phases shown (at most
// MaxPhases, each name clipped to maxTipRunes); the script adds a fixed
// number of elements, however long the job: one line per SVG, one dot per
// series, and a box with at most MaxActivePhases phase lines.

// MaxActivePhases bounds the phases the crosshair's box lists: the phase
// of the point under the pointer and the innermost of those around it, the
// outermost first; the others are counted in it.
const MaxActivePhases = 8

// crossData is the JSON the crosshair reads, its keys the fields' names:
// times are milliseconds from the start of the job, x and y are in the
// SVGs' user units.
type crossData struct {
	X0, W float64 // left and width of the plots
	Span  float64 // time the plot width stands for
	T0    int64   // start of the job, ms since 1970
	GTop  float64 // top of the timeline's line
	T     []float64
	// P is the row of Phases each point belongs to (Data.PointSpans),
	// -1 for none.
	P         []int
	Plots     []plotData
	Phases    []phaseMark
	MaxActive int
}

// plotData is one chart: its plot's top and bottom in the charts' SVG and
// its series.
type plotData struct {
	Title       string
	Top, Bottom float64
	Series      []seriesPlot
}

// seriesPlot is one series of a chart: the value shown at each point (as
// the hover text writes it, "–" when absent) and the y of its dot (-1 when
// absent; none for a series listed but not drawn).
type seriesPlot struct {
	Name  string    `json:"name"`
	Color string    `json:"color,omitempty"`
	V     []string  `json:"v"`
	Y     []float64 `json:"y,omitempty"`
}

// phaseMark is a row of the timeline: name, depth, the index in
// crossData.Phases of the row around it (-1 for the job's), failed,
// verdict kind.
type phaseMark struct {
	N string `json:"n"`
	D int    `json:"d"`
	U int    `json:"u"`
	F bool   `json:"f,omitempty"`
	V string `json:"v,omitempty"`
}

// crossJSON is the crosshair's data for the page of d, whose job is job,
// whose timeline shows the first shown of its phases and whose charts are
// c, as encoding/json writes it (appendCross): <, > and & as \u escapes
// (and U+2028, U+2029), so the data cannot close its script element or
// open a comment whatever the names hold.
func crossJSON(d *Data, job Job, shown int, c charts, a axis) (string, error) {
	ms := func(t time.Time) float64 { return math.Round(float64(t.Sub(a.start))/1e5) / 10 }
	x := crossData{
		X0: plotLeft, W: plotWidth, Span: float64(a.span) / 1e6, T0: a.start.UnixMilli(),
		GTop: ganttAxis - 6, T: make([]float64, len(c.times)), Plots: c.plots, MaxActive: MaxActivePhases,
	}
	for i, t := range c.times {
		x.T[i] = ms(t)
	}
	if len(c.times) > 0 {
		x.P = make([]int, len(c.times))
		for i := range x.P {
			x.P[i] = -1
			if len(d.PointSpans) == len(x.P) {
				x.P[i] = crossRow(d, shown, d.PointSpans[i])
			}
		}
	}
	mark := func(p Phase, depth, up int) phaseMark {
		return phaseMark{N: cleantext.CutRunes(p.Name, maxTipRunes), D: depth, U: up, F: p.Failed, V: string(p.Verdict.Kind)}
	}
	x.Phases = append(x.Phases, mark(jobPhase(job), 0, -1))
	for k, p := range d.Phases[:shown] {
		up := 0 // the job's row
		if p.Parent >= 0 && p.Parent < k {
			up = p.Parent + 1
		}
		x.Phases = append(x.Phases, mark(p, p.Depth+1, up))
	}
	b, err := appendCross(nil, &x)
	return string(b), err
}

// crossRow is the row of the crosshair's phases (the job's at 0, then the
// first shown of d.Phases) of span s (runmodel.Placer: an index in
// d.Phases, runmodel.JobSpan or runmodel.NoSpan): a phase not shown has
// the row of the phase around it that is; -1 for no span.
func crossRow(d *Data, shown, s int) int {
	for s >= shown {
		if s >= len(d.Phases) {
			return -1
		}
		if p := d.Phases[s].Parent; p < s {
			s = p
		} else {
			s = runmodel.JobSpan
		}
	}
	switch {
	case s == runmodel.NoSpan:
		return -1
	case s < 0:
		return 0
	}
	return s + 1
}

// appendCross appends x as json.Marshal writes it, by hand: without the
// reflection encoding/json's first use costs every process.
func appendCross(b []byte, x *crossData) ([]byte, error) {
	var err error
	num := func(f float64) {
		var e error
		if b, e = jsonnumber.AppendFloat(b, f); e != nil && err == nil {
			err = e
		}
	}
	str := func(s string) { b = jsonstring.AppendAsEncodingJSON(b, s) }
	// list writes n elements, each by elem, or null when null.
	list := func(n int, null bool, elem func(int)) {
		if null {
			b = append(b, "null"...)
			return
		}
		b = append(b, '[')
		for i := range n {
			if i > 0 {
				b = append(b, ',')
			}
			elem(i)
		}
		b = append(b, ']')
	}
	b = append(b, `{"X0":`...)
	num(x.X0)
	b = append(b, `,"W":`...)
	num(x.W)
	b = append(b, `,"Span":`...)
	num(x.Span)
	b = append(b, `,"T0":`...)
	b = strconv.AppendInt(b, x.T0, 10)
	b = append(b, `,"GTop":`...)
	num(x.GTop)
	b = append(b, `,"T":`...)
	list(len(x.T), x.T == nil, func(i int) { num(x.T[i]) })
	b = append(b, `,"P":`...)
	list(len(x.P), x.P == nil, func(i int) { b = strconv.AppendInt(b, int64(x.P[i]), 10) })
	b = append(b, `,"Plots":`...)
	list(len(x.Plots), x.Plots == nil, func(i int) {
		p := &x.Plots[i]
		b = append(b, `{"Title":`...)
		str(p.Title)
		b = append(b, `,"Top":`...)
		num(p.Top)
		b = append(b, `,"Bottom":`...)
		num(p.Bottom)
		b = append(b, `,"Series":`...)
		list(len(p.Series), p.Series == nil, func(i int) {
			s := &p.Series[i]
			b = append(b, `{"name":`...)
			str(s.Name)
			if s.Color != "" {
				b = append(b, `,"color":`...)
				str(s.Color)
			}
			b = append(b, `,"v":`...)
			list(len(s.V), s.V == nil, func(i int) { str(s.V[i]) })
			if len(s.Y) != 0 {
				b = append(b, `,"y":`...)
				list(len(s.Y), false, func(i int) { num(s.Y[i]) })
			}
			b = append(b, '}')
		})
		b = append(b, '}')
	})
	b = append(b, `,"Phases":`...)
	list(len(x.Phases), x.Phases == nil, func(i int) {
		m := &x.Phases[i]
		b = append(b, `{"n":`...)
		str(m.N)
		b = append(b, `,"d":`...)
		b = strconv.AppendInt(b, int64(m.D), 10)
		b = append(b, `,"u":`...)
		b = strconv.AppendInt(b, int64(m.U), 10)
		if m.F {
			b = append(b, `,"f":true`...)
		}
		if m.V != "" {
			b = append(b, `,"v":`...)
			str(m.V)
		}
		b = append(b, '}')
	})
	b = append(b, `,"MaxActive":`...)
	b = strconv.AppendInt(b, int64(x.MaxActive), 10)
	b = append(b, '}')
	if err != nil {
		return nil, err
	}
	return b, nil
}

// crossScript draws the crosshair from the data island #xh-data. It builds
// its elements once and only changes their attributes and text as the
// pointer moves; text goes in as textContent, never as markup. The time
// under the pointer is written by dur, the rule of durations of package
// figure in JavaScript (figure.DurationJS), as the hover texts write it.
const crossScript = `(function () {
"use strict";
var data = document.getElementById("xh-data");
var gantt = document.querySelector("svg.gantt"), charts = document.querySelector("svg.charts");
if (!data || !gantt) return;
var D;
try { D = JSON.parse(data.textContent); } catch (e) { return; }
document.documentElement.classList.add("xh-on");
function el(parent, tag, cls) {
  var e = parent.namespaceURI === gantt.namespaceURI ? document.createElementNS(gantt.namespaceURI, tag) : document.createElement(tag);
  if (cls) e.setAttribute("class", cls);
  parent.appendChild(e);
  return e;
}
var gline = el(gantt, "line", "xh");
gline.setAttribute("y1", D.GTop);
gline.setAttribute("y2", gantt.viewBox.baseVal.height);
var cpath = charts && el(charts, "path", "xh");
var dots = [];
D.Plots.forEach(function (p) {
  p.Series.forEach(function (s) {
    if (!s.y || !charts) return;
    var c = el(charts, "circle", "xh-dot");
    c.setAttribute("r", 3.5);
    c.setAttribute("fill", s.color);
    dots.push({ c: c, y: s.y });
  });
});
var box = el(document.body, "div", "xh-box");
box.hidden = true;
var head = el(box, "div", "xh-t");
var prows = [];
for (var i = 0; i < D.MaxActive; i++) {
  var r = el(box, "div", "xh-p");
  prows.push({ r: r, n: el(r, "span", "n"), v: el(r, "span", "vk") });
}
var pmore = el(box, "div", "xh-more");
var vrows = [];
D.Plots.forEach(function (p) {
  el(box, "div", "xh-c").textContent = p.Title;
  p.Series.forEach(function (s) {
    var r = el(box, "div", "xh-r");
    var sw = el(r, "span", "sw");
    if (s.color) sw.style.background = s.color; else sw.className = "sw none";
    el(r, "span", "nm").textContent = s.name;
    vrows.push({ v: el(r, "span", "val"), s: s });
  });
});
` + figure.DurationJS + `
function nearest(t) {
  var lo = 0, hi = D.T.length - 1;
  while (lo < hi) { var mid = (lo + hi) >> 1; if (D.T[mid] < t) lo = mid + 1; else hi = mid; }
  if (lo > 0 && t - D.T[lo - 1] <= D.T[lo] - t) lo--;
  return lo;
}
function xOf(t) { return D.X0 + Math.max(0, Math.min(1, t / D.Span)) * D.W; }
function hide() {
  box.hidden = true;
  gline.style.display = "none";
  if (cpath) cpath.style.display = "none";
  dots.forEach(function (d) { d.c.style.display = "none"; });
}
function show(x, cx, cy) {
  if (x < D.X0 || x > D.X0 + D.W) { hide(); return; }
  var t = (x - D.X0) / D.W * D.Span;
  gline.setAttribute("x1", x); gline.setAttribute("x2", x); gline.style.display = "";
  if (cpath) {
    cpath.setAttribute("d", D.Plots.map(function (p) { return "M" + x + " " + p.Top + "V" + p.Bottom; }).join(""));
    cpath.style.display = "";
  }
  var chain = [];
  if (D.T.length) {
    var i = nearest(t), px = xOf(D.T[i]);
    t = D.T[i];
    for (var k = D.P[i]; k >= 0; k = D.Phases[k].u) chain.unshift(k);
    vrows.forEach(function (r) { r.v.textContent = r.s.v[i]; });
    dots.forEach(function (d) {
      var y = d.y[i];
      d.c.style.display = y < 0 ? "none" : "";
      d.c.setAttribute("cx", px); d.c.setAttribute("cy", y);
    });
  }
  head.textContent = "+" + dur(t) + " · " + new Date(D.T0 + t).toISOString().slice(11, 19) + " UTC";
  var more = Math.max(0, chain.length - prows.length);
  prows.forEach(function (r, j) {
    var p = D.Phases[chain[more + j]];
    r.r.hidden = !p;
    if (!p) return;
    r.r.className = "xh-p" + (p.f ? " fail" : "");
    r.r.style.paddingLeft = Math.min(p.d, 10) * 10 + "px";
    r.n.textContent = p.n;
    r.v.textContent = p.v || "";
    r.v.className = "vk " + (p.v || "none");
  });
  pmore.hidden = more === 0;
  pmore.textContent = "… and " + more + " more phases around them";
  box.hidden = false;
  var w = box.offsetWidth, h = box.offsetHeight;
  var left = cx + 16 + w > window.innerWidth ? cx - 16 - w : cx + 16;
  box.style.left = Math.max(0, left) + "px";
  box.style.top = Math.max(0, Math.min(cy + 12, window.innerHeight - h)) + "px";
}
[gantt, charts].forEach(function (svg) {
  if (!svg) return;
  svg.addEventListener("pointermove", function (ev) {
    var m = svg.getScreenCTM();
    if (!m) return;
    var p = svg.createSVGPoint();
    p.x = ev.clientX; p.y = ev.clientY;
    show(p.matrixTransform(m.inverse()).x, ev.clientX, ev.clientY);
  });
  svg.addEventListener("pointerleave", hide);
});
hide();
})();`
