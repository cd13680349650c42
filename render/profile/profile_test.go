package profile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/runmodel"
)

// testdata/run holds the artifacts of a real run of testdata/job.sh
// (jobtrace run --interval 100ms): phases build, compile in it, link in
// compile, an event on compile, a failing 'jobtrace exec unit-tests', and
// a ::group:: upload.
const fixture = "testdata/run"

// writeFixture copies the fixture to a temporary dir and writes the
// profile there; it returns the decoded JSON, as the profiler reads it.
func writeFixture(t *testing.T) map[string]any {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{"spans.otlp.jsonl", usagecsv.FileName} {
		data, err := os.ReadFile(filepath.Join(fixture, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Write(dir, readFixture(t)); err != nil {
		t.Fatalf("Write: %v", err)
	}
	data, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	var p map[string]any
	if err := json.Unmarshal(data, &p); err != nil {
		t.Fatal(err)
	}
	return p
}

func readFixture(t *testing.T) *runmodel.Run {
	t.Helper()
	run, warn, err := runmodel.ReadDir(fixture)
	if err != nil || warn != nil {
		t.Fatalf("ReadDir: %v, warn %v", err, warn)
	}
	return run
}

// The profile of the fixture is byte for byte testdata/profile.json.golden,
// written by this package and checked in the Firefox Profiler: a change of
// the output is seen, and the golden file written again on purpose.
func TestGolden(t *testing.T) {
	dir := t.TempDir()
	if err := Write(dir, readFixture(t)); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, FileName))
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/profile.json.golden")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("profile.json differs from testdata/profile.json.golden")
	}
}

func obj(t *testing.T, v any, path string) map[string]any {
	t.Helper()
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("%s: not an object: %T", path, v)
	}
	return m
}

func arr(t *testing.T, m map[string]any, key, path string) []any {
	t.Helper()
	a, ok := m[key].([]any)
	if !ok {
		t.Fatalf("%s.%s: not an array: %T", path, key, m[key])
	}
	return a
}

// checkTable checks that a column table has its length and every listed
// column as an array of that length.
func checkTable(t *testing.T, m map[string]any, path string, columns ...string) int {
	t.Helper()
	n, ok := m["length"].(float64)
	if !ok {
		t.Fatalf("%s.length missing", path)
	}
	for _, c := range columns {
		if got := len(arr(t, m, c, path)); got != int(n) {
			t.Errorf("%s.%s: %d entries, length %d", path, c, got, int(n))
		}
	}
	return int(n)
}

