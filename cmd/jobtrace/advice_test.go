//go:build unix

package main

import (
	"math"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/runmodel"
)

// adviceJob spins in a phase, then sleeps: its samples at 50 ms and at the
// phase's boundaries are unevenly spaced.
const adviceJob = `jobtrace phase begin spin
i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done
jobtrace phase end spin
sleep 0.3`

// advised runs a job under the built binary and returns the model read
// back from its artifacts and the advice the run set on the job's span.
func advised(t *testing.T, interval string, job ...string) (*runmodel.Run, map[attribute.Key]attribute.Value, result) {
	t.Helper()
	r := jt(t, nil, append([]string{"run", "--name", "advice-job", "--interval", interval, "--"}, job...)...)
	if r.code != 0 {
		t.Fatalf("run: exit %d: %s", r.code, r.stderr)
	}
	run, warn, err := runmodel.ReadDir(r.out)
	if err != nil || warn != nil || !run.HasJob {
		t.Fatalf("reading %s: %v, warn %v, job span %v", r.out, err, warn, run != nil && run.HasJob)
	}
	set := map[attribute.Key]attribute.Value{}
	for _, kv := range run.Job.Attributes {
		if strings.HasPrefix(string(kv.Key), "jobtrace.job.advice.") {
			set[kv.Key] = kv.Value
		}
	}
	return run, set, r
}

// The advice a run sets on its job's span, from its samples, is the
// advice made again from its artifacts (`jobtrace report`, runmodel's
// reader of resource-usage.csv): the same words and the same figures (the
// sums of the CSV's changes may differ from the counters in the last
// digits). The summary prints it.
func TestAdviceOfARunIsTheAdviceOfItsFiles(t *testing.T) {
	run, set, r := advised(t, "50ms", "sh", "-c", adviceJob)
	again := run.Advice()
	num := func(k attribute.Key) float64 {
		v, ok := set[k]
		if !ok {
			t.Errorf("the job's span has no %s: %v", k, set)
		}
		if v.Type() == attribute.INT64 {
			return float64(v.AsInt64())
		}
		return v.AsFloat64()
	}
	if got := set[sizing.AttrKind].AsString(); got != string(again.Kind) || again.Kind == sizing.Unknown {
		t.Errorf("kind %q in the run, %q from the files", got, again.Kind)
	}
	if got := set[sizing.AttrText].AsString(); got != again.Text {
		t.Errorf("the run said %q, the files %q", got, again.Text)
	}
	for _, c := range []struct {
		key       attribute.Key
		fromFiles float64
		tolerance float64
	}{
		{sizing.AttrCPUBusyP95, again.CPUBusyP95, 0.001}, // the attribute keeps 3 decimals
		{sizing.AttrCPUBusyPeak, again.CPUBusyPeak, 0.001},
		{sizing.AttrAboveOneCPU, again.AboveOneCPU.Seconds(), 1e-6},
		{sizing.AttrMemoryPeak, float64(again.MemoryPeak), 0},
	} {
		if got := num(c.key); math.Abs(got-c.fromFiles) > c.tolerance {
			t.Errorf("%s: %g in the run, %g from the files", c.key, got, c.fromFiles)
		}
	}
	if again.CPUBusyPeak <= 0 || again.MemoryPeak == 0 {
		t.Errorf("the job measured nothing: %+v", again.Figures)
	}
	if want := "advice: " + set[sizing.AttrText].AsString(); !strings.Contains(r.stderr, want) {
		t.Errorf("the summary lacks %q:\n%s", want, r.stderr)
	}
	t.Logf("advice: %s (%+v)", again.Text, again.Figures)
}
