package runmodel

import (
	"cmp"
	"container/heap"
	"slices"
	"time"
)

// What Placer.Place gives besides an index in Run.Phases.
const (
	// JobSpan is the job's span.
	JobSpan = -1
	// NoSpan is no span: none was open.
	NoSpan = -2
)

// Placer tells which span of a run a sample belongs to, by the spans'
// times: the one rule report.html's crosshair and profile.json's samples
// follow. A sample's figures cover the time since the sample before it
// (resource-usage.csv writes changes), and it belongs to the deepest span
// open at the middle of that time, the one begun last of those as deep. A
// span is open from its start to its end, both included; the job's span
// is the shallowest, a phase as deep as the phases above it (the job's
// counted when it is inside it: Depth, InJob).
//
// The CSV's phase columns say something else: the innermost phase the
// tracker had open when the row was written, during the run
// (docs/csv.md).
//
// Samples are placed in the order of their times, each once; a Placer
// walks the spans once, in the order they began, so that a run of n
// spans and m samples costs O((n + m) log n).
type Placer struct {
	run   *Run
	spans []int // JobSpan or an index in run.Phases, by start (begun)
	next  int   // the first of spans not begun
	open  openSpans
}

// Placer returns a Placer of the run's spans.
func (r *Run) Placer() *Placer {
	p := &Placer{run: r, open: openSpans{run: r}}
	if r.HasJob {
		p.spans = append(p.spans, JobSpan)
	}
	for i := range r.Phases {
		p.spans = append(p.spans, i)
	}
	slices.SortFunc(p.spans, func(a, b int) int {
		sa, sb := r.span(a), r.span(b)
		return cmp.Or(sa.Start.Compare(sb.Start), cmp.Compare(r.depth(a), r.depth(b)), cmp.Compare(sa.Order, sb.Order))
	})
	p.open.rank = make([]int, len(r.Phases)+1)
	for k, s := range p.spans {
		p.open.rank[s+1] = k
	}
	return p
}

// Place returns the span of the sample whose figures cover the time from
// from to to (a sample with none before it: from is to): an index in
// Run.Phases, JobSpan or NoSpan. Samples must come in the order of their
// times.
func (p *Placer) Place(from, to time.Time) int {
	mid := from.Add(to.Sub(from) / 2)
	for p.next < len(p.spans) && !p.run.span(p.spans[p.next]).Start.After(mid) {
		heap.Push(&p.open, p.spans[p.next])
		p.next++
	}
	// The deepest open, the latest begun of those as deep; those that
	// ended are dropped as they come to the top.
	for p.open.Len() > 0 && p.run.span(p.open.at[0]).End.Before(mid) {
		heap.Pop(&p.open)
	}
	if p.open.Len() == 0 {
		return NoSpan
	}
	return p.open.at[0]
}

// span is the span named by s: JobSpan or an index in Phases.
func (r *Run) span(s int) *Span {
	if s == JobSpan {
		return &r.Job
	}
	return &r.Phases[s]
}

// depth is how deep the span named by s is in the run, the job's span at
// 0 and counted above the phases inside it.
func (r *Run) depth(s int) int {
	if s == JobSpan {
		return 0
	}
	d := r.Phases[s].Depth
	if r.Phases[s].InJob {
		d++
	}
	return d
}

// openSpans is a heap of the spans begun, the deepest on top, the one
// begun last first among equals: rank[s+1] is the place of span s in
// Placer.spans.
type openSpans struct {
	run  *Run
	rank []int
	at   []int
}

func (o *openSpans) Len() int { return len(o.at) }
func (o *openSpans) Less(i, j int) bool {
	a, b := o.at[i], o.at[j]
	if da, db := o.run.depth(a), o.run.depth(b); da != db {
		return da > db
	}
	return o.rank[a+1] > o.rank[b+1]
}
func (o *openSpans) Swap(i, j int) { o.at[i], o.at[j] = o.at[j], o.at[i] }
func (o *openSpans) Push(x any)    { o.at = append(o.at, x.(int)) }
func (o *openSpans) Pop() any {
	x := o.at[len(o.at)-1]
	o.at = o.at[:len(o.at)-1]
	return x
}
