package usagemetrics

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/verdict"
)

var fullUsage = usage.Usage{
	Duration: 90 * time.Second, Samples: 91, NumCPU: 2,
	HasCPU: true, CPUUser: 60 * time.Second, CPUSystem: 15 * time.Second,
	HasMemory: true, MemoryPeak: 3 << 30,
	HasIO: true, ReadBytes: 5 << 20, WriteBytes: 7 << 20,
}

func TestPhase(t *testing.T) {
	r := newRig(t)
	r.rec.Phase(r.ctx, "compile", "success", &fullUsage, verdict.Verdict{Kind: verdict.CPUBound})
	test := fullUsage
	test.Duration = 30 * time.Second
	test.HasCPU, test.HasMemory, test.HasIO = false, false, false
	r.rec.Phase(r.ctx, "test", "failure", &test, verdict.Verdict{Kind: verdict.Waiting})
	r.rec.Phase(r.ctx, "test", "success", &test, verdict.Verdict{Kind: verdict.Waiting})
	r.rec.Phase(r.ctx, "nothing", "success", nil, verdict.Verdict{Kind: verdict.Waiting})
	r.rec.Phase(context.Background(), "lint", "skip", &test, verdict.Verdict{Kind: "slow"})
	r.rec.Phase(r.ctx, "no verdict", "success", &test, verdict.Verdict{})
	ms := r.collect()

	const (
		compile  = "cicd.pipeline.task.run.result=success,jobtrace.phase.name=compile"
		testFail = "cicd.pipeline.task.run.result=failure,jobtrace.phase.name=test"
		lint     = "cicd.pipeline.task.run.result=skip,jobtrace.phase.name=lint"
	)
	checkValues(t, ms, "jobtrace.phase.duration", map[string]float64{compile: 90, testFail: 30, lint: 30,
		"cicd.pipeline.task.run.result=success,jobtrace.phase.name=test":       30,
		"cicd.pipeline.task.run.result=success,jobtrace.phase.name=no verdict": 30})
	// Verdicts are counted by phase name and kind, whatever the result; a
	// kind that is not one of verdict.Kinds is unknown; no verdict, no count.
	checkValues(t, ms, "jobtrace.phase.verdicts", map[string]float64{
		"jobtrace.phase.name=compile,jobtrace.phase.verdict=cpu-bound": 1,
		"jobtrace.phase.name=test,jobtrace.phase.verdict=waiting":      2,
		"jobtrace.phase.name=lint,jobtrace.phase.verdict=unknown":      1,
	})
	checkValues(t, ms, "jobtrace.phase.cpu.time", map[string]float64{compile: 75})
	checkValues(t, ms, "jobtrace.phase.memory.peak", map[string]float64{compile: 3 << 30})
	checkValues(t, ms, "jobtrace.phase.disk.io", map[string]float64{
		"cicd.pipeline.task.run.result=success,disk.io.direction=read,jobtrace.phase.name=compile":  5 << 20,
		"cicd.pipeline.task.run.result=success,disk.io.direction=write,jobtrace.phase.name=compile": 7 << 20,
	})

	// One observation per phase; the bucket counts place it.
	for _, p := range pointsOf(ms["jobtrace.phase.duration"]) {
		if p.count != 1 {
			t.Errorf("%s: count %d, want 1", p.attrs.Encoded(attribute.DefaultEncoder()), p.count)
		}
		enc := p.attrs.Encoded(attribute.DefaultEncoder())
		if enc == lint {
			if len(p.exemplars) > 0 {
				t.Errorf("lint ended with no span in its context, yet has exemplars %v", p.exemplars)
			}
		} else if !hasExemplarOf(p, r.span) {
			t.Errorf("%s: no exemplar of the phase span", enc)
		}
	}
}

func TestMaxPhaseNames(t *testing.T) {
	r := newRig(t)
	u := usage.Usage{Duration: time.Second}
	const extra = 7
	v := verdict.Verdict{Kind: verdict.TooShort}
	for i := range MaxPhaseNames + extra {
		r.rec.Phase(r.ctx, fmt.Sprintf("step-%d", i), "success", &u, v)
	}
	// A name seen before the bound keeps its own series.
	r.rec.Phase(r.ctx, "step-0", "success", &u, v)
	ms := r.collect()

	byName := map[string]uint64{}
	for _, p := range pointsOf(ms["jobtrace.phase.duration"]) {
		v, _ := p.attrs.Value(AttrPhaseName)
		byName[v.AsString()] += p.count
	}
	// The verdicts are bounded by the same names.
	verdicts := map[string]uint64{}
	for _, p := range pointsOf(ms["jobtrace.phase.verdicts"]) {
		v, _ := p.attrs.Value(AttrPhaseName)
		verdicts[v.AsString()] += uint64(p.value)
	}
	if !maps.Equal(verdicts, byName) {
		t.Errorf("verdicts by phase name differ from the durations' names: %d names, %q has %d", len(verdicts), OtherPhase, verdicts[OtherPhase])
	}
	if len(byName) != MaxPhaseNames+1 {
		t.Errorf("%d distinct phase names, want %d (the bound, plus %q)", len(byName), MaxPhaseNames+1, OtherPhase)
	}
	if byName[OtherPhase] != extra {
		t.Errorf("%q has %d phases, want %d", OtherPhase, byName[OtherPhase], extra)
	}
	if byName["step-0"] != 2 {
		t.Errorf("step-0 has %d phases, want 2", byName["step-0"])
	}
	if _, ok := byName[fmt.Sprintf("step-%d", MaxPhaseNames)]; ok {
		t.Error("a name past the bound has its own series")
	}
	if len(r.warns) != 1 || !strings.Contains(r.warns[0], "phase names") {
		t.Errorf("warnings %q, want one about phase names", r.warns)
	}
}

// TestJob: one observation per job, by its result as a phase's is, the
// figures it has, the job span as exemplar, in the job's buckets.
func TestJob(t *testing.T) {
	r := newRig(t)
	r.rec.Job(r.ctx, "success", &fullUsage)
	short := usage.Usage{Duration: 4 * time.Second, HasCPU: true, CPUUser: time.Second}
	r.rec.Job(r.ctx, "failure", &short)
	r.rec.Job(r.ctx, "timeout", &short)
	r.rec.Job(r.ctx, "success", nil)
	ms := r.collect()

	key := string(semconv.CICDPipelineTaskRunResultKey) + "="
	ok, fail, odd := key+"success", key+"failure", key+"timeout"
	checkValues(t, ms, "jobtrace.job.duration", map[string]float64{ok: 90, fail: 4, odd: 4})
	checkValues(t, ms, "jobtrace.job.cpu.time", map[string]float64{ok: 75, fail: 1, odd: 1})
	checkValues(t, ms, "jobtrace.job.memory.peak", map[string]float64{ok: 3 << 30})
	for _, p := range pointsOf(ms["jobtrace.job.duration"]) {
		if p.count != 1 {
			t.Errorf("%s: count %d, want 1", p.attrs.Encoded(attribute.DefaultEncoder()), p.count)
		}
		if !hasExemplarOf(p, r.span) {
			t.Errorf("%s: no exemplar of the job span", p.attrs.Encoded(attribute.DefaultEncoder()))
		}
	}
	for _, name := range []string{"jobtrace.job.duration", "jobtrace.job.cpu.time", "jobtrace.job.memory.peak"} {
		for _, p := range pointsOf(ms[name]) {
			if want := lookup(t, name).Buckets; !slices.Equal(p.bounds, want) {
				t.Errorf("%s: buckets %v, want %v", name, p.bounds, want)
			}
		}
	}
}
