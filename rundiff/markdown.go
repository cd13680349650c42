package rundiff

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/jobtrace/jobtrace/render/summary"
)

// maxMarkdownName and maxMarkdownReason bound a name and a cause in the
// Markdown table, and maxMarkdownLabel a directory's name, cut with "…":
// with MaxListed rows the comment stays well under the 65,536 characters
// GitHub takes in one.
const (
	maxMarkdownName   = 100
	maxMarkdownReason = 200
	maxMarkdownLabel  = 200
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
		b.WriteString(": job **" + strings.TrimSpace(summary.MarkdownCell(summary.Truncate(d.Job.Name, maxMarkdownName))) + "** " + summary.MarkdownCell(jobChange(&d.Job)))
	}
	b.WriteString("\n\n")
	if d.HasJob && d.Job.Reason != "" {
		b.WriteString(summary.MarkdownCell(summary.Truncate(d.Job.Reason, maxMarkdownReason)) + ".\n\n")
	}
	label := func(s string) string { return summary.MarkdownCell(summary.Truncate(s, maxMarkdownLabel)) }
	fmt.Fprintf(&b, "%s against %s.\n\n", label(l.Run), d.Against(l, label))
	t := d.Table()
	for _, row := range t.Rows {
		c := row.Cells
		c[0] = summary.Truncate(c[0], maxMarkdownName)
		c[len(c)-1] = summary.Truncate(c[len(c)-1], maxMarkdownReason)
		for i := range c {
			c[i] = summary.MarkdownCell(c[i])
		}
		if row.Job {
			c[0] = "**job**"
		} else {
			c[0] = strings.Repeat("&emsp;", 1+row.Depth) + c[0]
		}
	}
	row := func(cells []string) {
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	row(t.Heads)
	align := make([]string, len(t.Left))
	for i, left := range t.Left {
		align[i] = "--:"
		if left {
			align[i] = ":--"
		}
	}
	row(align)
	for _, r := range t.Rows {
		row(r.Cells)
	}
	if t.HostIO {
		b.WriteString("\n" + summary.MarkdownCell(HostIONote) + ".\n")
	}
	if t.Unlisted > 0 {
		fmt.Fprintf(&b, "\n%d more phases not listed, the least changed (limit %d).\n", t.Unlisted, MaxListed)
	}
	_, err := w.Write(b.Bytes())
	return err
}
