package usagemetrics

import (
	"context"
	"fmt"

	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/verdict"
)

// MaxPhaseNames bounds the distinct phase names the per-phase metrics
// carry. Each name makes a series per metric and result in every backend
// the metrics reach; a job that names its phases after something that
// changes (a test name, a timestamp) would otherwise make series without
// end. Past this many names, phases are recorded under OtherPhase and Warn
// says so once. A thousand is far more than the stages of any real job.
const MaxPhaseNames = 1000

// OtherPhase is the phase name recorded once MaxPhaseNames distinct names
// have been seen.
const OtherPhase = "other"

type phaseKey struct{ name, result string }

// phaseSets are the attribute sets of one phase name and result.
type phaseSets struct {
	base attrs    // jobtrace.phase.name, cicd.pipeline.task.run.result
	dir  [2]attrs // the same with disk.io.direction read, write
}

type phaseState struct {
	names  map[string]struct{}
	sets   map[phaseKey]*phaseSets
	kinds  map[phaseKey]attrs // jobtrace.phase.name, jobtrace.phase.verdict
	jobs   map[string]attrs   // cicd.pipeline.task.run.result, by result
	warned bool
}

func (p *phaseState) init() {
	p.names = map[string]struct{}{}
	p.sets = map[phaseKey]*phaseSets{}
	p.kinds = map[phaseKey]attrs{}
	p.jobs = map[string]attrs{}
}

// Phase records what a phase cost, when it ends: its duration, and the
// job's CPU time, peak memory and storage IO during it when u has them;
// and its verdict v (judged from u by the caller), when it has one. ctx
// holds the phase's span, which the exemplars point at. result is the
// phase's cicd.pipeline.task.run.result as its span has it: one of the
// results, checked where it came in (protocol.Validate), and recorded as
// it is.
func (r *Recorder) Phase(ctx context.Context, name, result string, u *usage.Usage, v verdict.Verdict) {
	if u == nil {
		return
	}
	if ctx == nil {
		ctx = context.Background()
	}
	r.phaseMu.Lock()
	a := r.setsFor(name, result)
	var kind attrs
	if v.Kind != "" {
		kind = r.kindFor(name, v.Kind)
	}
	r.phaseMu.Unlock()

	if c := r.ic[mPhaseVerdicts]; c != nil && kind.add != nil {
		c.Add(ctx, 1, kind.add...)
	}
	if h := r.fh[mPhaseDuration]; h != nil {
		h.Record(ctx, max(u.Duration, 0).Seconds(), a.base.rec...)
	}
	if h := r.fh[mPhaseCPU]; h != nil && u.HasCPU {
		h.Record(ctx, u.CPU().Seconds(), a.base.rec...)
	}
	if h := r.ih[mPhaseMemPeak]; h != nil && u.HasMemory {
		h.Record(ctx, int64(u.MemoryPeak), a.base.rec...)
	}
	if h := r.ih[mPhaseDiskIO]; h != nil && u.HasIO {
		h.Record(ctx, int64(u.ReadBytes), a.dir[dirIn].rec...)
		h.Record(ctx, int64(u.WriteBytes), a.dir[dirOut].rec...)
	}
}

// boundName is the phase name the per-phase metrics record: name, or
// OtherPhase once MaxPhaseNames distinct names have been seen.
func (r *Recorder) boundName(name string) string {
	p := &r.phaseState
	if _, ok := p.names[name]; !ok {
		if len(p.names) < MaxPhaseNames {
			p.names[name] = struct{}{}
		} else {
			if !p.warned {
				p.warned = true
				r.warn(fmt.Sprintf("more than %d phase names: phase %q and later new names are recorded as %q", MaxPhaseNames, name, OtherPhase))
			}
			name = OtherPhase
		}
	}
	return name
}

// kindFor is the attribute set of a phase's verdict: its name bounded as
// the histograms' are, and its kind, one of verdict.Kinds (any other is
// recorded as verdict.Unknown).
func (r *Recorder) kindFor(name string, kind verdict.Kind) attrs {
	name = r.boundName(name)
	if !kind.Known() {
		kind = verdict.Unknown
	}
	k := phaseKey{name, string(kind)}
	a, ok := r.kinds[k]
	if !ok {
		a = newAttrs(AttrPhaseName.String(name), verdict.AttrKind.String(string(kind)))
		r.kinds[k] = a
	}
	return a
}

func (r *Recorder) setsFor(name, result string) *phaseSets {
	p := &r.phaseState
	name = r.boundName(name)
	k := phaseKey{name, result}
	if s := p.sets[k]; s != nil {
		return s
	}
	n, res := AttrPhaseName.String(name), semconv.CICDPipelineTaskRunResultKey.String(result)
	s := &phaseSets{
		base: newAttrs(n, res),
		dir:  [2]attrs{newAttrs(n, res, semconv.DiskIODirectionRead), newAttrs(n, res, semconv.DiskIODirectionWrite)},
	}
	p.sets[k] = s
	return s
}

// Job records what the whole job cost, once, when it has ended: its
// duration, and its CPU time and peak memory when u has them. ctx holds
// the job's span, which the exemplars point at. result is the job's
// cicd.pipeline.task.run.result, as a phase's is. The project,
// machine and runner are the resource's.
func (r *Recorder) Job(ctx context.Context, result string, u *usage.Usage) {
	if u == nil {
		return
	}
	if ctx == nil {
		ctx = context.Background()
	}
	r.phaseMu.Lock()
	a, ok := r.jobs[result]
	if !ok {
		a = newAttrs(semconv.CICDPipelineTaskRunResultKey.String(result))
		r.jobs[result] = a
	}
	r.phaseMu.Unlock()

	if h := r.fh[mJobDuration]; h != nil {
		h.Record(ctx, max(u.Duration, 0).Seconds(), a.rec...)
	}
	if h := r.fh[mJobCPU]; h != nil && u.HasCPU {
		h.Record(ctx, u.CPU().Seconds(), a.rec...)
	}
	if h := r.ih[mJobMemPeak]; h != nil && u.HasMemory {
		h.Record(ctx, int64(u.MemoryPeak), a.rec...)
	}
}
