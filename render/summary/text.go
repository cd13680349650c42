package summary

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/runmodel"
)

const (
	// textPrefix starts every line, as the agent's other lines.
	textPrefix = "jobtrace: "
	// textIndent sets the tables off from the lines around them.
	textIndent = "  "
	// maxTextName bounds the phase column, indentation included: longer
	// names are cut with "…" so that a typical table stays within about
	// 100 columns.
	maxTextName = 32
	// maxTextStatus bounds a failed phase's status message.
	maxTextStatus = 60
	// maxTextReason bounds the job's verdict's reason, which
	// verdict.Judge keeps to one short sentence; a span read back may
	// carry any text.
	maxTextReason = 160
)

// WriteText writes the summary for a terminal: a title line, the phase
// table (phases indented by nesting, in start order, then the job's total)
// and the job's statistics, every line prefixed "jobtrace: ". Columns are
// aligned; a column with no figure in any row is left out. It writes once.
func WriteText(w io.Writer, r Summary) error {
	var b bytes.Buffer
	t := title(&r, strconv.Quote(r.Name))
	if r.NumCPU > 0 {
		t += fmt.Sprintf("; CPU %% of %d CPUs", r.NumCPU)
	}
	b.WriteString(textPrefix + t + "\n")

	if hasFigures(&r) {
		cols := phaseColumns(&r, false, func(row Row, total bool) string {
			if total {
				return "total"
			}
			name := strings.Repeat("  ", row.Depth) + oneLine(row.Name)
			return cleantext.CutRunes(name, maxTextName)
		})
		for i := range cols {
			if cols[i].head == "status" {
				for k, s := range cols[i].cells {
					cols[i].cells[k] = cleantext.CutRunes(s, maxTextStatus)
				}
			}
		}
		writeTextTable(&b, cols)
		if v := r.Total.Verdict; v.Kind != "" {
			fmt.Fprintf(&b, "%s%sverdict: %s, %s\n", textPrefix, textIndent, v.Kind, cleantext.CutRunes(oneLine(v.Reason), maxTextReason))
		}
		if anyIOHost(&r) {
			b.WriteString(textPrefix + textIndent + "* " + runmodel.HostDiskNote + "\n")
		}
	}
	if r.Unlisted > 0 {
		fmt.Fprintf(&b, "%s%s(%d shorter phases not listed: limit %d; report.html and the spool have them)\n", textPrefix, textIndent, r.Unlisted, MaxListed)
	}
	if r.Dropped > 0 {
		fmt.Fprintf(&b, "%s%s(%d more spans not listed: limit %d)\n", textPrefix, textIndent, r.Dropped, spool.MaxReadSpans)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "%s%s(%s)\n", textPrefix, textIndent, oneLine(n))
	}
	if r.Advice.Kind != sizing.Unknown {
		b.WriteString(textPrefix + textIndent + "advice: " + oneLine(r.Advice.Text) + "\n")
	}
	if r.Stats.Samples > 0 {
		writeTextTable(&b, statColumns(&r.Stats, fmt.Sprintf("job statistics (%d samples)", r.Stats.Samples)))
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeTextTable(b *bytes.Buffer, cols []column) {
	if len(cols) == 0 {
		return
	}
	widths := make([]int, len(cols))
	for i := range cols {
		widths[i] = width(cols[i].head)
		for k := range cols[i].cells {
			widths[i] = max(widths[i], width(cols[i].cell(k)))
		}
	}
	line := func(cell func(c *column) string) {
		var l strings.Builder
		l.WriteString(textPrefix + textIndent)
		for i := range cols {
			if i > 0 {
				l.WriteString("  ")
			}
			s := cell(&cols[i])
			pad := strings.Repeat(" ", widths[i]-width(s))
			if cols[i].left {
				l.WriteString(s + pad)
			} else {
				l.WriteString(pad + s)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
	line(func(c *column) string { return c.head })
	for k := range cols[0].cells {
		line(func(c *column) string { return c.cell(k) })
	}
}
