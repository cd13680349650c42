package rundiff

import (
	"cmp"
	"slices"
	"strings"

	"github.com/jobtrace/jobtrace/runmodel"
)

// Status is what became of a phase (or of the job) from the base runs to
// the run compared.
type Status string

// The statuses of a row.
const (
	StatusSame   Status = "same"   // the duration changed less than the noise rule
	StatusSlower Status = "slower" // longer, beyond the noise rule
	StatusFaster Status = "faster" // shorter, beyond the noise rule
	StatusNew    Status = "new"    // in the run compared, in no base run
	StatusGone   Status = "gone"   // in a base run, not in the run compared
	// StatusUnknown is a phase with no duration on one side (a span
	// without its times).
	StatusUnknown Status = "unknown"
)

// Diff is the comparison of a run with one base run or with the median of
// several.
type Diff struct {
	// Baselines is the number of base runs.
	Baselines int
	// Job is the job's own row; HasJob is false when the run compared or
	// every base run has no job span.
	Job    Row
	HasJob bool
	// Phases are the phases of both sides as a tree: the run compared's in
	// its order, each gone phase after the phase it followed in a base run.
	Phases []Row
}

// Row is one phase (or the job) on both sides.
type Row struct {
	// Name is the phase's name, Path the names from the job down (Name
	// last) and N its place among the phases of the same path, from 1.
	Name  string
	Path  []string
	N     int
	Depth int // 0 for a child of the job

	Status Status
	// Base are the base run's figures, or with several base runs the
	// median of those that have the phase; Low and High are the least and
	// the greatest of them (the spread). Runs counts the base runs that
	// have the phase.
	Base, Low, High Figures
	Runs            int
	// Cur are the figures of the run compared; InCur is false when the
	// phase is gone.
	Cur   Figures
	InCur bool
	// Outside is set when, with two or more base runs that have the
	// phase, its duration is outside their spread by more than the noise
	// rule.
	Outside bool
	// Cause is the most likely cause of a change in duration and Reason
	// says it with the figures (Explain); both are empty when the duration
	// is the same.
	Cause  Cause
	Reason string
}

// Change returns how figure f changed (Same when either side does not
// have it, or the sides are not Comparable) and both sides' values.
func (r *Row) Change(f Figure) (dir Direction, base, cur float64, ok bool) {
	b, okB := r.Base.Get(f)
	c, okC := r.Cur.Get(f)
	if !okB || !okC || !Comparable(&r.Base, &r.Cur, f) {
		return Same, b, c, false
	}
	return changeOf(b, c, NoiseOf(f)), b, c, true
}

// key identifies a phase across runs: its path (names joined by NUL,
// which a cleaned name never holds) and its place among the phases of
// that path.
type key struct {
	path string
	n    int
}

// phase is a phase of a run with its key.
type phase struct {
	key   key
	path  []string
	depth int
	span  *runmodel.Span
}

// phasesOf keys the phases of run, in the model's tree order. A phase's
// path is its parent's (runmodel.Span.ParentIndex, which the tree order
// lists before it) with its name: a phase whose parent is the job's span
// or not in the run is at the top.
func phasesOf(run *runmodel.Run) []phase {
	out := make([]phase, 0, len(run.Phases))
	seen := make(map[string]int, len(run.Phases))
	for i := range run.Phases {
		s := &run.Phases[i]
		var up []string
		if p := s.ParentIndex; p >= 0 && p < i {
			up = out[p].path
		}
		path := append(up[:len(up):len(up)], s.Name) // a copy: up is the parent's
		k := strings.Join(path, "\x00")
		seen[k]++
		out = append(out, phase{key: key{k, seen[k]}, path: path, depth: len(path) - 1, span: s})
	}
	return out
}