// checkStructure checks what the profiler needs of a processed profile
// without samples, on the decoded JSON.
func checkStructure(t *testing.T, p map[string]any) {
	t.Helper()
	for _, k := range []string{"meta", "libs", "shared", "threads", "counters"} {
		if _, ok := p[k]; !ok {
			t.Errorf("no top-level %q", k)
		}
	}
	meta := obj(t, p["meta"], "meta")
	if v := meta["preprocessedProfileVersion"]; v != float64(FormatVersion) {
		t.Errorf("meta.preprocessedProfileVersion = %v, want %d", v, FormatVersion)
	}
	for _, k := range []string{"interval", "startTime", "version", "processType", "stackwalk", "product"} {
		if _, ok := meta[k]; !ok {
			t.Errorf("no meta.%s", k)
		}
	}
	cats := arr(t, meta, "categories", "meta")
	grey := false
	for _, c := range cats {
		cm := obj(t, c, "category")
		grey = grey || cm["color"] == "grey"
		if len(arr(t, cm, "subcategories", "category")) == 0 {
			t.Errorf("category %v has no subcategory", cm["name"])
		}
	}
	if !grey {
		t.Error("no grey (default) category")
	}
	schemas := map[string]map[string]bool{}
	for _, s := range arr(t, meta, "markerSchema", "meta") {
		sm := obj(t, s, "markerSchema")
		keys := map[string]bool{}
		for _, f := range arr(t, sm, "fields", "markerSchema") {
			fm := obj(t, f, "field")
			if fm["key"] == "" || fm["format"] == "" {
				t.Errorf("schema %v: field without key or format: %v", sm["name"], fm)
			}
			keys[fm["key"].(string)] = true
		}
		if len(arr(t, sm, "display", "markerSchema")) == 0 {
			t.Errorf("schema %v shown nowhere", sm["name"])
		}
		schemas[sm["name"].(string)] = keys
	}

	shared := obj(t, p["shared"], "shared")
	strs := arr(t, shared, "stringArray", "shared")
	for _, tb := range []string{"stackTable", "frameTable", "funcTable", "resourceTable", "nativeSymbols", "sources"} {
		checkTable(t, obj(t, shared[tb], tb), "shared."+tb)
	}

	threads := arr(t, p, "threads", "")
	if len(threads) == 0 {
		t.Fatal("no thread")
	}
	th := obj(t, threads[0], "thread")
	checkTable(t, obj(t, th["samples"], "samples"), "samples", "stack", "time")
	m := obj(t, th["markers"], "markers")
	n := checkTable(t, m, "markers", "data", "name", "startTime", "endTime", "phase", "category")
	names, starts, ends := arr(t, m, "name", ""), arr(t, m, "startTime", ""), arr(t, m, "endTime", "")
	phases, mcats, data := arr(t, m, "phase", ""), arr(t, m, "category", ""), arr(t, m, "data", "")
	for i := 0; i < n; i++ {
		ni, ok := names[i].(float64)
		if !ok || int(ni) < 0 || int(ni) >= len(strs) || ni != float64(int(ni)) {
			t.Errorf("marker %d: name %v not an index into the %d strings", i, names[i], len(strs))
		}
		if ci, ok := mcats[i].(float64); !ok || int(ci) >= len(cats) || ci < 0 {
			t.Errorf("marker %d: category %v not an index into the %d categories", i, mcats[i], len(cats))
		}
		d := obj(t, data[i], "data")
		keys, ok := schemas[d["type"].(string)]
		if !ok {
			t.Errorf("marker %d: data.type %v has no schema", i, d["type"])
		}
		for k := range d {
			if k != "type" && !keys[k] {
				t.Errorf("marker %d: data.%s not in schema %v", i, k, d["type"])
			}
		}
		switch phases[i] {
		case float64(PhaseInterval):
			s, e := starts[i].(float64), ends[i].(float64)
			if s > e || s < 0 {
				t.Errorf("marker %d: start %v end %v", i, s, e)
			}
		case float64(PhaseInstant):
			if ends[i] != nil {
				t.Errorf("marker %d: instant with end %v", i, ends[i])
			}
		default:
			t.Errorf("marker %d: phase %v", i, phases[i])
		}
	}

	for i, c := range arr(t, p, "counters", "") {
		cm := obj(t, c, "counter")
		if cm["pid"] != th["pid"] || cm["mainThreadIndex"] != float64(0) {
			t.Errorf("counter %v: pid %v / thread %v, want the thread's pid %v and 0", cm["name"], cm["pid"], cm["mainThreadIndex"], th["pid"])
		}
		s := obj(t, cm["samples"], "samples")
		ln := checkTable(t, s, "counter samples", "time", "count")
		times := arr(t, s, "time", "")
		for j := 1; j < ln; j++ {
			if times[j].(float64) <= times[j-1].(float64) {
				t.Errorf("counter %d: time %d %v after %v", i, j, times[j], times[j-1])
			}
		}
		d := obj(t, cm["display"], "display")
		if d["graphType"] != "line-rate" && d["graphType"] != "line-accumulated" {
			t.Errorf("counter %v: graphType %v", cm["name"], d["graphType"])
		}
		if (cm["category"] == "Memory") != (d["graphType"] == "line-accumulated") {
			t.Errorf("counter %v: category %v drawn %v", cm["name"], cm["category"], d["graphType"])
		}
	}
}

func TestFixtureStructure(t *testing.T) {
	checkStructure(t, writeFixture(t))
}

// markersByName returns the markers of the profile's thread by name.
func markersByName(t *testing.T, p map[string]any) map[string][]map[string]any {
	strs := arr(t, obj(t, p["shared"], ""), "stringArray", "")
	m := obj(t, obj(t, arr(t, p, "threads", "")[0], "")["markers"], "")
	out := map[string][]map[string]any{}
	names, starts, ends, phases, cats, data := arr(t, m, "name", ""), arr(t, m, "startTime", ""), arr(t, m, "endTime", ""), arr(t, m, "phase", ""), arr(t, m, "category", ""), arr(t, m, "data", "")
	for i := range names {
		name := strs[int(names[i].(float64))].(string)
		out[name] = append(out[name], map[string]any{"start": starts[i], "end": ends[i], "phase": phases[i], "category": cats[i], "data": data[i]})
	}
	return out
}

