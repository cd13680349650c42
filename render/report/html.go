package report

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"time"

	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/internal/figure"
	"github.com/jobtrace/jobtrace/internal/safefile"
	"github.com/jobtrace/jobtrace/runmodel"
	"github.com/jobtrace/jobtrace/spans/wire"
)

// page is what report.html shows (appendPage). Text from the job goes in
// as strings, escaped by appendHTMLText; the SVGs (built with esc), the
// style, the diff section (appendDiff) and the crosshair's data and script
// are markup, and go in as they are.
type page struct {
	Title    string
	Job      Job
	Result   string
	Failed   bool
	Duration string
	Start    string
	Phases   []tableRow
	More     int
	Gantt    string
	Charts   string
	Samples  int
	Style    string
	Verdict  verdict.Verdict
	Advice   sizing.Advice // shown unless its kind is sizing.Unknown
	// HostDisk is set when a row's disk IO is the host's, marked "*".
	HostDisk bool
	Diff     string // the diff section (diff.go)
	// Cross is the crosshair's data and Script its script (crosshair.go).
	Cross, Script string
}

type tableRow struct {
	Name                         string
	Indent                       int
	Start, Duration              string
	CPU, CPUAvg, CPUPeak, Memory string
	Read, Write                  string
	Result                       string
	Failed                       bool
	Verdict                      verdict.Verdict
}

// pageCSS is the page's own style sheet, after the charts' (svgStyle).
const pageCSS = `body{margin:0;background:#f8fafc;color:#0f172a;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1240px;margin:0 auto;padding:24px 20px 48px}
h1{font-size:22px;margin:0 0 4px;word-break:break-word}
h2{font-size:16px;margin:28px 0 10px}
.badge{display:inline-block;padding:2px 10px;border-radius:999px;font-size:13px;font-weight:600;vertical-align:middle;margin-left:8px;background:#dcfce7;color:#166534}
.badge.fail{background:#fee2e2;color:#991b1b}
dl.meta{display:grid;grid-template-columns:repeat(auto-fill,minmax(180px,1fr));gap:10px 24px;margin:16px 0 0;padding:14px 16px;background:#fff;border:1px solid #e2e8f0;border-radius:8px}
dl.meta div{min-width:0}dt{font-size:12px;color:#64748b;text-transform:uppercase;letter-spacing:.04em}dd{margin:0;font-weight:600;overflow-wrap:anywhere}
.card{background:#fff;border:1px solid #e2e8f0;border-radius:8px;padding:8px 0;overflow-x:auto}
.card svg{display:block;width:100%;height:auto;min-width:720px}
.note{color:#64748b;font-size:13px;margin:6px 0 0}
table{border-collapse:collapse;width:100%;background:#fff;font-variant-numeric:tabular-nums}
.tablewrap{overflow-x:auto;border:1px solid #e2e8f0;border-radius:8px}
th,td{padding:6px 10px;border-bottom:1px solid #f1f5f9;text-align:right;white-space:nowrap}
th{background:#f1f5f9;font-size:12px;color:#475569;font-weight:600;position:sticky;top:0}
th:first-child,td:first-child{text-align:left;white-space:normal;overflow-wrap:anywhere;min-width:180px}
.ev{fill:#f59e0b;stroke:#78350f;stroke-width:1}.ev:hover{fill:#fde68a}.evkey{color:#d97706}
.insight{margin:14px 0 0;padding:12px 16px;background:#fff;border:1px solid #e2e8f0;border-radius:8px}
.insight p{margin:0}.insight p+p{margin-top:6px}.insight .lbl{color:#64748b;font-size:12px;text-transform:uppercase;letter-spacing:.04em;margin-right:8px}
.vk{display:inline-block;padding:0 8px;border-radius:4px;font-size:12px;font-weight:600;background:#e2e8f0;color:#334155;white-space:nowrap}
.vk.cpu-bound{background:#dbeafe;color:#1e40af}.vk.single-thread{background:#e0e7ff;color:#3730a3}.vk.io-bound{background:#fef3c7;color:#92400e}
.vk.memory-pressured{background:#f3e8ff;color:#6b21a8}.vk.starved{background:#ffedd5;color:#9a3412}.vk.waiting{background:#f1f5f9;color:#475569}
.vk.too-short,.vk.unknown{background:#f8fafc;color:#94a3b8}
.ak{display:inline-block;padding:0 8px;border-radius:4px;font-size:12px;font-weight:600;white-space:nowrap;background:#dcfce7;color:#166534}
.ak.needs-memory,.ak.needs-cpus{background:#fee2e2;color:#991b1b}.ak.too-short{background:#f8fafc;color:#94a3b8}
td.why{text-align:left;white-space:normal;min-width:220px;font-size:12px;color:#475569}
.xh{stroke:#0f172a;stroke-width:1;stroke-dasharray:4 3;fill:none;pointer-events:none}.xh-dot{stroke:#fff;stroke-width:1.5;pointer-events:none}
.xh-on .charts .hov{pointer-events:none}
.xh-box{position:fixed;z-index:10;pointer-events:none;background:rgba(255,255,255,.97);border:1px solid #cbd5e1;border-radius:6px;box-shadow:0 4px 14px rgba(15,23,42,.18);padding:8px 10px;font-size:12px;line-height:1.45;box-sizing:border-box;min-width:200px;max-width:360px}
.xh-box [hidden],.xh-box[hidden]{display:none}.xh-t{font-weight:600;margin-bottom:2px}.xh-p{display:flex;gap:6px;align-items:baseline}
.xh-p .n{overflow:hidden;text-overflow:ellipsis;white-space:nowrap;flex:1}.xh-p.fail .n{color:#b91c1c;font-weight:600}.xh-p .vk.none{display:none}.xh-more{color:#64748b;font-style:italic}
.xh-c{margin-top:5px;font-weight:600;color:#334155}.xh-r{display:flex;gap:6px;align-items:center}.xh-r .sw{width:9px;height:9px;border-radius:2px;flex:none}.xh-r .sw.none{border:1px solid #94a3b8}
.xh-r .nm{color:#475569;flex:1}.xh-r .val{font-variant-numeric:tabular-nums;font-weight:600}
tr.fail td{background:#fef2f2}.failkey{color:#b91c1c;font-weight:600}td.res.fail{color:#b91c1c;font-weight:600}
`

