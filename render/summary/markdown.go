package summary

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/runmodel"
)

// WriteMarkdown writes the summary as a GitHub-flavoured Markdown section,
// to be appended to $GITHUB_STEP_SUMMARY: a heading with the job's name
// and result, the phase table (nesting shown by indentation, then the
// job's total in bold) and the job's statistics table. Names and messages
// are escaped, so that a "|" or a newline in a phase name cannot break the
// table, and Markdown or HTML in it prints as text. It writes once.
func WriteMarkdown(w io.Writer, r Summary) error {
	var b bytes.Buffer
	name := mdEscape(r.Name)
	if name != "" {
		name = "**" + name + "**"
	}
	b.WriteString("### jobtrace: " + title(&r, name) + "\n\n")

	if r.NumCPU > 0 {
		fmt.Fprintf(&b, "CPU %% of %d CPUs.\n\n", r.NumCPU)
	}
	if hasFigures(&r) {
		cols := phaseColumns(&r, true, func(row Row, total bool) string {
			if total {
				return "**total**"
			}
			return strings.Repeat("&emsp;", row.Depth) + mdEscape(row.Name)
		})
		for i := range cols {
			switch cols[i].head {
			case "status":
				for k, s := range cols[i].cells {
					if rest, ok := strings.CutPrefix(s, "FAILED"); ok {
						cols[i].cells[k] = "**FAILED**" + mdEscape(rest)
					}
				}
			case "verdict":
				for k, s := range cols[i].cells {
					cols[i].cells[k] = mdEscape(s)
				}
			}
		}
		writeMarkdownTable(&b, cols)
		b.WriteString("\n")
	}

	var notes []string
	if hasFigures(&r) && anyIOHost(&r) {
		notes = append(notes, "\\* "+runmodel.HostDiskNote+".")
	}
	if r.Unlisted > 0 {
		notes = append(notes, fmt.Sprintf("%d shorter phases not listed (limit %d); report.html and the spool have them.", r.Unlisted, MaxListed))
	}
	if r.Dropped > 0 {
		notes = append(notes, fmt.Sprintf("%d more spans not listed (limit %d).", r.Dropped, spool.MaxReadSpans))
	}
	for _, n := range r.Notes {
		notes = append(notes, oneLine(n)+".")
	}
	if len(notes) > 0 {
		b.WriteString(strings.Join(notes, " ") + "\n\n")
	}
	if r.Advice.Kind != sizing.Unknown {
		b.WriteString("**Advice:** " + mdEscape(r.Advice.Text) + "\n\n")
	}

	if r.Stats.Samples > 0 {
		writeMarkdownTable(&b, statColumns(&r.Stats, fmt.Sprintf("job statistics (%d samples)", r.Stats.Samples)))
		b.WriteString("\n")
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeMarkdownTable(b *bytes.Buffer, cols []column) {
	row := func(cell func(c *column) string) {
		b.WriteString("|")
		for i := range cols {
			b.WriteString(" " + cell(&cols[i]) + " |")
		}
		b.WriteString("\n")
	}
	row(func(c *column) string { return c.head })
	row(func(c *column) string {
		if c.left {
			return ":--"
		}
		return "--:"
	})
	for k := range cols[0].cells {
		row(func(c *column) string { return c.cell(k) })
	}
}

// mdEscape makes s print as itself inside a Markdown table cell or
// heading: it is put on one line (oneLine), and the ASCII punctuation that
// has a meaning inside a line of GitHub Markdown (emphasis, code, links,
// HTML and entities, strike-through, math, a heading's closing #, and the
// table's "|", which would end the cell) is escaped with a backslash,
// which CommonMark allows before any ASCII punctuation. Characters that mean something only at the start of
// a line (list markers, "1.") are left alone: a cell never starts one.
func mdEscape(s string) string {
	s = oneLine(s)
	if !strings.ContainsAny(s, mdSpecial) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for _, r := range s {
		if r < 0x80 && strings.ContainsRune(mdSpecial, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

const mdSpecial = "\\`*_[]<>#|~&$"
