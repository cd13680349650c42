package runmodel_test

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/exporters/usagemetrics"
	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/internal/metrictest"
	"github.com/jobtrace/jobtrace/render/report"
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
	dir := t.TempDir()
	rec, csv, met, reader := machineSinks(t, dir)

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

// machineSinks are the sinks that show the machine's CPU share (and the
// job's, but for the metrics): a Recorder's statistics, resource-usage.csv
// written in dir with the Recorder's Tee, and the metrics, read by reader.
func machineSinks(t *testing.T, dir string) (*runmodel.Recorder, *usagecsv.Writer, *usagemetrics.Recorder, *metrictest.Reader) {
	t.Helper()
	rec := runmodel.NewRecorder()
	csv, err := usagecsv.Create(dir+"/"+usagecsv.FileName, usagecsv.Options{Tee: rec.Tee()})
	if err != nil {
		t.Fatal(err)
	}
	reader := metrictest.New(t)
	met, err := usagemetrics.New(reader.Meter, usagemetrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return rec, csv, met, reader
}

// boundaryTimes are the times, in ms, of the samples of a run of 3 s
// whose phases begin and end a few milliseconds apart: each second, 700,
// 702, 706 and 711 ms past it, and the end 2 ms after the last second.
func boundaryTimes() []int {
	var times []int
	for c := range 3 {
		base := c * 1000
		times = append(times, base, base+700, base+702, base+706, base+711)
	}
	return append(times, 3000, 3002)
}

// boundarySample is the sample i of a run whose samples are at times (ms
// after t0): the first as the job starts, the last after it ended, on the
// second at the interval, the others at phase boundaries.
func boundarySample(t0 time.Time, times []int, i int) hostmetrics.Sample {
	ms := times[i]
	s := hostmetrics.Sample{Time: t0.Add(time.Duration(ms) * time.Millisecond), Reason: hostmetrics.ReasonBoundary}
	switch {
	case i == 0:
		s.Reason = hostmetrics.ReasonStart
	case i == len(times)-1:
		s.Reason = hostmetrics.ReasonEnd
	case ms%1000 == 0:
		s.Reason = hostmetrics.ReasonInterval
	}
	return s
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

// The machine's CPU share of a run whose phases begin and end a few
// milliseconds apart, on a 2-CPU machine that keeps one CPU busy and whose
// CPU times move in 10 ms clock ticks, CPU 0's on the tens and CPU 1's
// 5 ms later: between two samples 2 to 5 ms apart the machine's CPU time
// moves by no tick, CPU 1's idle one or CPU 0's busy one, so the share
// over that span reads nothing, 0 % or 100 %. Every sample shows the
// share of the last span of at least usage.MinPeakSpan ended by it, the
// same in resource-usage.csv's host_cpu_pct, the system.cpu.utilization
// metric and usage.svg's line, which runs whole from the first span's end
// to the run's; the statistics' peak, over the same spans, is the highest
// a row shows.
// Before, the line broke at the boundaries and went to 0 % and 100 %.
func TestMachineShareOverBoundariesMillisecondsApart(t *testing.T) {
	t0 := time.Date(2026, 7, 8, 9, 10, 11, 0, time.UTC)
	const tick = 10 // ms
	cpuAt := func(ms int) hostmetrics.CPUTimes {
		return hostmetrics.CPUTimes{User: float64(ms/tick) / 100, Idle: float64((ms+tick/2)/tick) / 100}
	}
	times := boundaryTimes()

	dir := t.TempDir()
	rec, csv, met, reader := machineSinks(t, dir)
	for i, ms := range times {
		s := boundarySample(t0, times, i)
		s.Host.NumCPU, s.Host.HasCPU, s.Host.CPU = 2, true, cpuAt(ms)
		rec.Samples().Sample(&s)
		csv.Sample(&s)
		met.Sample(&s)
		if i == 0 {
			continue
		}
		if got := reader.Collect(t); got["system.cpu.utilization"].Name == "" {
			t.Errorf("sample at %d ms: no system.cpu.utilization", ms)
		} else if busy := busyOfMetric(got); busy < 0.45 || busy > 0.55 {
			t.Errorf("sample at %d ms: system.cpu.utilization says %v of the CPUs busy, want about 0.5", ms, busy)
		}
	}
	if err := csv.Close(); err != nil {
		t.Fatal(err)
	}
	run, err := rec.Run(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Rows) != len(times) {
		t.Fatalf("%d rows, want %d", len(run.Rows), len(times))
	}
	highest := 0.0
	for i, r := range run.Rows[1:] {
		v, ok := r.Get(runmodel.HostCPUPct)
		if !ok || v < 45 || v > 55 {
			t.Errorf("row at %d ms: host_cpu_pct %v (%v), want about 50", times[i+1], v, ok)
		}
		highest = max(highest, v)
	}
	if st := run.Stats.HostCPU; !st.HasPeak || math.Abs(st.Peak-highest) > 0.005 {
		t.Errorf("the statistics' host CPU peak %v, the highest host_cpu_pct %v", st.Peak, highest)
	}

	var svg strings.Builder
	if err := report.WriteSVG(&svg, run); err != nil {
		t.Fatal(err)
	}
	line := regexp.MustCompile(`stroke="#94a3b8" d="([^"]*)"`).FindStringSubmatch(svg.String())
	if line == nil {
		t.Fatal("usage.svg draws no line of the machine's CPU")
	}
	if n := strings.Count(line[1], "M"); n != 1 || strings.Count(line[1], "L") != len(times)-2 {
		t.Errorf("the machine's CPU line is %d pieces of %d points, want one of %d: %s", n, strings.Count(line[1], "L")+n, len(times)-1, line[1])
	}
	hosts := regexp.MustCompile(`\nhost: ([^\n<]*)`).FindAllStringSubmatch(svg.String(), -1)
	if len(hosts) != len(times) {
		t.Fatalf("%d hover texts of the machine's CPU, want %d", len(hosts), len(times))
	}
	for i, h := range hosts[1:] {
		v, err := strconv.ParseFloat(strings.TrimSuffix(h[1], "%"), 64)
		if err != nil || v < 45 || v > 55 {
			t.Errorf("point at %d ms: the chart says host %s, want about 50%%", times[i+1], h[1])
		}
	}
}