// appendPage appends report.html for p. Every string from the job goes
// through appendHTMLText, which escapes it as html/template escapes text
// and quoted attribute values; the SVGs, the style sheet and the
// crosshair's data and script go in as they are. The page is written by
// hand rather than by html/template, whose parsing and escaping analysis,
// done again in every process, cost a run more than the writing.
func appendPage(b []byte, p *page) []byte {
	t := func(s string) { b = appendHTMLText(b, s) }
	or := func(s string) {
		if s == "" {
			s = "–"
		}
		t(s)
	}
	// kind writes a verdict's or an advice's kind as a badge of class
	// class, and its text after it.
	kind := func(class, kind, text string) {
		b = append(b, "<span class=\""...)
		b = append(b, class...)
		b = append(b, ' ')
		t(kind)
		b = append(b, "\">"...)
		t(kind)
		b = append(b, "</span> "...)
		t(text)
	}
	b = append(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"...)
	t(p.Title)
	b = append(b, "</title>\n<style>\n"...)
	b = append(b, p.Style...)
	b = append(b, '\n')
	b = append(b, pageCSS...)
	b = append(b, "</style>\n</head>\n<body>\n<main>\n<h1>"...)
	t(p.Job.Name)
	b = append(b, "<span class=\"badge"...)
	if p.Failed {
		b = append(b, " fail"...)
	}
	b = append(b, "\">"...)
	t(p.Result)
	b = append(b, "</span></h1>\n<dl class=\"meta\">\n<div><dt>Result</dt><dd>"...)
	t(p.Result)
	b = append(b, "</dd></div>\n<div><dt>Exit code</dt><dd>"...)
	or(p.Job.ExitCode)
	b = append(b, "</dd></div>\n<div><dt>Duration</dt><dd>"...)
	t(p.Duration)
	b = append(b, "</dd></div>\n<div><dt>Started</dt><dd>"...)
	t(p.Start)
	b = append(b, "</dd></div>\n<div><dt>Host</dt><dd>"...)
	or(p.Job.Host)
	b = append(b, "</dd></div>\n<div><dt>Service</dt><dd>"...)
	or(p.Job.Service)
	b = append(b, "</dd></div>\n</dl>\n"...)
	if p.Verdict.Kind != "" || p.Advice.Kind != "" {
		b = append(b, "<div class=\"insight\">\n"...)
		if v := p.Verdict; v.Kind != "" {
			b = append(b, "<p class=\"verdict\"><span class=\"lbl\">Verdict</span>"...)
			kind("vk", string(v.Kind), v.Reason)
			b = append(b, "</p>\n"...)
		}
		if a := p.Advice; a.Kind != "" {
			b = append(b, "<p class=\"advice\"><span class=\"lbl\">Machine</span>"...)
			kind("ak", string(a.Kind), a.Text)
			b = append(b, "</p>\n"...)
		}
		b = append(b, "</div>"...)
	}
	b = append(b, "\n<h2>Timeline</h2>\n<div class=\"card\">\n"...)
	b = append(b, p.Gantt...)
	b = append(b, '\n')
	b = append(b, p.Charts...)
	b = append(b, "\n</div>\n<p class=\"note\">Times are from the start of the job; <span class=\"failkey\">red</span> bars are failed phases, <span class=\"evkey\">◆</span> marks an event. Hover a bar, an event or a chart for its values. "...)
	b = strconv.AppendInt(b, int64(p.Samples), 10)
	b = append(b, " samples"...)
	if p.Samples > 1000 {
		b = append(b, ", drawn as at most 1000 points a series (each the highest of the samples it stands for)"...)
	}
	b = append(b, ".</p>\n<h2>Phases</h2>\n<div class=\"tablewrap\">\n<table>\n<thead><tr><th>Phase</th><th>Start</th><th>Duration</th><th>CPU</th><th>Avg CPU</th><th>Peak CPU</th><th>Peak memory</th><th>Disk read</th><th>Disk written</th><th>Result</th><th>Verdict</th></tr></thead>\n<tbody>\n"...)
	for i := range p.Phases {
		r := &p.Phases[i]
		b = append(b, "<tr"...)
		if r.Failed {
			b = append(b, " class=\"fail\""...)
		}
		b = append(b, "><td style=\"padding-left:"...)
		b = strconv.AppendInt(b, int64(r.Indent), 10)
		b = append(b, "px\">"...)
		for j, s := range [...]string{r.Name, r.Start, r.Duration, r.CPU, r.CPUAvg, r.CPUPeak, r.Memory, r.Read, r.Write} {
			if j > 0 {
				b = append(b, "</td><td>"...)
			}
			t(s)
		}
		b = append(b, "</td><td class=\"res"...)
		if r.Failed {
			b = append(b, " fail"...)
		}
		b = append(b, "\">"...)
		t(r.Result)
		b = append(b, "</td><td class=\"why\">"...)
		if v := r.Verdict; v.Kind != "" {
			kind("vk", string(v.Kind), v.Reason)
		} else {
			b = append(b, "–"...)
		}
		b = append(b, "</td></tr>\n"...)
	}
	b = append(b, "</tbody>\n</table>\n</div>\n"...)
	if p.HostDisk {
		b = append(b, "<p class=\"note\">* "...)
		t(runmodel.HostDiskNote)
		b = append(b, ".</p>\n"...)
	}
	if p.More != 0 {
		b = append(b, "<p class=\"note\">… and "...)
		b = strconv.AppendInt(b, int64(p.More), 10)
		b = append(b, " more phases, not shown.</p>"...)
	}
	b = append(b, '\n')
	b = append(b, p.Diff...)
	b = append(b, "</main>\n<script type=\"application/json\" id=\"xh-data\">"...)
	b = append(b, p.Cross...)
	b = append(b, "</script>\n<script>"...)
	b = append(b, p.Script...)
	b = append(b, "</script>\n</body>\n</html>\n"...)
	return b
}

// appendHTMLText appends s escaped as html/template escapes a string in
// text, in RCDATA (the title) and in a quoted attribute value: NUL as
// U+FFFD, and " & ' + < > as character references; any other byte,
// invalid UTF-8 included, as it is.
func appendHTMLText(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); i++ {
		var repl string
		switch s[i] {
		case 0:
			repl = "\uFFFD"
		case '"':
			repl = "&#34;"
		case '&':
			repl = "&amp;"
		case '\'':
			repl = "&#39;"
		case '+':
			repl = "&#43;"
		case '<':
			repl = "&lt;"
		case '>':
			repl = "&gt;"
		default:
			continue
		}
		b = append(b, s[start:i]...)
		b = append(b, repl...)
		start = i + 1
	}
	return append(b, s[start:]...)
}

