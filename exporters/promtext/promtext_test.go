package promtext

import (
	"bytes"
	"errors"
	"math"
	"os/exec"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
)

func attrs(kv ...attribute.KeyValue) attribute.Set { return attribute.NewSet(kv...) }

// fixture is a run's metrics in small: a counter, an up-down counter, a
// gauge of unit 1, a histogram, with a resource and a scope.
func fixture() *metricdata.ResourceMetrics {
	return &metricdata.ResourceMetrics{
		Resource: resource.NewSchemaless(
			attribute.String("service.name", "proj"),
			attribute.String("host.name", "m1"),
			attribute.String("cicd.pipeline.task.run.id", "99"),
		),
		ScopeMetrics: []metricdata.ScopeMetrics{{
			Scope: instrumentation.Scope{Name: "jobtrace"},
			Metrics: []metricdata.Metrics{
				{Name: "system.cpu.time", Unit: "s", Description: "CPU time.", Data: metricdata.Sum[float64]{
					Temporality: metricdata.CumulativeTemporality, IsMonotonic: true,
					DataPoints: []metricdata.DataPoint[float64]{
						{Attributes: attrs(attribute.String("cpu.mode", "user")), Value: 1.5},
						{Attributes: attrs(attribute.String("cpu.mode", "system")), Value: 0.25},
					},
				}},
				{Name: "jobtrace.process.count", Unit: "{process}", Description: "Live processes.", Data: metricdata.Sum[int64]{
					Temporality: metricdata.CumulativeTemporality,
					DataPoints:  []metricdata.DataPoint[int64]{{Value: 9007199254740993}},
				}},
				{Name: "system.cpu.utilization", Unit: "1", Data: metricdata.Gauge[float64]{
					DataPoints: []metricdata.DataPoint[float64]{{Attributes: attrs(attribute.String("cpu.mode", "idle")), Value: 0.5}},
				}},
				{Name: "jobtrace.phase.memory.peak", Unit: "By", Description: "Peak.", Data: metricdata.Histogram[float64]{
					Temporality: metricdata.CumulativeTemporality,
					DataPoints: []metricdata.HistogramDataPoint[float64]{{
						Attributes: attrs(attribute.String("jobtrace.phase.name", "compile")),
						Bounds:     []float64{0, 1 << 20, 4 << 20}, BucketCounts: []uint64{1, 2, 0, 3}, Count: 6, Sum: 3e7,
					}},
				}},
			},
		}},
	}
}

