package report

import (
	"bytes"
	"html/template"
	"sync"

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

// diffView is what the diff section's template fills in.
type diffView struct {
	Against string
	Job     string
	Heads   []string
	Rows    []diffRow
	More    int
}

type diffRow struct {
	Name    string
	Figures []string // the cells between the name and the cause
	Why     string
	Indent  int
	Job     bool
	Status  string
	Outside bool
}

// diffTemplate is the diff section of report.html, its own template so
// that the page's template only places it; parsed when first used.
var diffTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("diff").Parse(`<style>
tr.slower td:nth-child(3){color:#b91c1c;font-weight:600}tr.faster td:nth-child(3){color:#15803d;font-weight:600}
tr.new td:nth-child(3),tr.gone td:nth-child(3){color:#7c3aed;font-weight:600}tr.outside td:nth-child(4){color:#b91c1c}
table.diff tr.jobrow td{font-weight:600}table.diff td.why{text-align:left;white-space:normal;min-width:220px;font-size:12px;color:#475569}
</style>
<h2 id="diff">Compared with {{.Against}}</h2>
{{if .Job}}<p class="note"><b>Job:</b> {{.Job}}</p>{{end}}
<div class="tablewrap">
<table class="diff">
<thead><tr>{{range .Heads}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr class="{{.Status}}{{if .Outside}} outside{{end}}{{if .Job}} jobrow{{end}}"><td style="padding-left:{{.Indent}}px">{{.Name}}</td>{{range .Figures}}<td>{{.}}</td>{{end}}<td class="why">{{.Why}}</td></tr>
{{end}}</tbody>
</table>
</div>
<p class="note">A change under the noise rule is "same"; the cause is the first rule of jobtrace's table that holds (docs/diff.md).{{if .More}} … and {{.More}} more phases, the least changed, not shown.{{end}}</p>
`))
})

// diffHTML renders the diff section of d; "" when d has no diff.
func diffHTML(d *Data) (template.HTML, error) {
	if d.Diff == nil {
		return "", nil
	}
	t := d.Diff.Table()
	v := diffView{
		Against: d.Diff.Against(d.DiffLabels, func(s string) string { return s }),
		Job:     d.Diff.JobLine(),
		Heads:   t.Heads,
		More:    t.Unlisted,
	}
	for _, r := range t.Rows {
		indent := 10
		if !r.Job {
			indent += 16 * min(r.Depth+1, maxIndent)
		}
		c := r.Cells
		v.Rows = append(v.Rows, diffRow{Name: c[0], Figures: c[1 : len(c)-1], Why: c[len(c)-1], Indent: indent, Job: r.Job, Status: string(r.Status), Outside: r.Outside})
	}
	var b bytes.Buffer
	if err := diffTemplate().Execute(&b, v); err != nil {
		return "", err
	}
	// html/template escaped every name and label.
	return template.HTML(b.String()), nil
}

// dataWith is the report's view of run with the options applied.
func dataWith(run *runmodel.Run, opts []Option) *Data {
	d := dataOf(run)
	for _, o := range opts {
		o(d)
	}
	return d
}