func TestFixtureEveryPhaseAMarker(t *testing.T) {
	p := writeFixture(t)
	run := readFixture(t)
	spans := append([]runmodel.Span{run.Job}, run.Phases...)
	byName := markersByName(t, p)
	phases := 0
	for _, ms := range byName {
		for _, m := range ms {
			if m["phase"] == float64(PhaseInterval) {
				phases++
			}
		}
	}
	if phases != len(spans) {
		t.Errorf("%d interval markers for %d spans", phases, len(spans))
	}
	want := map[string]struct {
		depth  float64
		result string
		cat    int
		color  string
	}{
		"sh":                {0, "success", catPhase, "blue"},
		"build":             {1, "success", catPhase, "blue"},
		"compile":           {2, "success", catPhase, "blue"},
		"link":              {3, "success", catPhase, "blue"},
		"unit-tests":        {1, "failure", catPhase, "red"},
		"upload":            {1, "success", catPhase, "blue"},
		"jobtrace startup":  {1, "", catOther, "grey"},
		"jobtrace shutdown": {1, "", catOther, "grey"},
	}
	for name, w := range want {
		ms := byName[name]
		if len(ms) != 1 {
			t.Errorf("%s: %d markers", name, len(ms))
			continue
		}
		d := ms[0]["data"].(map[string]any)
		if d["depth"] != w.depth || (w.result != "" && d["result"] != w.result) || ms[0]["category"] != float64(w.cat) || d["color"] != w.color {
			t.Errorf("%s: depth %v result %v category %v color %v, want %+v", name, d["depth"], d["result"], ms[0]["category"], d["color"], w)
		}
	}
	compile := byName["compile"][0]["data"].(map[string]any)
	if compile["parent"] != "build" || byName["link"][0]["data"].(map[string]any)["parent"] != "compile" {
		t.Errorf("compile and link are not inside build and compile: %v", compile)
	}
	for _, k := range []string{"cpu", "memoryPeak", "cpuAvg", "diskWrite"} {
		if _, ok := compile[k]; !ok {
			t.Errorf("compile has no %s: %v", k, compile)
		}
	}
	if compile["diskWrite"].(float64) < 20<<20 {
		t.Errorf("compile wrote %v bytes, the job wrote 20 MiB there", compile["diskWrite"])
	}
	ev := byName["cache-miss"]
	if len(ev) != 1 || ev[0]["phase"] != float64(PhaseInstant) {
		t.Fatalf("cache-miss: %v", ev)
	}
	d := ev[0]["data"].(map[string]any)
	if d["phase"] != "compile" || d["attributes"] != "key=deps" || d["source"] != "socket" || ev[0]["category"] != float64(catEvent) {
		t.Errorf("cache-miss data: %v, category %v", d, ev[0]["category"])
	}
	c := byName["compile"][0]
	if s, e := ev[0]["start"].(float64), c["end"].(float64); s < c["start"].(float64) || s > e {
		t.Errorf("cache-miss at %v, outside compile %v..%v", s, c["start"], e)
	}
}

func TestFixtureCounters(t *testing.T) {
	var rows []Row
	for _, r := range readFixture(t).Rows {
		rows = append(rows, rowOf(&r))
	}
	p := writeFixture(t)
	counters := arr(t, p, "counters", "")
	want := []string{"jobCPU", "jobMemory", "jobDiskIO", "hostNetworkIO"}
	if len(counters) != len(want) {
		t.Fatalf("%d counters, want %v", len(counters), want)
	}
	var cpu, disk float64
	for _, r := range rows {
		if r.CPU.OK {
			cpu += r.CPU.V * 1000
		}
		if r.Disk.OK {
			disk += r.Disk.V
		}
	}
	for i, name := range want {
		c := counters[i].(map[string]any)
		if c["name"] != name {
			t.Errorf("counter %d is %v, want %s", i, c["name"], name)
		}
		s := c["samples"].(map[string]any)
		sum := 0.0
		times := s["time"].([]any)
		for i, v := range s["count"].([]any) {
			if times[i].(float64) >= 0 { // not the CPU counter's reference samples
				sum += v.(float64)
			}
		}
		switch name {
		case "jobCPU":
			if diff := sum - cpu; diff > 0.01 || diff < -0.01 {
				t.Errorf("CPU counts sum to %v ms, the CSV to %v", sum, cpu)
			}
		case "jobDiskIO":
			if sum != disk || disk < 20<<20 {
				t.Errorf("disk counts sum to %v, the CSV to %v", sum, disk)
			}
		case "jobMemory":
			// The running total of the deltas is the last value.
			last := 0.0
			for _, r := range rows {
				if r.Memory.OK {
					last = r.Memory.V
				}
			}
			if sum != last {
				t.Errorf("memory deltas sum to %v, last value %v", sum, last)
			}
		}
	}
}

