package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/exporters/usagemetrics"
	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/runmodel"
	"github.com/jobtrace/jobtrace/spans"
	"github.com/jobtrace/jobtrace/telemetry"
)

// attrSamplingNote is what start-up found about resource sampling (the
// job's cgroup, the subreaper), on the "resource sampling" events of the
// start-up span.
const attrSamplingNote = attribute.Key("jobtrace.sampling.note")

// SamplingOptions configure resource sampling in a run.
type SamplingOptions struct {
	// Interval is the time between samples; 0 turns sampling off.
	Interval time.Duration
	// Cgroup lets jobtrace make a cgroup v2 for the job where it may.
	Cgroup bool
	// ProcRoot and SysRoot are where /proc and /sys are mounted.
	ProcRoot, SysRoot string
	// NotJob tells jobtrace's children that are not the job's (its guard
	// process) from the job's orphans.
	NotJob func(pid int) bool
	// Orphan is told about the job's orphans re-parented to jobtrace.
	Orphan func(pid int, start uint64)
	// NoSubreaper leaves the process as it is rather than making it a
	// child subreaper (Linux), which lasts as long as the process: a
	// program that embeds a session and has children of its own. The
	// job's orphans then leave its tree.
	NoSubreaper bool
	// Tree, for a session without a child, is a process whose tree is
	// measured as the job's (`jobtrace start`: the process it watches,
	// which starts the job's steps); 0 for none.
	Tree int
}

// resources samples the host and the job while the job runs and measures
// what each phase cost.
type resources struct {
	src     hostmetrics.Source
	sampler *hostmetrics.Sampler
	phases  *phaseUsage
	jobCg   *jobCgroup // nil when the job has no cgroup of its own
	cgDir   string     // the cgroup read: the job's, or jobtrace's own
	notes   []string   // what start-up found, for the startup span
	late    *lateSinks // the sinks made once the telemetry is
	csv     *usagecsv.Writer
	// rec is the model of the run, whose samples' statistics give the
	// job's right-sizing advice.
	rec     *runmodel.Recorder
	closers []func() error
}

// newResources makes the job's cgroup (where permitted, for a session with
// a child) and the source, or takes src when it is not nil. It returns nil
// when sampling is off.
func newResources(o SamplingOptions, child bool, src hostmetrics.Source, log Logger) *resources {
	if o.Interval <= 0 {
		return nil
	}
	r := &resources{phases: newPhaseUsage()}
	if src != nil {
		r.src = src
		return r
	}
	cfg := hostmetrics.Config{ProcRoot: o.ProcRoot, SysRoot: o.SysRoot, NotJob: o.NotJob, Orphan: o.Orphan}
	if wd, err := os.Getwd(); err == nil {
		cfg.WorkDir = wd
	}
	if o.NoSubreaper {
		r.notes = append(r.notes, "not a child subreaper: not asked to be")
	} else if err := hostmetrics.SetSubreaper(); err != nil {
		r.notes = append(r.notes, "not a child subreaper: "+err.Error())
	} else {
		cfg.Subreaper = subreaperSupported
	}
	if o.Cgroup {
		cg, own, note := setupCgroup(o.ProcRoot, log, child)
		if note != "" {
			r.notes = append(r.notes, note)
		}
		r.jobCg = own
		cfg.CgroupDir, cfg.CgroupOwn = cg, own != nil
		r.cgDir = cg
	}
	src, err := hostmetrics.NewSource(cfg)
	if err != nil {
		log.Warn(fmt.Sprintf("resource sampling: %v", err))
	}
	if src == nil {
		r.cleanup(log)
		return nil
	}
	if u := src.Unavailable(); u != "" {
		log.Printf("%s", u)
	}
	if !child && o.Tree > 0 {
		src.SetJob(o.Tree)
		r.notes = append(r.notes, fmt.Sprintf("the job's processes: the tree of process %d", o.Tree))
	}
	r.src = src
	return r
}

// sinks makes the sinks of the samples: the statistics of the model of the
// run (runmodel.Recorder.Samples), the OTel metrics (whose data points
// carry exemplars of the innermost phase over the time they cover) and the
// CSV file in the out directory.
func (r *resources) sinks(pipe *telemetry.Pipeline, tracker *spans.Tracker, log Logger) []hostmetrics.Sink {
	r.rec = pipe.Recorder()
	out := []hostmetrics.Sink{r.rec.Samples()}
	if pipe.RecordsMetrics() {
		rec, err := usagemetrics.New(pipe.Meter, usagemetrics.Options{Active: tracker.Innermost, Warn: log.Warn})
		if err != nil {
			log.Warn(fmt.Sprintf("no resource metrics: %v", err))
		} else {
			out = append(out, rec)
			r.phases.onEnd = rec.Phase
			r.phases.onJob = rec.Job
		}
	}
	csvPath := filepath.Join(pipe.Dir(), usagecsv.FileName)
	phase := func() usagecsv.Phase {
		c := tracker.Current()
		return usagecsv.Phase{Name: c.Name, SpanID: c.SpanID, Depth: c.Depth}
	}
	w, err := usagecsv.Create(csvPath, usagecsv.Options{Phase: phase, Warn: log.Warn, Tee: pipe.Recorder().Tee()})
	if err != nil {
		log.Warn(fmt.Sprintf("no %s: %v", usagecsv.FileName, err))
	} else {
		r.csv = w
		out = append(out, w)
		r.closers = append(r.closers, w.Close)
	}
	return out
}