// WriteHTML writes the report of run as one self-contained HTML page.
func WriteHTML(w io.Writer, run *runmodel.Run, opts ...Option) error {
	return writeHTML(w, dataWith(run, opts))
}

func writeHTML(w io.Writer, d *Data) error {
	return writePage(w, d, drawCharts(d, newAxis(d.Job.Start, d.Job.End)))
}

// writePage writes the page of d with its charts c, drawn once for the page
// and usage.svg.
func writePage(w io.Writer, d *Data, c charts) error {
	p, err := pageOf(d, c)
	if err != nil {
		return err
	}
	_, err = w.Write(appendPage(make([]byte, 0, pageSize(&p)), &p))
	return err
}

// pageSize is about the size of the page of p: its SVGs, style, script
// and data, and a few hundred bytes a row of its table.
func pageSize(p *page) int {
	return 8<<10 + len(pageCSS) + len(p.Style) + len(p.Gantt) + len(p.Charts) + len(p.Diff) + len(p.Cross) + len(p.Script) + 512*len(p.Phases)
}

// pageOf is what the page of d with its charts c shows.
func pageOf(d *Data, c charts) (page, error) {
	a := newAxis(d.Job.Start, d.Job.End)
	result := d.Job.Result
	if result == "" {
		result = "unknown"
	}
	name := d.Job.Name
	if name == "" {
		name = "job"
	}
	job := d.Job
	job.Name = name
	p := page{
		Title:    "jobtrace: " + name,
		Job:      job,
		Result:   result,
		Failed:   wire.Failed(result),
		Duration: figure.Duration(d.Job.Duration),
		Start:    "–",
		Gantt:    ganttSVG(&Data{Job: job, Phases: d.Phases, Skipped: d.Skipped}, a),
		Charts:   c.pageSVG(),
		Samples:  len(d.Rows),
		Style:    svgStyle,
		Diff:     string(appendDiff(nil, d)),
		Verdict:  d.Job.Verdict,
	}
	if !d.Job.Start.IsZero() {
		p.Start = d.Job.Start.UTC().Format("2006-01-02 15:04:05 UTC")
	}
	if d.Advice.Kind != sizing.Unknown {
		p.Advice = d.Advice
	}
	p.Phases = append(p.Phases, rowOf(jobPhase(job), 0, job.Start))
	p.HostDisk = job.Usage.DiskHost
	phases := d.Phases
	p.More = d.Skipped
	if len(phases) > MaxPhases {
		p.More += len(phases) - MaxPhases
		phases = phases[:MaxPhases]
	}
	for _, ph := range phases {
		p.Phases = append(p.Phases, rowOf(ph, ph.Depth+1, job.Start))
		p.HostDisk = p.HostDisk || ph.Usage.DiskHost
	}
	cross, err := crossJSON(d, job, len(phases), c, a)
	if err != nil {
		return page{}, fmt.Errorf("report: %w", err)
	}
	p.Cross, p.Script = cross, crossScript
	return p, nil
}