// Compare compares run with the base runs: with one, figure by figure;
// with several, against the median of those that have each phase. A nil
// base run is skipped.
func Compare(bases []*runmodel.Run, run *runmodel.Run) *Diff {
	bases = slices.DeleteFunc(slices.Clone(bases), func(r *runmodel.Run) bool { return r == nil })
	d := &Diff{Baselines: len(bases)}
	if run == nil {
		run = &runmodel.Run{}
	}

	// The job.
	var jobs []Figures
	for _, b := range bases {
		if b.HasJob {
			jobs = append(jobs, figuresOf(&b.Job))
		}
	}
	if run.HasJob && len(jobs) > 0 {
		d.HasJob = true
		d.Job = Row{Name: run.Job.Name, Depth: -1, Cur: figuresOf(&run.Job), InCur: true}
		d.Job.setBase(jobs)
		d.Job.judge()
	}

	// The phases: the run's order, gone ones after the phase they
	// followed.
	type entry struct {
		row  Row
		base []Figures
	}
	entries := map[key]*entry{}
	var order []key
	for _, p := range phasesOf(run) {
		entries[p.key] = &entry{row: Row{Name: p.span.Name, Path: p.path, N: p.key.n, Depth: p.depth, Cur: figuresOf(p.span), InCur: true}}
		order = append(order, p.key)
	}
	// after holds the gone phases to list after a phase of the run (the
	// zero key: before the first); anchor is the phase of the run a gone
	// phase is listed after.
	after := map[key][]key{}
	anchor := map[key]key{}
	for _, b := range bases {
		last := key{}
		for _, p := range phasesOf(b) {
			e, ok := entries[p.key]
			if !ok {
				e = &entry{row: Row{Name: p.span.Name, Path: p.path, N: p.key.n, Depth: p.depth}}
				entries[p.key] = e
				after[last] = append(after[last], p.key)
				anchor[p.key] = last
			}
			e.base = append(e.base, figuresOf(p.span))
			if a, gone := anchor[p.key]; gone {
				last = a
			} else {
				last = p.key
			}
		}
	}
	d.Phases = make([]Row, 0, len(entries))
	add := func(k key) {
		e := entries[k]
		e.row.setBase(e.base)
		e.row.judge()
		d.Phases = append(d.Phases, e.row)
	}
	for _, k := range after[key{}] {
		add(k)
	}
	for _, k := range order {
		add(k)
		for _, g := range after[k] {
			add(g)
		}
	}
	return d
}

// setBase sets the base figures of r from those of the base runs that
// have it: the median of each figure, and the spread. The disk IO is of
// the runs that have the job's own when any has, else of the machine's
// disks (DiskIOHost).
func (r *Row) setBase(runs []Figures) {
	r.Runs = len(runs)
	if len(runs) == 0 {
		return
	}
	own, host := false, false
	for i := range runs {
		if _, ok := runs[i].Get(DiskIO); ok {
			own, host = own || !runs[i].DiskIOHost, host || runs[i].DiskIOHost
		}
	}
	hostIO := host && !own
	r.Base.DiskIOHost, r.Low.DiskIOHost, r.High.DiskIOHost = hostIO, hostIO, hostIO
	vals := make([]float64, 0, len(runs))
	for f := range numFigures {
		vals = vals[:0]
		for i := range runs {
			if v, ok := runs[i].Get(f); ok && (f != DiskIO || runs[i].DiskIOHost == hostIO) {
				vals = append(vals, v)
			}
		}
		if len(vals) == 0 {
			continue
		}
		slices.Sort(vals)
		r.Base.Set(f, median(vals))
		r.Low.Set(f, vals[0])
		r.High.Set(f, vals[len(vals)-1])
	}
	// The verdict is a run's, not a number: the base run of the median
	// duration gives it.
	byDur := slices.Clone(runs)
	slices.SortStableFunc(byDur, func(a, b Figures) int { return cmp.Compare(a.v[Duration], b.v[Duration]) })
	m := byDur[(len(byDur)-1)/2]
	r.Base.Verdict = m.Verdict
}

// median of sorted vals, which is not empty: the middle one, or the mean
// of the two in the middle.
func median(vals []float64) float64 {
	n := len(vals)
	if n%2 == 1 {
		return vals[n/2]
	}
	return (vals[n/2-1] + vals[n/2]) / 2
}

// judge sets the row's status, whether it is outside the base runs'
// spread, and the cause of a change.
func (r *Row) judge() {
	switch {
	case r.Runs == 0:
		r.Status = StatusNew
		return
	case !r.InCur:
		r.Status = StatusGone
		return
	}
	dir, _, cur, ok := r.Change(Duration)
	if !ok {
		r.Status = StatusUnknown
		return
	}
	switch dir {
	case Up:
		r.Status = StatusSlower
	case Down:
		r.Status = StatusFaster
	default:
		r.Status = StatusSame
	}
	if r.Runs >= 2 {
		lo, _ := r.Low.Get(Duration)
		hi, _ := r.High.Get(Duration)
		n := NoiseOf(Duration)
		r.Outside = changeOf(hi, cur, n) == Up || changeOf(lo, cur, n) == Down
	}
	r.Cause, r.Reason = Explain(r)
}
