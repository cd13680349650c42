package rundiff

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/jobtrace/jobtrace/render/summary"
)

// WriteMarkdown writes the diff as a GitHub-flavoured Markdown section, for
// a pull-request comment: a heading with the job's change, what is
// compared with what, and the table of the job and its phases (nesting
// shown by indentation). Every name, label and reason is escaped, so that
// a "|", a newline or Markdown and HTML in it print as text and cannot
// break the table.
func WriteMarkdown(w io.Writer, d *Diff, l Labels) error {
	var b bytes.Buffer
	b.WriteString("### jobtrace diff")
	if d.HasJob {
		b.WriteString(": job **" + strings.TrimSpace(summary.MarkdownCell(d.Job.Name)) + "** " + summary.MarkdownCell(jobChange(&d.Job)))
	}
	b.WriteString("\n\n")
	if d.HasJob && d.Job.Reason != "" {
		b.WriteString(summary.MarkdownCell(d.Job.Reason) + ".\n\n")
	}
	fmt.Fprintf(&b, "%s against %s.\n\n", summary.MarkdownCell(l.Run), d.against(l, summary.MarkdownCell))
	rows, unlisted := listed(d.Phases, MaxListed)
	t := d.table(rows, func(r *Row, job bool) string {
		if job {
			return "**job**"
		}
		return strings.Repeat("&emsp;", 1+min(r.Depth, MaxDepth)) + summary.MarkdownCell(displayName(r))
	})
	for _, row := range t.rows {
		for i := 1; i < len(row); i++ {
			row[i] = summary.MarkdownCell(row[i])
		}
	}
	row := func(cells []string) {
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	row(t.heads)
	align := make([]string, len(t.left))
	for i, left := range t.left {
		align[i] = "--:"
		if left {
			align[i] = ":--"
		}
	}
	row(align)
	for _, r := range t.rows {
		row(r)
	}
	if unlisted > 0 {
		fmt.Fprintf(&b, "\n%d more phases not listed, the least changed (limit %d).\n", unlisted, MaxListed)
	}
	_, err := w.Write(b.Bytes())
	return err
}
