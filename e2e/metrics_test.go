package e2e

import (
	"context"
	"encoding/csv"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"text/tabwriter"
	"time"
)

// machine is what probeMachine found: which of docs/metrics.md's figures
// this machine gives.
type machine struct {
	supported bool              // probeMachine knows this OS's files
	figures   map[string]figure // by metric name
	// pressure holds the (resource, kind) pairs of the machine-wide
	// pressure files that jobtrace records.
	pressure map[[2]string]bool
	// hostID is the host.id jobtrace should report; "" means none.
	hostID string
	// writesReachDisk: a file written in the job's work directory is
	// storage IO (not tmpfs).
	writesReachDisk bool
}

type figureState int

const (
	figureGiven  figureState = iota // the machine gives it: the metric must arrive
	figureAbsent                    // it does not: the metric must not arrive
	figureMaybe                     // it depends on what jobtrace may set up
)

type figure struct {
	state figureState
	why   string
}

// docMetric is one row of the table in docs/metrics.md.
type docMetric struct {
	Name, Kind, Unit string
	Attrs            []string
	Description      string
}

const metricsDocPath = "../docs/metrics.md"

// readMetricsDoc parses the table under "## The metrics" in
// docs/metrics.md, and the bucket boundaries of the per-phase histograms
// the same page gives, by unit ("s", "By").
func readMetricsDoc(t *testing.T) ([]docMetric, map[string][]float64) {
	t.Helper()
	data, err := os.ReadFile(metricsDocPath)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	_, table, ok := strings.Cut(text, "\n## The metrics\n")
	if !ok {
		t.Fatalf("%s has no section \"## The metrics\"", metricsDocPath)
	}
	var rows []docMetric
	for _, line := range strings.Split(table, "\n") {
		if strings.HasPrefix(line, "## ") {
			break
		}
		if !strings.HasPrefix(line, "| `") {
			continue // the header, its separator, prose
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 5 {
			t.Fatalf("%s: row %q has %d cells, want 5 (name, kind, unit, attributes, description)", metricsDocPath, line, len(cells))
		}
		for i := range cells {
			cells[i] = strings.ReplaceAll(strings.TrimSpace(cells[i]), "`", "")
		}
		d := docMetric{Name: cells[0], Kind: cells[1], Unit: cells[2], Description: cells[4]}
		if cells[3] != "–" {
			for _, a := range strings.Split(cells[3], ",") {
				d.Attrs = append(d.Attrs, strings.TrimSpace(a))
			}
		}
		rows = append(rows, d)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no metrics in the table under \"## The metrics\"", metricsDocPath)
	}
	return rows, docBuckets(t, text)
}

// docBuckets parses "...: seconds 0.1, 0.5, ...; bytes 0, 1 MiB, ..., 256
// GiB." from the two paragraphs on bucket boundaries: the phases' first,
// then the jobs' (keyed "job s" and "job By").
func docBuckets(t *testing.T, text string) map[string][]float64 {
	t.Helper()
	flat := strings.Join(strings.Fields(text), " ")
	all := regexp.MustCompile(`Bucket boundaries [^:]*: seconds ([^;]*); bytes ([^.]*)\.`).FindAllStringSubmatch(flat, -1)
	if len(all) != 2 {
		t.Fatalf("%s: %d paragraphs \"Bucket boundaries ...: seconds ...; bytes ....\", want 2 (the phases', then the jobs')", metricsDocPath, len(all))
	}
	parse := func(list string) []float64 {
		var out []float64
		for _, item := range strings.Split(list, ",") {
			num, unit, _ := strings.Cut(strings.TrimSpace(item), " ")
			v, err := strconv.ParseFloat(num, 64)
			if err != nil {
				t.Fatalf("%s: bucket boundary %q: %v", metricsDocPath, item, err)
			}
			switch unit {
			case "":
			case "KiB":
				v *= 1 << 10
			case "MiB":
				v *= 1 << 20
			case "GiB":
				v *= 1 << 30
			default:
				t.Fatalf("%s: bucket boundary %q: unknown unit", metricsDocPath, item)
			}
			out = append(out, v)
		}
		return out
	}
	phases, jobs := all[0], all[1]
	return map[string][]float64{
		"s": parse(phases[1]), "By": parse(phases[2]),
		"job s": parse(jobs[1]), "job By": parse(jobs[2]),
	}
}

