package rundiff

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/internal/figure"
)

// MaxListed bounds the phases the text and Markdown renderings list: a
// job with hundreds of phases would otherwise print thousands of lines
// into a build log or a pull-request comment (GitHub refuses one over
// 64 KiB). Past it, the phases that changed are listed first, the greatest
// change first, then the longest of the others; the rest are counted.
// The JSON rendering lists every phase.
const MaxListed = 100

// MaxDepth bounds the nesting the tables show: deeper phases are listed at
// this depth, so that indentation never pushes the figures off screen.
const MaxDepth = 8

// absent is what a figure that is not there prints as.
const absent = figure.Absent

// Labels name the two sides in a rendering: the base runs' directories
// and the run compared's.
type Labels struct {
	Base []string
	Run  string
}

// Table is the diff laid out as its renderers show it: the job's row,
// then the phases listed (at most MaxListed, see listed), each with its
// cells under Heads.
type Table struct {
	Heads []string
	// Left says which columns are left-aligned (names, change, cause);
	// figures are right-aligned.
	Left []bool
	Rows []TableRow
	// Unlisted counts the phases left out past MaxListed.
	Unlisted int
	// HostIO is set when a disk IO cell is the machine's disks' (marked
	// HostIOMark): the job's own IO could not be read.
	HostIO bool
}

// HostIOMark follows a disk IO figure that is the machine's disks', and
// HostIONote says so under the table, as the summary does.
const (
	HostIOMark = "*"
	HostIONote = "* the host's disks: the job's own IO could not be read"
)

// TableRow is one row of a Table. Its first cell is the phase's name as
// it is ("test #2" for the second of its path), for the renderer to
// escape and indent by Depth; the job's is "job".
type TableRow struct {
	Cells   []string
	Depth   int // 0 for a child of the job, at most MaxDepth
	Job     bool
	Status  Status
	Outside bool
}

// Table lays out the job's row and the listed phases.
func (d *Diff) Table() Table {
	t := Table{Heads: []string{"phase", "duration", "change"}, Left: []bool{true, false, true}}
	spread := d.Baselines >= 2
	if spread {
		t.Heads, t.Left = append(t.Heads, "base spread"), append(t.Left, false)
	}
	for _, f := range Compared()[1:] {
		t.Heads, t.Left = append(t.Heads, f.String()), append(t.Left, false)
	}
	t.Heads, t.Left = append(t.Heads, "cause"), append(t.Left, true)

	line := func(r *Row, job bool) {
		name := "job"
		if !job {
			name = displayName(r)
		}
		c := []string{name, durationCell(r), ChangeText(r)}
		if spread {
			c = append(c, spreadCell(r))
		}
		for _, f := range Compared()[1:] {
			cell, host := figureCell(r, f)
			c = append(c, cell)
			t.HostIO = t.HostIO || host
		}
		t.Rows = append(t.Rows, TableRow{Cells: append(c, r.Reason), Depth: min(max(r.Depth, 0), MaxDepth), Job: job, Status: r.Status, Outside: r.Outside})
	}
	if d.HasJob {
		line(&d.Job, true)
	}
	rows, unlisted := listed(d.Phases, MaxListed)
	for i := range rows {
		line(&rows[i], false)
	}
	t.Unlisted = unlisted
	return t
}

// Format prints figure f's value in its unit, by the rules of package
// figure.
func Format(f Figure, v float64) string {
	switch f {
	case Duration, CPUTime:
		return figure.Seconds(v)
	case CPUsBusy:
		return figure.Count(v)
	case MemoryPeak, DiskIO:
		return figure.Bytes(v)
	}
	return pct(v)
}

// durationCell is the duration on both sides, "base → run", or the one
// side's.
func durationCell(r *Row) string {
	b, okB := r.Base.Get(Duration)
	c, okC := r.Cur.Get(Duration)
	switch {
	case okB && okC:
		return Format(Duration, b) + " → " + Format(Duration, c)
	case okB:
		return Format(Duration, b)
	case okC:
		return Format(Duration, c)
	}
	return absent
}