func rowOf(ph Phase, depth int, jobStart time.Time) tableRow {
	pct := func(o Opt) string {
		if !o.OK {
			return figure.Absent
		}
		return figure.Percent(o.V * 100)
	}
	u := ph.Usage
	r := tableRow{
		Name:     ph.Name,
		Indent:   10 + 16*min(depth, maxIndent),
		Start:    "+" + figure.Duration(ph.Start.Sub(jobStart)),
		Duration: figure.Duration(ph.Duration),
		CPU:      figure.Absent,
		CPUAvg:   pct(u.CPUAvg),
		CPUPeak:  pct(u.CPUPeak),
		Memory:   optBytes(u.MemoryPeak),
		Read:     optBytes(u.DiskRead),
		Write:    optBytes(u.DiskWrite),
		Result:   ph.Result,
		Failed:   ph.Failed,
		Verdict:  ph.Verdict,
	}
	if c := cpuSeconds(u); c.OK {
		r.CPU = figure.Seconds(c.V)
	}
	if u.DiskHost {
		r.Read, r.Write = r.Read+"*", r.Write+"*"
	}
	if r.Result == "" {
		r.Result = "–"
	}
	return r
}

// Write renders the report of run into dir/report.html and dir/usage.svg.
func Write(dir string, run *runmodel.Run, opts ...Option) error {
	return write(dir, dataWith(run, opts))
}

// write renders the report of d into dir: the page and the image are
// written from the buffers they are drawn in.
func write(dir string, d *Data) error {
	c := drawCharts(d, newAxis(d.Job.Start, d.Job.End))
	p, err := pageOf(d, c)
	if err != nil {
		return err
	}
	return errors.Join(
		writeFile(filepath.Join(dir, HTMLName), appendPage(make([]byte, 0, pageSize(&p)), &p)),
		writeFile(filepath.Join(dir, SVGName), c.appendStandaloneSVG(make([]byte, 0, len(c.body)+1024), d)),
	)
}

// writeFile replaces path through a temporary file, so that a reader never
// sees half a report, without following a symbolic link at path; no
// temporary file is left when it fails.
func writeFile(path string, data []byte) error {
	if err := safefile.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}