func TestAppend(t *testing.T) {
	keep := func(kv attribute.KeyValue) bool { return kv.Key == "service.name" || kv.Key == "host.name" }
	got, err := Append(nil, fixture(), Options{ResourceLabels: keep})
	if err != nil {
		t.Fatal(err)
	}
	const scope = `otel_scope_name="jobtrace",otel_scope_schema_url="",otel_scope_version=""`
	want := `# HELP jobtrace_phase_memory_peak_bytes Peak.
# TYPE jobtrace_phase_memory_peak_bytes histogram
jobtrace_phase_memory_peak_bytes_bucket{host_name="m1",jobtrace_phase_name="compile",` + scope + `,service_name="proj",le="0"} 1
jobtrace_phase_memory_peak_bytes_bucket{host_name="m1",jobtrace_phase_name="compile",` + scope + `,service_name="proj",le="1.048576e+06"} 3
jobtrace_phase_memory_peak_bytes_bucket{host_name="m1",jobtrace_phase_name="compile",` + scope + `,service_name="proj",le="4.194304e+06"} 3
jobtrace_phase_memory_peak_bytes_bucket{host_name="m1",jobtrace_phase_name="compile",` + scope + `,service_name="proj",le="+Inf"} 6
jobtrace_phase_memory_peak_bytes_sum{host_name="m1",jobtrace_phase_name="compile",` + scope + `,service_name="proj"} 3e+07
jobtrace_phase_memory_peak_bytes_count{host_name="m1",jobtrace_phase_name="compile",` + scope + `,service_name="proj"} 6
# HELP jobtrace_processes Live processes.
# TYPE jobtrace_processes gauge
jobtrace_processes{host_name="m1",` + scope + `,service_name="proj"} 9007199254740993
# HELP system_cpu_time_seconds_total CPU time.
# TYPE system_cpu_time_seconds_total counter
system_cpu_time_seconds_total{cpu_mode="system",host_name="m1",` + scope + `,service_name="proj"} 0.25
system_cpu_time_seconds_total{cpu_mode="user",host_name="m1",` + scope + `,service_name="proj"} 1.5
# TYPE system_cpu_utilization_ratio gauge
system_cpu_utilization_ratio{cpu_mode="idle",host_name="m1",` + scope + `,service_name="proj"} 0.5
# HELP target_info Target metadata
# TYPE target_info gauge
target_info{cicd_pipeline_task_run_id="99",host_name="m1",service_name="proj"} 1
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	promtoolCheck(t, got, false)
}

func TestMetricName(t *testing.T) {
	for _, c := range []struct {
		name, unit string
		kind       kind
		want       string
	}{
		{"system.cpu.time", "s", kindCounter, "system_cpu_time_seconds_total"},
		{"system.disk.io_time", "s", kindCounter, "system_disk_io_time_seconds_total"},
		{"system.disk.operations", "{operation}", kindCounter, "system_disk_operations_total"},
		{"system.network.packet.count", "{packet}", kindCounter, "system_network_packet_count_total"},
		{"system.memory.usage", "By", kindSumGauge, "system_memory_usage_bytes"},
		{"system.memory.utilization", "1", kindGauge, "system_memory_utilization_ratio"},
		{"jobtrace.system.cpu.load_average.1m", "{thread}", kindGauge, "jobtrace_system_cpu_load_average_1m"},
		{"jobtrace.phase.duration", "s", kindHistogram, "jobtrace_phase_duration_seconds"},
		{"jobtrace.dropped", "{item}", kindCounter, "jobtrace_dropped_total"},
		// The name holds the unit, or the suffix, already.
		{"request.seconds", "s", kindHistogram, "request_seconds"},
		{"requests.total.count", "", kindCounter, "requests_count_total"},
		{"hit.ratio", "1", kindGauge, "hit_ratio"},
		// No _ratio but for gauges; units after "/".
		{"things", "1", kindCounter, "things_total"},
		{"things", "1", kindSumGauge, "things"},
		{"net.rate", "By/s", kindGauge, "net_rate_bytes_per_second"},
		{"odd", "foo/bar", kindGauge, "odd_foo_per_bar"},
		{"odd..name--x", "weird unit!", kindGauge, "odd_name_x_weird_unit"},
		{"2xx.responses", "", kindCounter, "_2xx_responses_total"},
		{"...", "{x}", kindGauge, ""},
		// A gauge does not end as a histogram's series do: a count takes
		// the plural of its annotation.
		{"process.thread.count", "{thread}", kindSumGauge, "process_threads"},
		{"jobtrace.process.count", "{process}", kindSumGauge, "jobtrace_processes"},
		{"queue.count", "{entry}", kindGauge, "queue_entries"},
		{"box.sum", "{box}", kindGauge, "boxes"},
		{"x.bucket", "{item}", kindSumGauge, "x_items"},
		{"jobtrace.phase.count", "{phase}", kindHistogram, "jobtrace_phase_count"},
		{"plain.count", "", kindGauge, "plain_count"},
	} {
		if got := metricName(c.name, c.unit, c.kind); got != c.want {
			t.Errorf("metricName(%q, %q, %v) = %q, want %q", c.name, c.unit, c.kind, got, c.want)
		}
	}
}

func TestLabelName(t *testing.T) {
	for key, want := range map[string]string{
		"cpu.mode": "cpu_mode", "a..b": "a_b", "a__b": "a_b", "_x": "_x", "0day": "key_0day",
		"ünï": "_n_", "...": "", "__": "", "k8s.pod.name": "k8s_pod_name",
	} {
		if got := labelName(key); got != want {
			t.Errorf("labelName(%q) = %q, want %q", key, got, want)
		}
	}
}

// TestHostileValues: label values and help text that would break the
// format are escaped, invalid UTF-8 becomes U+FFFD, and attributes that
// become the same label are one, their values joined in the order of
// their keys.
func TestHostileValues(t *testing.T) {
	rm := &metricdata.ResourceMetrics{
		Resource: resource.NewSchemaless(attribute.String("service.name", "a\"b\\c\nd\xffe}")),
		ScopeMetrics: []metricdata.ScopeMetrics{{
			Scope: instrumentation.Scope{Name: "s\"1", Version: "v\n2", Attributes: attrs(attribute.String("lib.x", "y"), attribute.String("name", "shadow"))},
			Metrics: []metricdata.Metrics{{
				Name: "g", Description: "back\\slash \"quoted\"\nsecond line \xfe", Data: metricdata.Gauge[int64]{DataPoints: []metricdata.DataPoint[int64]{{
					Attributes: attrs(
						attribute.String("phase", "x\",evil=\"1"),
						attribute.String("a.b", "second"), attribute.String("a-b", "first"), attribute.String("a_b", "third"),
						attribute.Bool("ok", true), attribute.Int("n", -3),
						attribute.String("...", "no name"),
						attribute.String("otel_scope_name", "shadowed"),
					),
					Value: 1,
				}}},
			}},
		}},
	}
	got, err := Append(nil, rm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := `# HELP g back\\slash "quoted"\nsecond line ` + "\uFFFD" + `
# TYPE g gauge
g{a_b="first;second;third",n="-3",ok="true",otel_scope_lib_x="y",otel_scope_name="s\"1",otel_scope_schema_url="",otel_scope_version="v\n2",phase="x\",evil=\"1"} 1
# HELP target_info Target metadata
# TYPE target_info gauge
target_info{service_name="a\"b\\c\nd` + "\uFFFD" + `e}"} 1
`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	promtoolCheck(t, got, false)
}

func TestSpecialValues(t *testing.T) {
	g := func(name string, v float64) metricdata.Metrics {
		return metricdata.Metrics{Name: name, Data: metricdata.Gauge[float64]{DataPoints: []metricdata.DataPoint[float64]{{Value: v}}}}
	}
	rm := &metricdata.ResourceMetrics{ScopeMetrics: []metricdata.ScopeMetrics{{Metrics: []metricdata.Metrics{
		g("a", math.NaN()), g("b", math.Inf(+1)), g("c", math.Inf(-1)), g("d", math.Copysign(0, -1)), g("e", 1e-300), g("f", 123456789012),
		{Name: "h", Data: metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality, DataPoints: []metricdata.HistogramDataPoint[float64]{{
			Bounds: []float64{-1, math.Inf(+1)}, BucketCounts: []uint64{1, 1, 0}, Count: 2, Sum: math.Inf(+1),
		}}}},
	}}}}
	got, err := Append(nil, rm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		`a{otel_scope_name="",otel_scope_schema_url="",otel_scope_version=""} NaN`,
		`b{otel_scope_name="",otel_scope_schema_url="",otel_scope_version=""} +Inf`,
		`c{otel_scope_name="",otel_scope_schema_url="",otel_scope_version=""} -Inf`,
		`d{otel_scope_name="",otel_scope_schema_url="",otel_scope_version=""} -0`,
		`e{otel_scope_name="",otel_scope_schema_url="",otel_scope_version=""} 1e-300`,
		`f{otel_scope_name="",otel_scope_schema_url="",otel_scope_version=""} 1.23456789012e+11`,
		`h_bucket{otel_scope_name="",otel_scope_schema_url="",otel_scope_version="",le="-1"} 1`,
		`h_bucket{otel_scope_name="",otel_scope_schema_url="",otel_scope_version="",le="+Inf"} 2`,
		`h_sum{otel_scope_name="",otel_scope_schema_url="",otel_scope_version=""} +Inf`,
	} {
		if !bytes.Contains(got, []byte(line+"\n")) {
			t.Errorf("no line %s in\n%s", line, got)
		}
	}
	if n := bytes.Count(got, []byte(`le="+Inf"`)); n != 1 {
		t.Errorf("%d +Inf buckets, want 1:\n%s", n, got)
	}
	if bytes.Contains(got, []byte("target_info")) {
		t.Errorf("target_info without a resource:\n%s", got)
	}
	promtoolCheck(t, got, false)
}

// TestEmptyHistograms: a histogram without data points is no family at
// all; a point without bounds and observations is the +Inf bucket, sum and
// count, all zero.
func TestEmptyHistograms(t *testing.T) {
	rm := &metricdata.ResourceMetrics{ScopeMetrics: []metricdata.ScopeMetrics{{Metrics: []metricdata.Metrics{
		{Name: "none", Description: "no points", Data: metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality}},
		{Name: "zero", Unit: "s", Data: metricdata.Histogram[int64]{Temporality: metricdata.CumulativeTemporality, DataPoints: []metricdata.HistogramDataPoint[int64]{{}}}},
	}}}}
	got, err := Append(nil, rm, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const l = `{otel_scope_name="",otel_scope_schema_url="",otel_scope_version=""`
	want := "# TYPE zero_seconds histogram\n" +
		"zero_seconds_bucket" + l + `,le="+Inf"} 0` + "\n" +
		"zero_seconds_sum" + l + "} 0\n" +
		"zero_seconds_count" + l + "} 0\n"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if got, err := Append(nil, &metricdata.ResourceMetrics{}, Options{}); err != nil || len(got) != 0 {
		t.Errorf("nothing collected: %q, %v", got, err)
	}
}

// TestLeftOut: what the format has no place for is left out, one error
// each, and the rest written.
func TestLeftOut(t *testing.T) {
	sum := func(name string, mono bool, temp metricdata.Temporality) metricdata.Metrics {
		return metricdata.Metrics{Name: name, Data: metricdata.Sum[float64]{Temporality: temp, IsMonotonic: mono,
			DataPoints: []metricdata.DataPoint[float64]{{Value: 1}}}}
	}
	rm := &metricdata.ResourceMetrics{
		Resource: resource.NewSchemaless(attribute.String("service.name", "p")),
		ScopeMetrics: []metricdata.ScopeMetrics{{Metrics: []metricdata.Metrics{
			sum("kept", true, metricdata.CumulativeTemporality),
			sum("delta", true, metricdata.DeltaTemporality),
			sum("kept.total", false, metricdata.CumulativeTemporality), // kept_total, a gauge: conflicts with the counter
			sum("kept", true, metricdata.CumulativeTemporality),        // the same family: its series join it
			sum("...", false, metricdata.CumulativeTemporality),
			sum("target.info", false, metricdata.CumulativeTemporality),
			{Name: "exp", Data: metricdata.ExponentialHistogram[float64]{Temporality: metricdata.CumulativeTemporality}},
			{Name: "bucketed", Data: metricdata.Histogram[float64]{Temporality: metricdata.CumulativeTemporality, DataPoints: []metricdata.HistogramDataPoint[float64]{
				{Attributes: attrs(attribute.String("le", "x"))}, {Attributes: attrs(attribute.String("x", "y"))},
			}}},
		}}},
	}
	got, err := Append(nil, rm, Options{})
	var joined interface{ Unwrap() []error }
	if !errors.As(err, &joined) {
		t.Fatalf("error %v is no join", err)
	}
	msgs := joined.Unwrap()
	for _, want := range []string{"delta temporality", "kept_total is a counter already", `"..." left out`, "target_info is the resource's", "no metricdata.ExponentialHistogram", "label le is the bucket's"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("no %q in the errors:\n%v", want, err)
		}
	}
	if len(msgs) != 6 {
		t.Errorf("%d errors, want 6:\n%v", len(msgs), err)
	}
	if n := strings.Count(string(got), "kept_total{"); n != 2 {
		t.Errorf("%d series of kept_total, want 2:\n%s", n, got)
	}
	if n := strings.Count(string(got), "# TYPE kept_total"); n != 1 {
		t.Errorf("%d TYPE lines of kept_total, want 1:\n%s", n, got)
	}
	if !strings.Contains(string(got), `bucketed_count{otel_scope_name="",otel_scope_schema_url="",otel_scope_version="",x="y"} 0`) {
		t.Errorf("the histogram's other series is missing:\n%s", got)
	}
	if strings.Contains(string(got), "delta") || strings.Contains(string(got), "exp") || strings.Count(string(got), "target_info{") != 1 {
		t.Errorf("left-out metrics written:\n%s", got)
	}
	promtoolCheck(t, got, false)
}

// promtoolCheck has promtool check b when it is installed: never a parse
// error, and with clean no lint finding either (without, lint findings
// such as a metric without HELP, exit 3, are allowed).
func promtoolCheck(t *testing.T, b []byte, clean bool) {
	t.Helper()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Log("promtool is not on PATH (Debian package prometheus): the output is not checked by it")
		return
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	lintOnly := errors.As(err, &ee) && ee.ExitCode() == 3
	if err != nil && !(lintOnly && !clean) || clean && len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("promtool check metrics: %v\n%s\ninput:\n%s", err, out, b)
	}
}