const csvHeader = "time_utc,elapsed_s,reason,phase,job_cpu_user_s,job_cpu_system_s,job_memory_bytes,job_read_bytes,job_write_bytes,host_net_rx_bytes,host_net_tx_bytes,host_cpus_count\n"

// A row's figures are the sums of their columns, absent when a column is.
func TestRowOf(t *testing.T) {
	dir := t.TempDir()
	data := csvHeader +
		"2026-11-29T21:35:45.123Z,0,start,,,,100,,,,,2\n" +
		"2026-11-29T21:35:46.123Z,1,interval,\"a,b\",0.5,0.25,300,10,20,1,2,2\n" +
		"2026-11-29T21:35:46.124Z,1.001,boundary,,,0.5,,,,,,2\n"
	if err := os.WriteFile(filepath.Join(dir, usagecsv.FileName), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	run, warn, err := runmodel.ReadDir(dir)
	if err != nil || warn != nil || len(run.Rows) != 3 {
		t.Fatalf("ReadDir: %v, warn %v", err, warn)
	}
	var rows []Row
	for _, r := range run.Rows {
		rows = append(rows, rowOf(&r))
	}
	r := rows[1]
	if r.CPU != (Opt{0.75, true}) || r.Memory != (Opt{300, true}) || r.Disk != (Opt{30, true}) || r.Net != (Opt{3, true}) || r.CPUs != (Opt{2, true}) {
		t.Errorf("row 1: %+v", r)
	}
	if rows[0].CPU.OK || rows[2].CPU.OK || rows[2].Memory.OK || !rows[0].Memory.OK {
		t.Errorf("empty cells must be absent: %+v %+v", rows[0], rows[2])
	}
}

func TestCountersSkipAbsentAndMergeSameTime(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	rows := []Row{
		{Time: at(0), Memory: Opt{100, true}},
		{Time: at(1000), CPU: Opt{0.5, true}, Memory: Opt{300, true}},
		{Time: at(1000), CPU: Opt{0.25, true}, Memory: Opt{200, true}}, // same ms: merged
		{Time: at(2000)}, // absent everywhere
		{Time: at(3000), CPU: Opt{1, true}, Memory: Opt{250, true}},
	}
	p := build(&runmodel.Run{}, nil, rows)
	cpu, mem := p.Counters[0].Samples, p.Counters[1].Samples
	if want := []float64{0, 1000, 3000}; !slices.Equal(cpu.Time, want) || !slices.Equal(cpu.Count, []float64{0, 750, 1000}) {
		t.Errorf("cpu: %+v", cpu)
	}
	if !slices.Equal(mem.Time, []float64{0, 1000, 3000}) || !slices.Equal(mem.Count, []float64{100, 100, 50}) {
		t.Errorf("memory: %+v", mem)
	}
	if p.Meta.Interval != 1000 {
		t.Errorf("interval %v", p.Meta.Interval)
	}
}

func span(id, parent byte, name string, start, end uint64, attrs ...attribute.KeyValue) runmodel.Span {
	return runmodel.Span{ID: trace.SpanID{id}, Parent: trace.SpanID{parent}, Name: name,
		Start: time.Unix(0, int64(start)).UTC(), End: time.Unix(0, int64(end)).UTC(), Attributes: attrs}
}

func TestBuildSpansOnly(t *testing.T) {
	const s = uint64(1_700_000_000_000_000_000)
	spans := []runmodel.Span{
		span(3, 2, "inner", s+2e6, s+3e6),
		span(2, 1, "outer", s+1e6, s+4e6),
		// an outer trace's parent, not in the file: this is the root
		span(1, 9, "job", s, s+5e6, attrPid.Int(42), runmodel.AttrTaskName.String("job")),
		// a cycle must not hang
		span(5, 6, "a", s, s+1e6),
		span(6, 5, "b", s, s+1e6),
		// ends before it starts: drawn as an instant-long interval
		span(7, 1, "clock", s+3e6, s+2e6),
	}
	spans[1].Events = []runmodel.Event{{Name: "ev", Time: time.Unix(0, int64(s+15e5)).UTC()}}
	p, err := Build(runmodel.New(spans, nil))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.NewEncoder(&buf).Encode(p); err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(buf.Bytes(), &m); err != nil {
		t.Fatal(err)
	}
	checkStructure(t, m)
	byName := markersByName(t, m)
	if d := byName["inner"]; len(d) != 1 || d[0]["data"].(map[string]any)["depth"] != float64(2) || d[0]["data"].(map[string]any)["parent"] != "outer" {
		t.Errorf("inner: %v", d)
	}
	if p.Threads[0].Pid != "42" || p.Threads[0].Name != "job" || p.Meta.StartTime != float64(s/1e6) {
		t.Errorf("thread %q pid %q, start %v", p.Threads[0].Name, p.Threads[0].Pid, p.Meta.StartTime)
	}
	if ev := byName["ev"]; len(ev) != 1 || ev[0]["start"] != 1.5 {
		t.Errorf("ev: %v", ev)
	}
	if _, err := Build(runmodel.New(nil, nil)); !errors.Is(err, ErrEmpty) {
		t.Errorf("nothing: %v", err)
	}
}

// A run whose agent was killed leaves torn last lines: the profile is
// still written, and the lines are reported.
func TestWriteTornArtifacts(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"spans.otlp.jsonl", usagecsv.FileName} {
		data, err := os.ReadFile(filepath.Join(fixture, name))
		if err != nil {
			t.Fatal(err)
		}
		data = append(data, `{"resourceSpans":[{"scopeSp`...)
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run, warn, err := runmodel.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if warn == nil || strings.Count(warn.Error(), "\n") != 1 {
		t.Errorf("want two reports, got %v", warn)
	}
	if err := Write(dir, run); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, FileName)); err != nil {
		t.Error(err)
	}
}

