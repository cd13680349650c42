package rundiff

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jobtrace/jobtrace/render/summary"
)

// maxTextName bounds a name in the text's phase column, indentation
// included, and maxTextReason a cause: longer ones are cut with "…".
const (
	maxTextName   = 40
	maxTextReason = 120
)

// WriteText writes the diff for a terminal, without colour: a line saying
// what is compared with what, the job's line, and a table of the job and
// its phases (indented by nesting) with the columns aligned. Names are
// printed on one line and cut to maxTextName.
func WriteText(w io.Writer, d *Diff, l Labels) error { return writeText(w, d, l, false) }

// WriteColourText is WriteText for a terminal that shows colour: the
// change column is red when slower, green when faster, and new and gone
// are bold (ANSI SGR sequences around the cell; the padding is outside
// them, so the columns stay aligned).
func WriteColourText(w io.Writer, d *Diff, l Labels) error { return writeText(w, d, l, true) }

func writeText(w io.Writer, d *Diff, l Labels, colour bool) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "jobtrace diff: %s against %s\n", strconv.Quote(l.Run), d.Against(l, strconv.Quote))
	if d.HasJob {
		fmt.Fprintf(&b, "job %s: %s\n", strconv.Quote(summary.OneLine(d.Job.Name)), jobLine(&d.Job))
	}
	t := d.Table()
	for _, row := range t.Rows {
		c := row.Cells
		if !row.Job {
			c[0] = summary.Truncate(strings.Repeat("  ", 1+row.Depth)+summary.OneLine(c[0]), maxTextName)
		}
		c[len(c)-1] = summary.Truncate(summary.OneLine(c[len(c)-1]), maxTextReason)
	}
	b.WriteString("\n")
	writeAligned(&b, t, colour)
	if t.HostIO {
		b.WriteString(HostIONote + "\n")
	}
	if t.Unlisted > 0 {
		fmt.Fprintf(&b, "(%d more phases not listed, the least changed: limit %d; --format json lists them all)\n", t.Unlisted, MaxListed)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// jobLine says how the job changed: "3.12s → 6.4s, +3.28s (+105%): the
// cause".
func jobLine(r *Row) string {
	s := jobChange(r)
	if r.Reason != "" {
		s += ": " + summary.OneLine(r.Reason)
	}
	return s
}

// jobChange says how the job's duration changed: "3.12s → 6.4s, +3.28s
// (+105%)".
func jobChange(r *Row) string {
	s := durationCell(r)
	switch r.Status {
	case StatusSame:
		return s + ", the same within noise"
	case StatusSlower, StatusFaster:
		s += ", " + ChangeText(r)
		if r.Outside {
			s += ", outside the base runs' spread"
		}
	}
	return s
}

// changeColumn is the column of a Table that says the change.
const changeColumn = 2

// sgr is the ANSI SGR sequence a row's change is shown in, "" for none.
func sgr(st Status) string {
	switch st {
	case StatusSlower:
		return "\x1b[31m"
	case StatusFaster:
		return "\x1b[32m"
	case StatusNew, StatusGone:
		return "\x1b[1m"
	}
	return ""
}

// writeAligned writes t with its columns padded to their widest cell,
// columns two spaces apart, trailing spaces trimmed; with colour, each
// row's change in its colour (sgr).
func writeAligned(b *bytes.Buffer, t Table, colour bool) {
	widths := make([]int, len(t.Heads))
	all := [][]string{t.Heads}
	for _, r := range t.Rows {
		all = append(all, r.Cells)
	}
	for _, row := range all {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for k, row := range all {
		var l strings.Builder
		for i, c := range row {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i > 0 {
				l.WriteString("  ")
			}
			if colour && k > 0 && i == changeColumn {
				if on := sgr(t.Rows[k-1].Status); on != "" {
					c = on + c + "\x1b[0m"
				}
			}
			if t.Left[i] {
				l.WriteString(c + pad)
			} else {
				l.WriteString(pad + c)
			}
		}
		b.WriteString(strings.TrimRight(l.String(), " ") + "\n")
	}
}

// JobLine says how the job changed and why: "7.03s → 10.7s, +3.62s
// (+51%): same CPU time, … — slowed by neighbours"; "" without the job on
// both sides.
func (d *Diff) JobLine() string {
	if !d.HasJob {
		return ""
	}
	return jobLine(&d.Job)
}
