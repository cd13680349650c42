package summary

import (
	"cmp"
	"slices"
	"time"

	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/runmodel"
	"github.com/jobtrace/jobtrace/spans/wire"
)

// JobInfo is what the agent knows of the job as a whole.
type JobInfo struct {
	Name     string
	ExitCode int
	// Result is the job's cicd.pipeline.task.run.result: success,
	// failure, error, timeout, cancellation; empty is success
	// (wire.NormalResult).
	Result string
	// Duration is the job's, from its start to its exit, for a run
	// without the job's span: the model's (runmodel.Run.Job's
	// Usage.Duration) is shown when it has one.
	Duration time.Duration
	// NumCPU is the machine's CPU count, which utilisation is a share of;
	// when 0 it is taken from the samples (runmodel.Run.Stats).
	NumCPU int
	// Notes are lines about what the figures leave out, such as output
	// that was not scanned for markers; each is shown under the table.
	Notes []string
}

// Summary is what both renderers print.
type Summary struct {
	Name     string
	Result   string // as in JobInfo, never empty
	ExitCode int
	Duration time.Duration
	NumCPU   int // 0 when unknown

	// Phases are the spans under the job's, in start order, each followed
	// by its children; Depth 0 is a child of the job's span.
	Phases []Row
	// Total is the job as a whole; its Name is the job's.
	Total Row
	// Dropped counts spans that ended past the model's bound
	// (spool.MaxReadSpans) and are not listed.
	Dropped int
	// Unlisted counts phases kept but left out of the tables: more than
	// MaxListed (see Build).
	Unlisted int
	// Notes are JobInfo's.
	Notes []string

	Stats runmodel.JobStats
	// Advice is the job's right-sizing advice (runmodel.Run.Advice),
	// printed under the tables unless its kind is sizing.Unknown.
	Advice sizing.Advice
}

// Row is one line of the phase table.
type Row struct {
	Name     string
	Depth    int
	Duration time.Duration
	Failed   bool
	Status   string
	// Verdict is the one its span carries, as the model read it
	// (runmodel.Span.Verdict); the zero Verdict when it has none.
	Verdict verdict.Verdict
	Figures
}

// MaxDepth bounds the nesting the tables show: deeper phases are listed
// at this depth, so that indentation never pushes the figures off screen.
const MaxDepth = 8

// Build puts together the phases of run (as a tree, each level in start
// order), the job's totals, the statistics of its samples and its
// right-sizing advice. run may be
// nil. The job's span is the model's (runmodel.Run.Job);
// spans whose parent is neither the job's nor in the run (their parent
// ended past the bound) are listed at the top level rather than lost.
func Build(run *runmodel.Run, job JobInfo) Summary {
	if run == nil {
		run = &runmodel.Run{}
	}
	stats := run.Stats

	r := Summary{
		Name: job.Name, ExitCode: job.ExitCode, Result: job.Result,
		Duration: job.Duration, NumCPU: job.NumCPU, Dropped: run.SkippedSpans, Stats: stats,
		Notes: job.Notes, Advice: run.Advice(),
	}
	r.Result = wire.NormalResult(r.Result)

	// The job's own span gives its duration, its usage and what JobInfo
	// leaves out.
	r.Total = Row{Name: job.Name, Duration: job.Duration}
	if run.HasJob {
		r.Total.Figures = FiguresOf(&run.Job.Usage)
		r.Total.Verdict = run.Job.Verdict
		if d := run.Job.Usage.Duration; d > 0 {
			r.Duration, r.Total.Duration = d, d
		}
	}
	if r.NumCPU <= 0 {
		r.NumCPU = stats.NumCPU
	}

	rows := make([]Row, len(run.Phases))
	parent := make([]int, len(run.Phases))
	for i := range run.Phases {
		p := &run.Phases[i]
		rows[i] = Row{
			Name: p.Name, Depth: min(p.Depth, MaxDepth), Duration: p.Usage.Duration,
			Failed: p.Failed, Status: p.Status, Verdict: p.Verdict, Figures: FiguresOf(&p.Usage),
		}
		parent[i] = p.ParentIndex
	}
	r.Phases, r.Unlisted = limitRows(rows, parent, MaxListed)
	return r
}

// MaxListed bounds the phases the tables list. A job with hundreds of
// phases (or a flood of them) would otherwise print thousands of lines into
// the build log, and GitHub refuses a step summary over 1 MiB. report.html
// lists more, and the spool keeps them all.
const MaxListed = 100

// limitRows keeps at most about max of rows (in tree order, as the model
// gives them): failed phases first, then the longest, each with its ancestors so
// that the indentation still tells the nesting; it returns how many it left
// out. parent[i] is the index of the parent of rows[i], -1 for none (the
// model's runmodel.Span.ParentIndex). A phase lies inside its parent (the
// tracker keeps it so), so the longest phases mostly bring their ancestors
// with them.
func limitRows(rows []Row, parent []int, max int) ([]Row, int) {
	if len(rows) <= max {
		return rows, 0
	}
	order := make([]int, len(rows))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if rows[a].Failed != rows[b].Failed {
			if rows[a].Failed {
				return -1
			}
			return 1
		}
		return cmp.Compare(rows[b].Duration, rows[a].Duration)
	})
	keep := make([]bool, len(rows))
	n := 0
	for _, i := range order {
		if n >= max {
			break
		}
		// The row and its ancestors, up to one already kept (whose
		// ancestors are).
		for j := i; j >= 0 && !keep[j]; j = parent[j] {
			keep[j] = true
			n++
		}
	}
	kept := make([]Row, 0, n)
	for i := range rows {
		if keep[i] {
			kept = append(kept, rows[i])
		}
	}
	return kept, len(rows) - len(kept)
}