// The profile of nested phases grows with their number, not with the
// square of it: a marker holds its phase's own name, not the names of all
// the phases above it.
func TestNestedPhasesCostLinearly(t *testing.T) {
	size := func(n int) int {
		const s = uint64(1_700_000_000_000_000_000)
		var spans []runmodel.Span
		for i := range n {
			sp := span(0, 0, strings.Repeat("x", 250)+fmt.Sprintf("%06d", i), s+uint64(i)*1e6, s+uint64(2*n-i)*1e6)
			sp.ID = trace.SpanID([]byte(fmt.Sprintf("%08d", i+1)))
			if i > 0 {
				sp.Parent = trace.SpanID([]byte(fmt.Sprintf("%08d", i)))
			}
			spans = append(spans, sp)
		}
		p, err := Build(runmodel.New(spans, nil))
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		return len(b)
	}
	a, b := size(200), size(400)
	t.Logf("200 nested phases: %d bytes; 400: %d bytes", a, b)
	if float64(b) > 2.2*float64(a) {
		t.Errorf("twice the nested phases make a profile %.1f times larger: the cost is not linear", float64(b)/float64(a))
	}
}

// A spool from another tool, or a damaged one, may hold any double in the
// usage figures and the sampling interval: the largest, or JSON's words
// for the infinities. The profile is still written, every number in it
// finite.
func TestHostileFiguresInTheSpool(t *testing.T) {
	double := regexp.MustCompile(`("key":"jobtrace\.(usage\.[a-z.]*|sampling\.interval)","value":\{"doubleValue":)[^}]*`)
	integer := regexp.MustCompile(`("key":"jobtrace\.usage\.[a-z.]*","value":\{"intValue":)"[^"]*"`)
	spool, err := os.ReadFile(filepath.Join(fixture, "spans.otlp.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rows, err := os.ReadFile(filepath.Join(fixture, usagecsv.FileName))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"1.7e308", "-1.7e308", `"Infinity"`, `"-Infinity"`, `"NaN"`} {
		dir := t.TempDir()
		s := double.ReplaceAll(spool, []byte("${1}"+v))
		s = integer.ReplaceAll(s, []byte(`${1}"9223372036854775807"`))
		if bytes.Equal(s, spool) {
			t.Fatal("no figure replaced in the fixture's spool")
		}
		if err := os.WriteFile(filepath.Join(dir, "spans.otlp.jsonl"), s, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, usagecsv.FileName), rows, 0o644); err != nil {
			t.Fatal(err)
		}
		run, _, err := runmodel.ReadDir(dir)
		if err != nil {
			t.Fatalf("%s: ReadDir: %v", v, err)
		}
		if err := Write(dir, run); err != nil {
			t.Errorf("%s: %v", v, err)
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, FileName))
		if err != nil {
			t.Fatal(err)
		}
		var p map[string]any
		if err := json.Unmarshal(data, &p); err != nil {
			t.Errorf("%s: %v", v, err)
		}
	}
}