// figureCell is figure f as "base → run" when it changed beyond noise,
// else the run's (the base's when the phase is gone); a disk IO of the
// machine's disks is marked (HostIOMark), and host says so.
func figureCell(r *Row, f Figure) (cell string, host bool) {
	side := func(fs *Figures, v float64) string {
		if f == DiskIO && fs.DiskIOHost {
			host = true
			return Format(f, v) + HostIOMark
		}
		return Format(f, v)
	}
	dir, b, c, ok := r.Change(f)
	_, hasB := r.Base.Get(f)
	_, hasC := r.Cur.Get(f)
	switch {
	case ok && dir != Same:
		return side(&r.Base, b) + " → " + side(&r.Cur, c), host
	case (ok || r.InCur) && hasC:
		return side(&r.Cur, c), host
	case !ok && !r.InCur && hasB:
		return side(&r.Base, b), host
	}
	return absent, false
}

// spreadCell is the base runs' least and greatest duration, and whether
// the run is outside them.
func spreadCell(r *Row) string {
	lo, okL := r.Low.Get(Duration)
	hi, _ := r.High.Get(Duration)
	if !okL || r.Runs < 2 {
		return absent
	}
	s := Format(Duration, lo) + "–" + Format(Duration, hi)
	if r.Outside {
		s += " outside"
	}
	return s
}

// ChangeText says how the row's duration changed: "+3.28s (+105%)",
// "same", "new", "gone".
func ChangeText(r *Row) string {
	switch r.Status {
	case StatusSlower, StatusFaster:
		_, b, c, _ := r.Change(Duration)
		s := signed(c-b, figure.Seconds)
		if b > 0 {
			s += " (" + signed((c-b)/b*100, figure.Percent) + ")"
		}
		return s
	case StatusUnknown:
		return absent
	}
	return string(r.Status)
}

// listed returns the rows the tables list, at most max, in their order,
// and how many are left out: the changed first, the greatest change in
// duration first, then the longest of the others.
func listed(rows []Row, max int) ([]Row, int) {
	if len(rows) <= max {
		return rows, 0
	}
	rank := func(r *Row) (changed bool, size float64) {
		if r.Status != StatusSame && r.Status != StatusUnknown {
			changed = true
		}
		b, _ := r.Base.Get(Duration)
		c, _ := r.Cur.Get(Duration)
		if changed {
			return true, math.Abs(c - b)
		}
		return false, c
	}
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ca, sa := rank(&rows[a])
		cb, sb := rank(&rows[b])
		if ca != cb {
			if ca {
				return -1
			}
			return 1
		}
		return cmp.Compare(sb, sa)
	})
	keep := order[:max]
	slices.Sort(keep)
	out := make([]Row, len(keep))
	for i, k := range keep {
		out[i] = rows[k]
	}
	return out, len(rows) - max
}

// displayName is a phase's name as the tables show it: "#2" after a name
// that is the second of its path.
func displayName(r *Row) string {
	if r.N > 1 {
		return r.Name + " #" + strconv.Itoa(r.N)
	}
	return r.Name
}

// Against says what the run is compared with, the labels cleaned
// (cleantext.String: a directory's name may hold a terminal's escapes)
// and written by quote.
func (d *Diff) Against(l Labels, quote func(string) string) string {
	q := func(s string) string { return quote(cleantext.String(s)) }
	switch {
	case d.Baselines == 1 && len(l.Base) == 1:
		return q(l.Base[0])
	case d.Baselines == 1:
		return "the base run"
	}
	s := "the median of " + strconv.Itoa(d.Baselines) + " base runs"
	if len(l.Base) == d.Baselines {
		qs := make([]string, len(l.Base))
		for i, b := range l.Base {
			qs[i] = q(b)
		}
		s += " (" + strings.Join(qs, ", ") + ")"
	}
	return s
}