// start starts sampling: the sampling goroutine takes the first sample
// first thing (Sampler.FirstTaken waits for it), and hands every sample to
// the phase usage windows (the job's begins with the first sample) and to
// the sinks given to late.
func (r *resources) start(interval time.Duration, log Logger) {
	r.late = &lateSinks{given: make(chan struct{})}
	r.sampler = hostmetrics.NewSampler(r.src, hostmetrics.Options{
		Interval: interval, Sinks: []hostmetrics.Sink{r.phases, r.late}, Warn: log.Warn,
	})
	r.phases.sampler = r.sampler
	r.sampler.StartAside()
}

// abandon stops sampling and removes the job's cgroup, for a session that
// could not start.
func (r *resources) abandon(log Logger) {
	r.late.give(nil)
	r.sampler.Stop()
	r.cleanup(log)
}

// lateSinks are the sinks that need the telemetry (sinks), made after
// sampling has started: a sample that comes before they are given waits
// for them, in the sampling goroutine.
type lateSinks struct {
	given chan struct{} // closed once sinks is set
	sinks []hostmetrics.Sink
}

// give sets the sinks and lets the samples through.
func (l *lateSinks) give(sinks []hostmetrics.Sink) {
	l.sinks = sinks
	close(l.given)
}

// Sample implements hostmetrics.Sink.
func (l *lateSinks) Sample(s *hostmetrics.Sample) {
	<-l.given
	for _, k := range l.sinks {
		k.Sample(s)
	}
}

// jobStarted tells the source the job's pid. When the job could not be
// started right into its cgroup it is moved there now; its first children
// may then have been forked outside it.
func (r *resources) jobStarted(j Job, log Logger) {
	err := j.CgroupErr()
	if err != nil && r.jobCg != nil {
		r.src.JobOutsideCgroup()
	}
	r.src.SetJob(j.Pid())
	if err != nil && r.jobCg != nil {
		if err2 := r.jobCg.addProc(j.Pid()); err2 != nil {
			log.Warn(fmt.Sprintf("the job could not be started in its cgroup (%v) nor moved there (%v): its cgroup figures are not the job's", err, err2))
		} else {
			r.notes = append(r.notes, fmt.Sprintf("job moved into its cgroup after start (%v)", err))
		}
	}
}

// jobExited gives the source the job's rusage, as soon as it is reaped.
func (r *resources) jobExited(u hostmetrics.ExitUsage) {
	r.src.JobExited(u)
}

// finish takes the job's last sample, sets the job's usage and its
// right-sizing advice on its span (and hands the usage to onJob with the
// job's result), stops sampling and closes the CSV; the job's cgroup is
// removed after (removeCgroup). Phases must have been ended before: their
// spans end with a sample of their own, taken just before.
// The job's usage is read from the last sample (Sampler.Finish): a sample
// of its own would be read just before it, both after the job's exit. Its
// duration is took, from the job's start to its exit (the one every
// artifact shows), not to the end of its span, which jobtrace ends once its
// own shutdown work is done.
func (r *resources) finish(log Logger, result string, took time.Duration) {
	r.sampler.Finish(func(s *hostmetrics.Sample) {
		// The job's peak memory is its cgroup's memory.peak when higher
		// than sampled, as in the statistics of its samples.
		u := r.phases.rootWin.EndJob(s)
		u.SetDuration(took)
		v := setUsage(r.phases.root, &u)
		if r.rec != nil {
			// The sinks, the Recorder's statistics among them, had this
			// last sample before this function. The Recorder keeps the
			// advice: the model of the run carries it, not made again.
			a := r.rec.Advice(&u, v)
			r.phases.root.SetAttributes(a.Attributes()...)
		}
		if r.phases.onJob != nil {
			r.phases.onJob(trace.ContextWithSpan(context.Background(), r.phases.root), result, &u)
		}
	})
	r.close(log)
}

// cleanup closes the source and the sinks' files and removes the job's
// cgroup.
func (r *resources) cleanup(log Logger) {
	r.close(log)
	r.removeCgroup(log)
}

// close closes the source and the sinks' files (the CSV).
func (r *resources) close(log Logger) {
	if r.src != nil {
		r.src.Close()
	}
	for _, c := range r.closers {
		if err := c(); err != nil {
			log.Warn(err.Error())
		}
	}
}

// removeCgroup removes the job's cgroup, once no process is left in it:
// those the job left running are killed (jobCgroup.remove).
func (r *resources) removeCgroup(log Logger) {
	if r.jobCg != nil {
		if msg := r.jobCg.remove(); msg != "" {
			log.Printf("%s", msg)
		}
	}
}