// optionalAttrs are declared attributes that docs/metrics.md says a data
// point carries only sometimes.
var optionalAttrs = map[string]map[string]string{
	"system.filesystem.usage": {"system.device": "docs/metrics.md: system.device only when the source knows it"},
}

// The phases of testdata/metrics-job.sh.
var metricsJobPhases = []string{"cpu-busy", "write-fsync"}

// TestMetricsAtCollector runs a two-phase job under `jobtrace run` with
// metrics exported to a real collector, and checks what the collector
// received against docs/metrics.md: every metric this machine gives, with
// its kind, unit, description and attributes; per-phase histograms for both
// phases with exemplars pointing at the phase spans; exemplars of the job's
// trace on every data point; the run's resource. Over OTLP/gRPC and over
// OTLP/HTTP.
func TestMetricsAtCollector(t *testing.T) {
	requireJobtrace(t)
	for _, tc := range []struct{ name, protocol string }{
		{"grpc", "grpc"},
		{"http", "http/protobuf"},
	} {
		t.Run(tc.name, func(t *testing.T) { testMetricsAtCollector(t, tc.protocol) })
	}
}

func testMetricsAtCollector(t *testing.T, protocol string) {
	work := t.TempDir()
	mach := probeMachine(work)
	if !mach.supported {
		t.Skipf("the figures a machine gives are probed from Linux's files; this is %s", runtime.GOOS)
	}
	docs, buckets := readMetricsDoc(t)
	collector := StartFileCollector(t)
	endpoint := collector.GRPCEndpoint()
	if protocol == "http/protobuf" {
		endpoint = collector.HTTPEndpoint()
	}
	out := filepath.Join(t.TempDir(), "out")
	script, err := filepath.Abs(filepath.Join("testdata", "metrics-job.sh"))
	if err != nil {
		t.Fatal(err)
	}
	const serviceName = "jobtrace-e2e-metrics"
	env := jobEnv(endpoint, protocol, "E2E_WORK="+work, "OTEL_SERVICE_NAME="+serviceName)

	res := runJobtrace(t, env, "run", "--out", out, "--name", "metrics", "--interval", "200ms",
		"--export-timeout", "10s", "--", "sh", script)
	t.Logf("jobtrace run took %s; stderr:\n%s", res.Elapsed.Round(time.Millisecond), res.Stderr)
	if res.ExitCode != 0 {
		t.Fatalf("jobtrace run exited %d, want 0\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	spans, traceID := jobSpans(t, out, "metrics")
	if m := regexp.MustCompile(`; trace ([0-9a-f]{32})\n`).FindStringSubmatch(res.Stderr); m == nil {
		t.Errorf("jobtrace's stderr has no \"; trace <id>\" line")
	} else if m[1] != traceID {
		t.Errorf("jobtrace's stderr says trace %s, the spool %s", m[1], traceID)
	}
	phaseSpans := map[string]span{}
	for _, name := range metricsJobPhases {
		s, ok := findSpan(spans, name)
		if !ok {
			t.Fatalf("the spool has no span %s:\n%s", name, renderTree(spans, allSpans))
		}
		phaseSpans[name] = s
	}
	spanNames := map[string]string{}
	for _, s := range spans {
		spanNames[s.SpanID] = s.Name
	}

	// Metrics are not spooled: everything jobtrace sent, it sent before it
	// exited (its MeterProvider is shut down at the end of the job). Poll
	// until the collector has written all the metrics this machine gives,
	// both phases included, or a minute has passed.
	var want []string
	for _, d := range docs {
		if f, ok := mach.figures[d.Name]; ok && f.state == figureGiven {
			want = append(want, d.Name)
		}
	}
	var got []receivedMetric
	var exports int
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = poll(ctx, 200*time.Millisecond, func() error {
		var err error
		if got, exports, err = readMetricsFile(collector.MetricsFile); err != nil {
			return err
		}
		return missingMetrics(got, want)
	})
	if err != nil {
		t.Errorf("waiting for the collector to write the metrics: %v", err)
	}
	byName := map[string][]receivedMetric{}
	for _, m := range got {
		byName[m.Name] = append(byName[m.Name], m)
	}
	logReceived(t, exports, docs, byName, mach, spanNames)

	documented := map[string]bool{}
	for _, d := range docs {
		documented[d.Name] = true
	}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		if !documented[name] {
			t.Errorf("received %s, which docs/metrics.md does not list", name)
		}
	}

	periodicSpans := map[string]int{} // exemplars of the periodic metrics, by span name
	for _, d := range docs {
		ms := byName[d.Name]
		f, probed := mach.figures[d.Name]
		if !probed {
			// A metric added to the docs needs its figure probed, or the
			// test would never ask for it.
			t.Errorf("docs/metrics.md lists %s, which probeMachine does not know: say which file gives it", d.Name)
			f = figure{state: figureMaybe, why: "not probed"}
		}
		if len(ms) == 0 {
			if f.state == figureGiven {
				t.Errorf("%s: not received, though this machine gives it (%s)", d.Name, f.why)
			}
			continue
		}
		if f.state == figureAbsent {
			t.Errorf("%s: received, though this machine does not give it (%s): docs/metrics.md says such a figure has no data points", d.Name, f.why)
		}
		checkMetric(t, d, ms, traceID, spanNames, buckets)
		last := ms[len(ms)-1]
		if strings.HasPrefix(d.Name, "jobtrace.phase.") {
			checkPhaseMetric(t, d, last, phaseSpans, mach, filepath.Join(out, "resource-usage.csv"))
		} else {
			for _, p := range last.Points {
				for _, e := range p.Exemplars {
					periodicSpans[spanNames[e.SpanID]]++
				}
			}
		}
		if d.Name == "jobtrace.system.pressure.stall" {
			checkPressure(t, last, mach.pressure)
		}
	}
	// The samples taken in a phase are recorded in its context, so some
	// exemplars of the periodic metrics point at the phases.
	inPhases := 0
	for _, name := range metricsJobPhases {
		inPhases += periodicSpans[name]
	}
	t.Logf("exemplars of the periodic metrics, by span: %v", periodicSpans)
	if inPhases == 0 {
		t.Errorf("no exemplar of the periodic metrics points at a phase span (%v); by span: %v", metricsJobPhases, periodicSpans)
	}

	checkMetricsResource(t, got, spans[0].Resource, serviceName, mach.hostID)
}

// missingMetrics says which of want are not in got yet, and which phases
// the per-phase histograms do not have yet.
func missingMetrics(got []receivedMetric, want []string) error {
	have := map[string]bool{}
	phases := map[string]bool{}
	for _, m := range got {
		have[m.Name] = true
		if m.Name == "jobtrace.phase.duration" {
			for _, p := range m.Points {
				phases[p.Attrs["jobtrace.phase.name"]] = true
			}
		}
	}
	var missing []string
	for _, name := range want {
		if !have[name] {
			missing = append(missing, name)
		}
	}
	for _, name := range metricsJobPhases {
		if !phases[name] {
			missing = append(missing, "jobtrace.phase.duration of "+name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("not received yet: %s", strings.Join(missing, ", "))
	}
	return nil
}

// checkMetric checks every export of one metric against its row in the docs:
// unit, kind, description, cumulative temporality, attribute keys, histogram
// buckets, and exemplars of the job's trace on every data point of the last
// export.
func checkMetric(t *testing.T, d docMetric, ms []receivedMetric, traceID string, spanNames map[string]string, buckets map[string][]float64) {
	t.Helper()
	for i, m := range ms {
		if m.Unit != d.Unit {
			t.Errorf("%s (export %d): unit %q, docs/metrics.md %q", d.Name, i+1, m.Unit, d.Unit)
		}
		if m.Kind != d.Kind {
			t.Errorf("%s (export %d): received as a %s, docs/metrics.md says %s", d.Name, i+1, m.Kind, d.Kind)
		}
		if m.Description != d.Description {
			t.Errorf("%s (export %d): description\n\t%q\ndocs/metrics.md\n\t%q", d.Name, i+1, m.Description, d.Description)
		}
		if (m.Kind != kindGauge) && m.Temporality != temporalityCumulative {
			t.Errorf("%s (export %d): aggregation temporality %d, want cumulative (%d) as docs/metrics.md says", d.Name, i+1, m.Temporality, temporalityCumulative)
		}
	}
	last := ms[len(ms)-1]
	if len(last.Points) == 0 {
		t.Errorf("%s: the last export has no data points", d.Name)
		return
	}
	declared := map[string]bool{}
	for _, a := range d.Attrs {
		declared[a] = true
	}
	seen := map[string]bool{}
	noExemplar := 0
	for _, p := range last.Points {
		for k := range p.Attrs {
			seen[k] = true
			if !declared[k] {
				t.Errorf("%s: a data point carries %s=%q; docs/metrics.md declares %v", d.Name, k, p.Attrs[k], d.Attrs)
			}
		}
		if len(p.Exemplars) == 0 {
			noExemplar++
		}
		for _, e := range p.Exemplars {
			if e.TraceID != traceID {
				t.Errorf("%s %v: exemplar of trace %s, want the job's %s", d.Name, p.Attrs, e.TraceID, traceID)
			}
			if _, ok := spanNames[e.SpanID]; !ok {
				t.Errorf("%s %v: exemplar of span %s, which is not in the spool", d.Name, p.Attrs, e.SpanID)
			}
		}
		if d.Kind == kindHistogram {
			key := d.Unit
			if strings.HasPrefix(d.Name, "jobtrace.job.") {
				key = "job " + d.Unit
			}
			if want := buckets[key]; !slices.Equal(p.Bounds, want) {
				t.Errorf("%s %v: bucket boundaries %v, docs/metrics.md %v", d.Name, p.Attrs, p.Bounds, want)
			}
		}
	}
	for _, a := range d.Attrs {
		if seen[a] {
			continue
		}
		if why, ok := optionalAttrs[d.Name][a]; ok {
			t.Logf("%s: no data point carries %s (%s)", d.Name, a, why)
			continue
		}
		t.Errorf("%s: no data point carries %s, which docs/metrics.md declares", d.Name, a)
	}
	if noExemplar > 0 {
		t.Errorf("%s: %d of %d data points carry no exemplar; every measurement is recorded in a sampled span's context", d.Name, noExemplar, len(last.Points))
	}
}

// checkPhaseMetric checks a per-phase histogram: one observation per phase
// of the job and result success, its exemplar the phase's span, and values
// that fit what the phase did.
func checkPhaseMetric(t *testing.T, d docMetric, m receivedMetric, phaseSpans map[string]span, mach machine, csvPath string) {
	t.Helper()
	type key struct{ phase, dir string }
	points := map[key]metricPoint{}
	for _, p := range m.Points {
		k := key{p.Attrs["jobtrace.phase.name"], p.Attrs["disk.io.direction"]}
		if _, dup := points[k]; dup {
			t.Errorf("%s: two data points for %v", d.Name, p.Attrs)
		}
		points[k] = p
		if r := p.Attrs["cicd.pipeline.task.run.result"]; slices.Contains(d.Attrs, "cicd.pipeline.task.run.result") && r != "success" {
			t.Errorf("%s %v: result %q, want success", d.Name, p.Attrs, r)
		}
		if d.Kind == kindHistogram && p.Count != 1 || d.Kind != kindHistogram && p.Value != 1 {
			t.Errorf("%s %v: count %d, value %g; want 1 (the phase ended once)", d.Name, p.Attrs, p.Count, p.Value)
		}
		s, ok := phaseSpans[k.phase]
		if !ok {
			t.Errorf("%s: a data point for phase %q, which the job does not have", d.Name, k.phase)
			continue
		}
		if len(p.Exemplars) != 1 || p.Exemplars[0].SpanID != s.SpanID {
			t.Errorf("%s %v: exemplars %v, want one of the phase's span %s", d.Name, p.Attrs, p.Exemplars, s.SpanID)
		}
	}
	dirs := []string{""}
	if slices.Contains(d.Attrs, "disk.io.direction") {
		dirs = []string{"read", "write"}
	}
	for _, phase := range metricsJobPhases {
		for _, dir := range dirs {
			if _, ok := points[key{phase, dir}]; !ok {
				t.Errorf("%s: no data point for phase %s%s", d.Name, phase, map[bool]string{true: " direction " + dir}[dir != ""])
			}
		}
	}
	switch d.Name {
	case "jobtrace.phase.duration":
		// The phase spins for 0.5 s under `timeout`. Its begin and end are
		// when jobtrace reads the marker lines, either of which can lag on
		// a busy machine: only a duration far off 0.5 s is wrong.
		if p, ok := points[key{"cpu-busy", ""}]; ok && (p.Sum < 0.25 || p.Sum > 30) {
			t.Errorf("%s: cpu-busy lasted %gs, want about 0.5s", d.Name, p.Sum)
		}
	case "jobtrace.phase.cpu.time":
		if p, ok := points[key{"cpu-busy", ""}]; ok && p.Sum <= 0 {
			t.Errorf("%s: cpu-busy used %gs of CPU, want more than 0 (it spins for 0.5s)", d.Name, p.Sum)
		}
	case "jobtrace.phase.memory.peak":
		for _, phase := range metricsJobPhases {
			if p, ok := points[key{phase, ""}]; ok && p.Sum <= 0 {
				t.Errorf("%s: %s peaked at %g bytes, want more than 0 (a shell runs)", d.Name, phase, p.Sum)
			}
		}
	case "jobtrace.phase.verdicts":
		// The verdict counted is the one the phase span carries.
		for _, phase := range metricsJobPhases {
			if p, ok := points[key{phase, ""}]; ok && p.Attrs["jobtrace.phase.verdict"] != phaseSpans[phase].Attrs["jobtrace.phase.verdict"] {
				t.Errorf("%s: %s counted as %q, its span says %q", d.Name, phase, p.Attrs["jobtrace.phase.verdict"], phaseSpans[phase].Attrs["jobtrace.phase.verdict"])
			}
		}
	case "jobtrace.phase.disk.io":
		p, ok := points[key{"write-fsync", "write"}]
		switch {
		case !ok:
		case !mach.writesReachDisk:
			t.Logf("%s: write-fsync wrote %g bytes; the work directory is on tmpfs, so 0 is fine", d.Name, p.Sum)
		case p.Sum < 8<<20:
			// The phase span carries the same window's figures
			// (docs/attributes.md), which tells a wrong window from a
			// wrong metric.
			s := phaseSpans["write-fsync"]
			t.Errorf("%s: write-fsync wrote %g bytes, want at least 8 MiB (dd conv=fsync of 8 MiB); the phase span says jobtrace.usage.disk.write=%q",
				d.Name, p.Sum, s.Attrs["jobtrace.usage.disk.write"])
			// Where the job's IO was seen: docs/csv.md leaves the tree's
			// cells empty in a row where the tree was not walked.
			t.Logf("%s, the job's columns:\n%s", csvPath, csvColumns(csvPath,
				"elapsed_s", "reason", "phase", "job_processes_count", "job_write_bytes"))
		}
	}
}

// csvColumns renders the named columns of a CSV file as aligned text, an
// empty cell as "(empty)".
func csvColumns(path string, names ...string) string {
	f, err := os.Open(path)
	if err != nil {
		return err.Error()
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) == 0 {
		return fmt.Sprintf("%s: %v", path, err)
	}
	var idx []int
	for _, n := range names {
		if i := slices.Index(rows[0], n); i >= 0 {
			idx = append(idx, i)
		}
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	for _, row := range rows {
		for _, i := range idx {
			cell := "(empty)"
			if i < len(row) && row[i] != "" {
				cell = row[i]
			}
			fmt.Fprint(tw, cell, "\t")
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	return b.String()
}

// checkPressure checks that the machine-wide stall time has a series for
// each (resource, kind) of /proc/pressure, and no cpu/full.
func checkPressure(t *testing.T, m receivedMetric, want map[[2]string]bool) {
	t.Helper()
	got := map[[2]string]bool{}
	for _, p := range m.Points {
		got[[2]string{p.Attrs["jobtrace.pressure.resource"], p.Attrs["jobtrace.pressure.kind"]}] = true
	}
	if !maps.Equal(got, want) {
		t.Errorf("%s: series (resource, kind) %v, want those of /proc/pressure without cpu/full: %v",
			m.Name, slices.SortedFunc(maps.Keys(got), cmpPair), slices.SortedFunc(maps.Keys(want), cmpPair))
	}
}

func cmpPair(a, b [2]string) int { return strings.Compare(a[0]+"/"+a[1], b[0]+"/"+b[1]) }

// checkMetricsResource checks that every metric carries the run's resource:
// the one its spans carry (docs/resource.md: one resource for spans and
// metrics), with the configured service.name and the host's attributes.
func checkMetricsResource(t *testing.T, got []receivedMetric, spanResource map[string]string, serviceName, hostID string) {
	t.Helper()
	if len(got) == 0 {
		return
	}
	res := got[0].Resource
	for _, m := range got[1:] {
		if !maps.Equal(m.Resource, res) {
			t.Errorf("%s has resource %v, %s %v: one run, one resource", m.Name, m.Resource, got[0].Name, res)
			break
		}
	}
	t.Logf("resource of the metrics: %v", res)
	if !maps.Equal(res, spanResource) {
		t.Errorf("the metrics' resource %v differs from the spans' %v", res, spanResource)
	}
	if res["service.name"] != serviceName {
		t.Errorf("service.name = %q, want %q (OTEL_SERVICE_NAME)", res["service.name"], serviceName)
	}
	if host, err := os.Hostname(); err == nil && res["host.name"] != host {
		t.Errorf("host.name = %q, want %q", res["host.name"], host)
	}
	if arch := runtime.GOARCH; (arch == "amd64" || arch == "arm64") && res["host.arch"] != arch {
		t.Errorf("host.arch = %q, want %q", res["host.arch"], arch)
	}
	if res["os.type"] != runtime.GOOS {
		t.Errorf("os.type = %q, want %q", res["os.type"], runtime.GOOS)
	}
	if id, ok := res["host.id"]; hostID == "" && ok {
		t.Errorf("host.id = %q; docs/resource.md leaves it out in a container or without a machine ID", id)
	} else if hostID != "" && id != hostID {
		t.Errorf("host.id = %q, want the machine ID %q", id, hostID)
	}
}

// logReceived notes what the collector received: per metric its kind, unit,
// data points, exemplars and values in the last export, and for the figures
// not received why the machine does not give them.
func logReceived(t *testing.T, exports int, docs []docMetric, byName map[string][]receivedMetric, mach machine, spanNames map[string]string) {
	t.Helper()
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tkind\tunit\texports\tpoints\texemplars\tvalues in the last export")
	for _, d := range docs {
		ms := byName[d.Name]
		if len(ms) == 0 {
			f := mach.figures[d.Name]
			fmt.Fprintf(tw, "%s\t–\t–\t0\t0\t0\tnot received (machine: %s)\n", d.Name, f.why)
			continue
		}
		last := ms[len(ms)-1]
		ex := 0
		var values []string
		for _, p := range last.Points {
			ex += len(p.Exemplars)
			// The point's attribute values in the docs' order, and its
			// value (a histogram's sum).
			var label []string
			for _, a := range d.Attrs {
				if v, ok := p.Attrs[a]; ok && a != "cicd.pipeline.task.run.result" {
					label = append(label, v)
				}
			}
			v := p.Value
			if last.Kind == kindHistogram {
				v = p.Sum
			}
			values = append(values, strings.TrimPrefix(strings.Join(label, "/")+"=", "=")+strconv.FormatFloat(v, 'g', 4, 64))
		}
		slices.Sort(values)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%s\n", d.Name, last.Kind, last.Unit, len(ms), len(last.Points), ex, strings.Join(values, " "))
	}
	tw.Flush()
	t.Logf("the collector wrote %d metric exports; metrics received:\n%s", exports, b.String())
}

// TestMetricsExporterNone checks that OTEL_METRICS_EXPORTER=none stops the
// metrics and nothing else: the collector receives the job's spans and not
// one metric.
func TestMetricsExporterNone(t *testing.T) {
	requireJobtrace(t)
	collector := StartFileCollector(t)
	work := t.TempDir()
	out := filepath.Join(t.TempDir(), "out")
	script, err := filepath.Abs(filepath.Join("testdata", "metrics-job.sh"))
	if err != nil {
		t.Fatal(err)
	}
	env := jobEnv(collector.GRPCEndpoint(), "grpc", "E2E_WORK="+work, "OTEL_METRICS_EXPORTER=none")

	res := runJobtrace(t, env, "run", "--out", out, "--name", "metrics", "--interval", "200ms",
		"--export-timeout", "10s", "--", "sh", script)
	t.Logf("jobtrace run took %s; stderr:\n%s", res.Elapsed.Round(time.Millisecond), res.Stderr)
	if res.ExitCode != 0 {
		t.Fatalf("jobtrace run exited %d, want 0\nstdout:\n%s\nstderr:\n%s", res.ExitCode, res.Stdout, res.Stderr)
	}
	fileSpans, _ := jobSpans(t, out, "metrics")

	var received []span
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err = poll(ctx, 200*time.Millisecond, func() error {
		spans, err := readSpansFile(collector.TracesFile)
		if err != nil {
			return err // not written yet, or a line being written
		}
		received = spans
		if len(received) < len(fileSpans) {
			return fmt.Errorf("%d of the %d spans received", len(received), len(fileSpans))
		}
		return nil
	})
	if err != nil {
		t.Errorf("waiting for the collector to write the spans: %v", err)
	}
	// Stopped gracefully, the collector writes whatever it still holds: a
	// metric that reached it is in the file after this.
	collector.Stop(t)
	received, err = readSpansFile(collector.TracesFile)
	if err != nil {
		t.Fatal(err)
	}
	checkReceivedOnce(t, received, fileSpans)

	metrics, exports, err := readMetricsFile(collector.MetricsFile)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	t.Logf("with OTEL_METRICS_EXPORTER=none the collector received %d spans and %d metric exports (%d metrics)", len(received), exports, len(metrics))
	if exports > 0 || len(metrics) > 0 {
		var names []string
		for _, m := range metrics {
			names = append(names, m.Name)
		}
		t.Errorf("with OTEL_METRICS_EXPORTER=none the collector received %d metric exports: %s", exports, strings.Join(names, ", "))
	}
}

// checkReceivedOnce fails unless every span of want is in got exactly once
// and got has no other span.
func checkReceivedOnce(t *testing.T, got, want []span) {
	t.Helper()
	count := map[string]int{}
	for _, s := range got {
		count[s.SpanID]++
	}
	wanted := map[string]bool{}
	for _, s := range want {
		wanted[s.SpanID] = true
		if n := count[s.SpanID]; n != 1 {
			t.Errorf("span %q (%s) was received %d times, want once", s.Name, s.SpanID, n)
		}
	}
	for _, s := range got {
		if !wanted[s.SpanID] {
			t.Errorf("received span %q (%s), which is not in the spool", s.Name, s.SpanID)
		}
	}
}
