package report

import (
	"strconv"

	"github.com/jobtrace/jobtrace/rundiff"
	"github.com/jobtrace/jobtrace/runmodel"
)

// Option adds to a report.
type Option func(*Data)

// WithDiff adds a section that compares the run with base runs
// (`jobtrace report --baseline DIR...`): the comparison of package
// rundiff, laid out as `jobtrace diff` lays it out, below the phases.
func WithDiff(d *rundiff.Diff, l rundiff.Labels) Option {
	return func(data *Data) { data.Diff, data.DiffLabels = d, l }
}

// diffCSS is the diff section's own style.
const diffCSS = `<style>
tr.slower td:nth-child(3){color:#b91c1c;font-weight:600}tr.faster td:nth-child(3){color:#15803d;font-weight:600}
tr.new td:nth-child(3),tr.gone td:nth-child(3){color:#7c3aed;font-weight:600}tr.outside td:nth-child(4){color:#b91c1c}
table.diff tr.jobrow td{font-weight:600}table.diff td.why{text-align:left;white-space:normal;min-width:220px;font-size:12px;color:#475569}
</style>
`

// appendDiff appends the diff section of d, by hand as appendPage writes
// the page, every name and label escaped by appendHTMLText; nothing when
// d has no diff.
func appendDiff(b []byte, d *Data) []byte {
	if d.Diff == nil {
		return b
	}
	return appendDiffTable(b, d.Diff.Against(d.DiffLabels, func(s string) string { return s }), d.Diff.JobLine(), d.Diff.Table())
}

// appendDiffTable appends the diff section: the comparison with against,
// the job's line, and the table t.
func appendDiffTable(b []byte, against, job string, t rundiff.Table) []byte {
	b = append(b, diffCSS+"<h2 id=\"diff\">Compared with "...)
	b = appendHTMLText(b, against)
	b = append(b, "</h2>\n"...)
	if job != "" {
		b = append(b, "<p class=\"note\"><b>Job:</b> "...)
		b = appendHTMLText(b, job)
		b = append(b, "</p>"...)
	}
	b = append(b, "\n<div class=\"tablewrap\">\n<table class=\"diff\">\n<thead><tr>"...)
	for _, h := range t.Heads {
		b = append(b, "<th>"...)
		b = appendHTMLText(b, h)
		b = append(b, "</th>"...)
	}
	b = append(b, "</tr></thead>\n<tbody>\n"...)
	for _, r := range t.Rows {
		indent := 10
		if !r.Job {
			indent += 16 * min(r.Depth+1, maxIndent)
		}
		b = append(b, "<tr class=\""...)
		b = appendHTMLText(b, string(r.Status))
		if r.Outside {
			b = append(b, " outside"...)
		}
		if r.Job {
			b = append(b, " jobrow"...)
		}
		b = append(b, "\"><td style=\"padding-left:"...)
		b = strconv.AppendInt(b, int64(indent), 10)
		b = append(b, "px\">"...)
		c := r.Cells
		b = appendHTMLText(b, c[0])
		for _, f := range c[1 : len(c)-1] {
			b = append(b, "</td><td>"...)
			b = appendHTMLText(b, f)
		}
		b = append(b, "</td><td class=\"why\">"...)
		b = appendHTMLText(b, c[len(c)-1])
		b = append(b, "</td></tr>\n"...)
	}
	b = append(b, "</tbody>\n</table>\n</div>\n<p class=\"note\">A change under the noise rule is \"same\"; the cause is the first rule of jobtrace's table that holds (docs/diff.md)."...)
	if n := t.Unlisted; n != 0 {
		b = strconv.AppendInt(append(b, " … and "...), int64(n), 10)
		b = append(b, " more phases, the least changed, not shown."...)
	}
	return append(b, "</p>\n"...)
}

// dataWith is the report's view of run with the options applied.
func dataWith(run *runmodel.Run, opts []Option) *Data {
	d := dataOf(run)
	for _, o := range opts {
		o(d)
	}
	return d
}