// phaseUsage is the tracker's phase observer: it opens a usage window at
// each phase begin and, at its end, sets the usage on the span and ends it.
// Windows are touched only by the functions the sampler calls with a
// sample, one at a time, so they need no lock of their own.
type phaseUsage struct {
	sampler *hostmetrics.Sampler
	root    trace.Span
	rootWin usage.Window
	windows map[trace.Span]*phaseWindow
	// held are the samples so far, for the phases added after they
	// ended (PhaseAdded).
	held usage.History
	// onEnd, when set, is called with each phase's usage and verdict as
	// it ends.
	onEnd func(ctx context.Context, name, result string, u *usage.Usage, v verdict.Verdict)
	// onJob, when set, is called once with the job's usage and result
	// as it ends.
	onJob func(ctx context.Context, result string, u *usage.Usage)
}

func newPhaseUsage() *phaseUsage {
	return &phaseUsage{windows: map[trace.Span]*phaseWindow{}}
}

// phaseWindow is the usage window of a phase open, and when its span
// began: its duration is its span's, whenever its samples were taken.
type phaseWindow struct {
	usage.Window
	start time.Time
}

// Sample implements hostmetrics.Sink.
func (p *phaseUsage) Sample(s *hostmetrics.Sample) {
	p.held.Add(s)
	if !p.rootWin.Started() {
		p.rootWin.Begin(s)
		return
	}
	p.rootWin.Add(s)
	for _, w := range p.windows {
		w.Add(s)
	}
}

// AckSampleWait bounds how long a phase message whose sender waits for the
// reply (`jobtrace phase begin`) waits for its boundary sample, so that the
// sample is taken before the sender goes on with the phase's work.
const AckSampleWait = 100 * time.Millisecond

// PhaseBegan implements spans.PhaseObserver: the window opens with the
// next sample, requested here, under the tracker's lock, so that it comes
// in the order of the boundaries; the sample is taken by the function
// returned, outside the lock.
func (p *phaseUsage) PhaseBegan(b spans.Boundary) func() {
	return p.boundary(b.Wait, func(s *hostmetrics.Sample) {
		w := &phaseWindow{start: b.Time}
		w.Begin(s)
		p.windows[b.Span] = w
	})
}

// PhaseEnded implements spans.PhaseObserver, as PhaseBegan does: the
// window closes, and the span ends, with the next sample.
func (p *phaseUsage) PhaseEnded(b spans.Boundary) func() {
	return p.boundary(b.Wait, func(s *hostmetrics.Sample) {
		if w := p.windows[b.Span]; w != nil {
			delete(p.windows, b.Span)
			u := w.End(s)
			u.SetSpan(w.start, b.Time)
			v := setUsage(b.Span, &u)
			if p.onEnd != nil {
				p.onEnd(b.Ctx, b.Name, b.Result, &u, v)
			}
		}
		b.Span.End(trace.WithTimestamp(b.Time))
	})
}

// PhaseAdded implements spans.PhaseObserver: the phase's usage is computed
// from the samples held (usage.History.Over), once a sample is taken after
// the message, so that a phase that ended a moment ago has a sample after
// its end.
func (p *phaseUsage) PhaseAdded(b spans.Boundary) func() {
	return p.boundary(b.Wait, func(*hostmetrics.Sample) {
		u, covered, ok := p.held.Over(b.Start, b.Time)
		if ok {
			u.SetSpan(b.Start, b.Time)
			v := setUsage(b.Span, &u)
			b.Span.SetAttributes(usage.AttrWindowStart.String(covered.From.UTC().Format(time.RFC3339Nano)),
				usage.AttrWindowEnd.String(covered.To.UTC().Format(time.RFC3339Nano)))
			if p.onEnd != nil {
				p.onEnd(b.Ctx, b.Name, b.Result, &u, v)
			}
		} else {
			b.Span.SetAttributes(usage.AttrNone.String("no sample at or before its end: it ended before sampling began"))
		}
		b.Span.End(trace.WithTimestamp(b.Time))
	})
}

// setUsage sets a window's usage on its span, and the verdict judged from
// it (docs/attributes.md), which it returns: the one place a verdict is
// judged.
func setUsage(span trace.Span, u *usage.Usage) verdict.Verdict {
	v := verdict.Judge(*u)
	span.SetAttributes(u.Attributes()...)
	span.SetAttributes(v.Attributes()...)
	return v
}

// boundary requests a boundary sample for fn and returns what has it taken:
// Serve or, when wait is set, ServeWaited and waiting (at most
// AckSampleWait) until the sample has the job's figures read: the sender
// gets its reply then, while the host's figures are read and fn runs
// (hostmetrics.JobFirst).
func (p *phaseUsage) boundary(wait bool, fn func(*hostmetrics.Sample)) func() {
	if !wait {
		p.sampler.Request(fn)
		return p.sampler.Serve
	}
	read := p.sampler.RequestWaited(fn)
	return func() {
		p.sampler.ServeWaited()
		t := time.NewTimer(AckSampleWait)
		defer t.Stop()
		select {
		case <-read:
		case <-t.C:
		}
	}
}
