package report

import (
	"time"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/rundiff"
	"github.com/jobtrace/jobtrace/runmodel"
)

// File names of the report in the output directory.
const (
	HTMLName = "report.html"
	SVGName  = "usage.svg"
)

// Data is what a report shows of a run: its view of the model.
type Data struct {
	Job    Job
	Phases []Phase // every span below the job span, as a tree
	// Skipped counts the spans left out past spool.MaxReadSpans.
	Skipped int
	Rows    []runmodel.Row
	// PointSpans are the spans the charts' points belong to, one a point
	// (the rows bucket groups), by the spans' times (runmodel.Placer): an
	// index in Phases, runmodel.JobSpan or runmodel.NoSpan. The
	// crosshair lists the one of the point under the pointer and the
	// phases around it.
	PointSpans []int
	// Advice is the job's right-sizing advice (runmodel.Run.Advice).
	Advice sizing.Advice
	// Diff compares the run with base runs (WithDiff); nil without.
	Diff       *rundiff.Diff
	DiffLabels rundiff.Labels
}

// Job is the job span and its resource.
type Job struct {
	Name     string
	Result   string // cicd.pipeline.task.run.result; empty when unknown
	ExitCode string // process.exit.code; empty when unknown
	// Start and End are the job span's; the timeline's axis runs from
	// one to the other, jobtrace's shutdown work included.
	Start time.Time
	End   time.Time
	// Duration is the job's, from its start to its exit (the model's
	// Usage.Duration): what the report shows, and its bar's length.
	Duration time.Duration
	Host     string // resource host.name
	Service  string // resource service.name
	Usage    Usage
	Verdict  verdict.Verdict // the model's (runmodel.Span.Verdict)
	Events   []runmodel.Event
}

// Phase is one span below the job span.
type Phase struct {
	Name  string
	Depth int // 0 for a child of the job span
	// Parent is the index in Data.Phases of the phase it is inside
	// (runmodel.Span.ParentIndex), -1 for none.
	Parent int
	Start  time.Time
	End    time.Time
	// Duration is the span's, as the model has it (its Usage.Duration):
	// what the report shows, and its bar's length.
	Duration time.Duration
	Result   string
	// Failed is true when the span's status is Error, whatever its result:
	// jobtrace sets it by wire.Failed (failure, error, timeout), so a
	// skipped or cancelled phase is not failed.
	Failed  bool
	Usage   Usage
	Verdict verdict.Verdict // the model's (runmodel.Span.Verdict)
	Events  []runmodel.Event
}

// Usage is the part of a span's usage the report shows; an absent figure
// is not OK.
type Usage struct {
	CPUUser, CPUSystem Opt // s
	CPUAvg, CPUPeak    Opt // 0 to 1
	MemoryPeak         Opt // bytes
	// DiskRead and DiskWrite are the job's, or the host's disks when
	// DiskHost is set (runmodel.DiskIO).
	DiskRead  Opt // bytes
	DiskWrite Opt // bytes
	DiskHost  bool
}

// Opt is a figure that may be absent.
type Opt struct {
	V  float64
	OK bool
}

func usageOf(u *usage.Usage) Usage {
	io, hasIO := runmodel.DiskIOOf(u)
	return Usage{
		CPUUser:    Opt{u.CPUUser.Seconds(), u.HasCPU},
		CPUSystem:  Opt{u.CPUSystem.Seconds(), u.HasCPU},
		CPUAvg:     Opt{u.CPUAvg, u.HasCPU},
		CPUPeak:    Opt{u.CPUPeak, u.HasCPU},
		MemoryPeak: Opt{float64(u.MemoryPeak), u.HasMemory},
		DiskRead:   Opt{float64(io.Read), hasIO},
		DiskWrite:  Opt{float64(io.Write), hasIO},
		DiskHost:   io.Host,
	}
}

func resourceText(run *runmodel.Run, key attribute.Key) string {
	v, _ := runmodel.Attr(run.Resource, key)
	return runmodel.Text(v)
}

// dataOf is the report's view of run. When the job span is missing (the
// agent was killed before it ended: only ended spans are kept), the job's
// name is unknown and its times come from the rest.
func dataOf(run *runmodel.Run) *Data {
	d := &Data{Skipped: run.SkippedSpans, Rows: run.Rows, Advice: run.Advice()}
	d.Job.Host = resourceText(run, semconv.HostNameKey)
	d.Job.Service = resourceText(run, semconv.ServiceNameKey)
	if run.HasJob {
		j := &run.Job
		d.Job.Name, d.Job.Start, d.Job.End, d.Job.Duration = j.Name, j.Start, j.End, j.Usage.Duration
		d.Job.Result, d.Job.ExitCode = j.Text(runmodel.AttrResult), j.Text(runmodel.AttrExitCode)
		d.Job.Usage = usageOf(&j.Usage)
		d.Job.Verdict = j.Verdict
		d.Job.Events = j.Events
	}
	d.Phases = make([]Phase, len(run.Phases))
	for i := range run.Phases {
		s := &run.Phases[i]
		result := s.Text(runmodel.AttrResult)
		d.Phases[i] = Phase{
			Name: s.Name, Depth: s.Depth, Parent: s.ParentIndex, Start: s.Start, End: s.End,
			Duration: s.Usage.Duration, Result: result, Failed: s.Failed,
			Usage: usageOf(&s.Usage), Verdict: s.Verdict, Events: s.Events,
		}
	}
	d.fillTimes()
	d.PointSpans = pointSpans(run)
	return d
}

// pointSpans are the spans the charts' points of run belong to
// (Data.PointSpans): each point's figures cover the time from the row
// before its first row (the first row's own, for the first point) to its
// last row.
func pointSpans(run *runmodel.Run) []int {
	ends := bucket(len(run.Rows))
	if len(ends) == 0 {
		return nil
	}
	place := run.Placer()
	out := make([]int, len(ends))
	first := 0
	for k, end := range ends {
		out[k] = place.Place(run.Rows[max(first-1, 0)].Time, run.Rows[end-1].Time)
		first = end
	}
	return out
}

// fillTimes gives the job a start, an end and a duration from the rows or
// the phases when there was no job span (or it had no times).
func (d *Data) fillTimes() {
	extend := func(t time.Time) {
		if t.IsZero() {
			return
		}
		if d.Job.Start.IsZero() || t.Before(d.Job.Start) {
			d.Job.Start = t
		}
		if d.Job.End.IsZero() || t.After(d.Job.End) {
			d.Job.End = t
		}
	}
	if !d.Job.Start.IsZero() && !d.Job.End.IsZero() {
		return
	}
	for _, p := range d.Phases {
		extend(p.Start)
		extend(p.End)
	}
	for _, r := range d.Rows {
		extend(r.Time)
	}
	d.Job.Duration = usage.SpanDuration(d.Job.Start, d.Job.End)
}
