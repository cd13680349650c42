package runmodel_test

import (
	"math"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/exporters/usagemetrics"
	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/internal/metrictest"
	"github.com/jobtrace/jobtrace/runmodel"
)

// One sequence of samples of a 2-CPU machine whose idle time dips (the
// kernel moved a CPU's idle time to iowait) gives the same share of the
// machine's CPU busy in resource-usage.csv's host_cpu_pct, a phase's usage
// (jobtrace.system.cpu.utilization.avg), the statistics of the run and the
// system.cpu.utilization metric: each mode's change by monotonic's rule,
// the dip's unknown (hostmetrics.BusyShare). Before, the CSV and the
// statistics took the dip as negative idle time: 71 % busy in the second
// second where the usage and the metric said 52 %.
func TestMachineShareOneRuleAcrossSinks(t *testing.T) {
	t0 := time.Date(2026, 7, 8, 9, 10, 11, 0, time.UTC)
	cpus := []hostmetrics.CPUTimes{
		{User: 10, System: 5, Idle: 80, IOWait: 5},
		{User: 11, System: 5.5, Idle: 80.4, IOWait: 5.1},
		{User: 12, System: 6, Idle: 79.6, IOWait: 6.5}, // idle dips by 0.8 s
		{User: 12.5, System: 6.2, Idle: 80.9, IOWait: 6.6},
	}
	rec := runmodel.NewRecorder()
	csv, err := usagecsv.Create(t.TempDir()+"/"+usagecsv.FileName, usagecsv.Options{Tee: rec.Tee()})
	if err != nil {
		t.Fatal(err)
	}
	reader := metrictest.New(t)
	met, err := usagemetrics.New(reader.Meter, usagemetrics.Options{})
	if err != nil {
		t.Fatal(err)
	}

	var windows, metrics []float64 // the share of each second
	var prev hostmetrics.Sample
	for i, c := range cpus {
		s := hostmetrics.Sample{Time: t0.Add(time.Duration(i) * time.Second), Reason: hostmetrics.ReasonInterval}
		if i == len(cpus)-1 {
			s.Reason = hostmetrics.ReasonEnd
		}
		s.Host.NumCPU, s.Host.HasCPU, s.Host.CPU = 2, true, c
		rec.Samples().Sample(&s)
		csv.Sample(&s)
		met.Sample(&s)
		if i == 0 {
			prev = s
			continue
		}
		var w usage.Window
		w.Begin(&prev)
		u := w.End(&s)
		windows = append(windows, u.SystemCPUAvg)
		metrics = append(metrics, busyOfMetric(reader.Collect(t)))
		prev = s
	}
	if err := csv.Close(); err != nil {
		t.Fatal(err)
	}
	run, err := rec.Run("")
	if err != nil {
		t.Fatal(err)
	}
	var rows []float64
	for i := 1; i < len(run.Rows); i++ {
		v, _ := run.Rows[i].Get(runmodel.HostCPUPct)
		rows = append(rows, v/100)
	}
	if len(rows) != 3 || len(windows) != 3 || len(metrics) != 3 {
		t.Fatalf("%d rows, %d windows, %d metric readings: want 3 each", len(rows), len(windows), len(metrics))
	}
	if want := 1.5 / 2.9; math.Abs(windows[1]-want) > 1e-9 {
		t.Errorf("the second second's share %v, want %v: busy 1.5 s of 2.9 s known", windows[1], want)
	}
	var mean, peak float64
	for i := range rows {
		// The CSV writes percent with two decimals.
		if math.Abs(rows[i]-windows[i]) > 0.00005 || math.Abs(metrics[i]-windows[i]) > 1e-9 {
			t.Errorf("second %d: host_cpu_pct %v, the phase's usage %v, the metric %v", i+1, rows[i], windows[i], metrics[i])
		}
		mean += windows[i] / 3
		peak = max(peak, windows[i])
	}
	if st := run.Stats.HostCPU; st.N != 3 || math.Abs(st.Mean/100-mean) > 1e-9 || math.Abs(st.Peak/100-peak) > 1e-9 {
		t.Errorf("the statistics' host CPU %+v, want mean %v and peak %v of the seconds' shares", st, 100*mean, 100*peak)
	}
}

// busyOfMetric is the share of the CPUs busy by the last
// system.cpu.utilization gauges collected: 1 less the idle and iowait
// modes'.
func busyOfMetric(ms map[string]metricdata.Metrics) float64 {
	busy := 1.0
	g, _ := ms["system.cpu.utilization"].Data.(metricdata.Gauge[float64])
	for _, dp := range g.DataPoints {
		if mode, _ := dp.Attributes.Value(semconv.CPUModeKey); mode.AsString() == "idle" || mode.AsString() == "iowait" {
			busy -= dp.Value
		}
	}
	return busy
}
