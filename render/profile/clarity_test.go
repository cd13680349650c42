package profile

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/runmodel"
)

// The tests below check what the Firefox Profiler shows of the fixture's
// profile, from the JSON as written, by the profiler's own rules (cited
// from its source, src/profile-logic and src/components/timeline).

// A failed phase is red in the marker chart: the Phase schema names its
// colour field, and the profiler takes a marker's colour from that field
// (marker-chart/Canvas.tsx, _getMarkerColors), blue without it.
func TestFailedPhaseIsRed(t *testing.T) {
	p := writeFixture(t)
	meta := obj(t, p["meta"], "meta")
	var phase map[string]any
	for _, s := range arr(t, meta, "markerSchema", "meta") {
		if sm := obj(t, s, "schema"); sm["name"] == typePhase {
			phase = sm
		}
	}
	if phase == nil || phase["colorField"] != "color" {
		t.Fatalf("the Phase schema has no colorField \"color\": %v", phase)
	}
	for _, ms := range markersByName(t, p) {
		for _, m := range ms {
			d := m["data"].(map[string]any)
			if d["type"] != typePhase {
				continue
			}
			failed := d["result"] == "failure"
			if failed != (d["color"] == "red") {
				t.Errorf("%v: result %v, colour %v", d["name"], d["result"], d["color"])
			}
		}
	}
}

// bucketOrder is the marker chart's order of categories
// (marker-timing.ts, getMarkerTiming): "Test" first, "Other" last, the
// others by name.
func bucketOrder(a, b string) int {
	rank := func(s string) int {
		switch s {
		case "Test":
			return 0
		case "Other":
			return 2
		}
		return 1
	}
	if ra, rb := rank(a), rank(b); ra != rb {
		return ra - rb
	}
	return strings.Compare(a, b)
}

// jobtrace's own spans (start-up, shut-down) and their events come after
// every phase and event of the job in the marker chart, and no marker name
// holds variable text: what start-up found (the job's cgroup, a path) is
// in the marker's data.
func TestOwnMarkersLastAndNamedPlainly(t *testing.T) {
	p := writeFixture(t)
	var cats []string
	for _, c := range arr(t, obj(t, p["meta"], "meta"), "categories", "meta") {
		cats = append(cats, obj(t, c, "category")["name"].(string))
	}
	own := map[string]bool{"jobtrace startup": true, "jobtrace shutdown": true}
	lastJob, firstOwn := "", ""
	notes := 0
	for name, ms := range markersByName(t, p) {
		for _, m := range ms {
			d := m["data"].(map[string]any)
			isOwn := own[name]
			if d["type"] == typeEvent {
				isOwn = own[d["phase"].(string)]
			}
			cat := cats[int(m["category"].(float64))]
			if isOwn {
				if strings.ContainsAny(name, "/0123456789") {
					t.Errorf("jobtrace's marker %q has variable text in its name", name)
				}
				if a, _ := d["attributes"].(string); strings.Contains(a, "cgroup") {
					notes++
				}
				if firstOwn == "" || bucketOrder(cat, firstOwn) < 0 {
					firstOwn = cat
				}
			} else if lastJob == "" || bucketOrder(cat, lastJob) > 0 {
				lastJob = cat
			}
		}
	}
	if bucketOrder(lastJob, firstOwn) >= 0 {
		t.Errorf("the job's markers go up to category %q, jobtrace's own start at %q: not after them", lastJob, firstOwn)
	}
	if notes == 0 {
		t.Error("no start-up note on the job's cgroup in a marker's attributes")
	}
}

// meta.interval is the sampling interval the job ran with (the fixture's
// --interval 100ms), not the median gap between rows, which boundary
// samples shorten; a run that does not say has that median.
func TestIntervalIsTheSamplingInterval(t *testing.T) {
	p := writeFixture(t)
	if got := obj(t, p["meta"], "meta")["interval"]; got != 100.0 {
		t.Errorf("meta.interval = %v ms, the run sampled every 100 ms", got)
	}
	run := readFixture(t)
	var rows []Row
	for i := range run.Rows {
		rows = append(rows, rowOf(&run.Rows[i]))
	}
	run.Job.Attributes = slices.DeleteFunc(slices.Clone(run.Job.Attributes), func(kv attribute.KeyValue) bool { return kv.Key == attrInterval })
	if got := interval(run, rows); got >= 100 || got <= 0 {
		t.Errorf("without the attribute, the median gap: %v ms, want below 100 (boundary rows)", got)
	}
}

// The CPU counter's tooltip prints CPU use as a percentage (the profiler
// prints a "number" with no decimals: 0.05 CPU as "0"), and at full view
// the track's height is every CPU of the machine, as the profiler scales a
// line-rate track (profile-data.ts, computeMaxCounterSampleCountPerMs,
// over the samples in view and the one before them, the first count set to
// 0 by processCounter).
func TestCPUCounterReadsAndScales(t *testing.T) {
	t0 := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	const cpus, seconds = 8, 10
	rows := []Row{{Time: t0, CPUs: Opt{cpus, true}}}
	for i := 1; i <= seconds; i++ {
		// a job that keeps 0.05 CPU busy
		rows = append(rows, Row{Time: t0.Add(time.Duration(i) * time.Second), CPU: Opt{0.05, true}, CPUs: Opt{cpus, true}})
	}
	run := runmodel.New(nil, nil)
	run.Rows = make([]runmodel.Row, len(rows))
	for i := range run.Rows {
		run.Rows[i].Set(runmodel.HostCPUs, cpus)
	}
	p := build(run, nil, rows)
	c := p.Counters[0]
	if c.Name != "jobCPU" {
		t.Fatalf("counter 0 is %s", c.Name)
	}
	for _, r := range c.Display.TooltipRows {
		if (r.Source == "rate" || r.Source == "selection-rate") && r.Format.Unit != "percent" {
			t.Errorf("tooltip row %q: %s printed as %s", r.Label, r.Source, r.Format.Unit)
		}
	}
	// the profiler's scale, for the whole profile in view
	s := c.Samples
	count := slices.Clone(s.Count)
	count[0] = 0
	first, _ := slices.BinarySearch(s.Time, 0)
	first = max(first-1, 0)
	top, job := 0.0, 0.0
	for i := first; i < s.Length; i++ {
		dt := p.Meta.Interval
		if i > 0 {
			dt = s.Time[i] - s.Time[i-1]
		}
		top = max(top, count[i]/dt)
		if s.Time[i] >= 0 {
			job = max(job, count[i]/dt)
		}
	}
	if math.Abs(top-cpus) > 1e-9 || math.Abs(job-0.05) > 1e-9 {
		t.Errorf("track height %v CPUs, the job's highest %v: want %d and 0.05", top, job, cpus)
	}
}

// The version is the first one with every feature the file uses: counters'
// display (62) and its tooltip rows (63).
func TestVersionByFeatures(t *testing.T) {
	p := writeFixture(t)
	need := 0
	for _, c := range arr(t, p, "counters", "") {
		d := obj(t, obj(t, c, "counter")["display"], "display")
		need = max(need, 62)
		if _, ok := d["tooltipRows"]; ok {
			need = max(need, 63)
		}
	}
	if v := obj(t, p["meta"], "meta")["preprocessedProfileVersion"]; v != float64(need) {
		t.Errorf("version %v, the features used need %d", v, need)
	}
}

// The marker table shows a phase's result and key figures and an event's
// attributes (the schemas' tableLabel), not only "success".
func TestMarkerTableDetails(t *testing.T) {
	p := writeFixture(t)
	by := markersByName(t, p)
	tests := map[string][]string{
		"compile":    {"success", "CPU ", "% of all CPUs", "peak memory ", "wrote 20 MiB"},
		"unit-tests": {"failure", "exit code 1", "CPU "},
		"cache-miss": {"key=deps", "in compile"},
	}
	for name, want := range tests {
		d := by[name][0]["data"].(map[string]any)
		for _, w := range want {
			if !strings.Contains(d["details"].(string), w) {
				t.Errorf("%s: details %q, want %q in them", name, d["details"], w)
			}
		}
	}
	for _, s := range markerSchemas {
		if s.TableLabel != "{marker.data.details}" {
			t.Errorf("schema %s: table label %q", s.Name, s.TableLabel)
		}
	}
}

// The thread's track is the job's CPU use, not an empty band: a sample
// per row with the CPU time since the previous one (in µs, as
// meta.sampleUnits says), whose stack is the phase open then, down from
// the job; the samples' weights add up to the CSV's CPU time.
func TestThreadTrackIsCPUUse(t *testing.T) {
	p := writeFixture(t)
	meta := obj(t, p["meta"], "meta")
	if u := obj(t, meta["sampleUnits"], "sampleUnits"); u["threadCPUDelta"] != "µs" {
		t.Errorf("sampleUnits %v", u)
	}
	shared := obj(t, p["shared"], "shared")
	strs := arr(t, shared, "stringArray", "shared")
	stacks, frames, funcs := obj(t, shared["stackTable"], ""), obj(t, shared["frameTable"], ""), obj(t, shared["funcTable"], "")
	nStacks := checkTable(t, stacks, "stackTable", "frame", "prefix")
	checkTable(t, frames, "frameTable", "address", "inlineDepth", "category", "subcategory", "func", "nativeSymbol", "innerWindowID", "line", "column")
	checkTable(t, funcs, "funcTable", "isJS", "relevantForJS", "name", "resource", "source", "lineNumber", "columnNumber")
	// path is a stack's phases, the job first.
	path := func(s any) []string {
		var out []string
		for i := 0; s != nil && i < nStacks; i++ {
			si := int(s.(float64))
			fn := arr(t, frames, "func", "")[int(arr(t, stacks, "frame", "")[si].(float64))]
			out = append([]string{strs[int(arr(t, funcs, "name", "")[int(fn.(float64))].(float64))].(string)}, out...)
			s = arr(t, stacks, "prefix", "")[si]
		}
		return out
	}
	smp := obj(t, obj(t, arr(t, p, "threads", "")[0], "")["samples"], "samples")
	n := checkTable(t, smp, "samples", "stack", "time", "weight", "threadCPUDelta")
	if n < 5 || smp["weightType"] != "tracing-ms" {
		t.Fatalf("%d samples of %v", n, smp["weightType"])
	}
	sum, inCompile := 0.0, 0
	for i := range n {
		w, d := arr(t, smp, "weight", "")[i].(float64), arr(t, smp, "threadCPUDelta", "")[i].(float64)
		if math.Abs(w*1000-d) > 0.01 {
			t.Errorf("sample %d: weight %v ms, CPU delta %v µs", i, w, d)
		}
		sum += w
		ph := path(arr(t, smp, "stack", "")[i])
		if len(ph) == 0 || ph[0] != "sh" {
			t.Errorf("sample %d: stack %v, not down from the job", i, ph)
		}
		if slices.Equal(ph, []string{"sh", "build", "compile"}) {
			inCompile++
		}
	}
	cpu := 0.0
	for _, r := range readFixture(t).Rows {
		if v, ok := rowOf(&r).CPU.V, rowOf(&r).CPU.OK; ok {
			cpu += v * 1000
		}
	}
	if math.Abs(sum-cpu) > 0.01 || inCompile == 0 {
		t.Errorf("samples weigh %v CPU ms, the CSV says %v; %d samples in compile", sum, cpu, inCompile)
	}
}

// A phase's marker carries its verdict, read back from its span
// (verdict.FromAttributes): a field of the tooltip and sidebar, in the
// tooltip's title and in the marker table's details.
func TestMarkerVerdict(t *testing.T) {
	p := writeFixture(t)
	by := markersByName(t, p)
	judged := 0
	for _, s := range append([]runmodel.Span{readFixture(t).Job}, readFixture(t).Phases...) {
		v, ok := verdict.FromAttributes(s.Attributes)
		if !ok {
			continue
		}
		judged++
		d := by[s.Name][0]["data"].(map[string]any)
		if d["verdict"] != string(v.Kind) || d["verdictReason"] != v.Reason ||
			!strings.Contains(d["title"].(string), string(v.Kind)) || !strings.Contains(d["details"].(string), string(v.Kind)) {
			t.Errorf("%s: verdict %v (%v), title %v, details %v; the span says %v", s.Name, d["verdict"], d["verdictReason"], d["title"], d["details"], v)
		}
	}
	if judged == 0 {
		t.Error("no span of the fixture has a verdict")
	}
	if markerSchemas[0].TooltipLabel != "{marker.data.title}" {
		t.Errorf("tooltip label %q", markerSchemas[0].TooltipLabel)
	}
}

// A failed phase's share of the thread's CPU samples is red too: its
// frame is in the red category Failed phase (the activity graph and the
// call tree colour a sample by its frame's category).
func TestFailedPhaseFrameIsRed(t *testing.T) {
	p := build(readFixture(t), tree(readFixture(t)), fixtureRows(t))
	frames, funcs := p.Shared.FrameTable, p.Shared.FuncTable
	found := false
	for i, f := range frames["func"].([]int) {
		name := p.Shared.StringArray[funcs["name"].([]int)[f]]
		cat := p.Meta.Categories[frames["category"].([]int)[i]]
		if name == "unit-tests" {
			found = true
			if cat.Color != "red" {
				t.Errorf("the failed phase's frame is in %s, %s", cat.Name, cat.Color)
			}
		} else if cat.Color == "red" {
			t.Errorf("%s's frame is red", name)
		}
	}
	if !found {
		t.Error("no frame for unit-tests")
	}
}

func fixtureRows(t *testing.T) []Row {
	var rows []Row
	for _, r := range readFixture(t).Rows {
		rows = append(rows, rowOf(&r))
	}
	return rows
}

// A sample's stack is the deepest phase open at the middle of its time,
// the latest begun of those as deep: with two phases side by side, the one
// begun last; once it ended, the other.
func TestSampleStackIsTheDeepestOpen(t *testing.T) {
	const s = uint64(1_700_000_000_000_000_000)
	sec := func(n float64) uint64 { return s + uint64(n*1e9) }
	job := span(1, 9, "job", sec(0), sec(10), runmodel.AttrTaskName.String("job"))
	src := attribute.String("jobtrace.phase.source", "socket")
	spans := []runmodel.Span{job,
		span(2, 1, "a", sec(1), sec(9), src),
		span(3, 1, "b", sec(2), sec(5), src),
		span(4, 2, "a1", sec(6), sec(7), src),
	}
	run := runmodel.New(spans, nil)
	var rows []Row
	for i := 0; i <= 10; i++ {
		rows = append(rows, Row{Time: time.Unix(0, int64(sec(float64(i)))), CPU: Opt{0.1, true}})
	}
	p := build(run, tree(run), rows)
	leaf := map[float64]string{}
	st, fr, fn := p.Shared.StackTable, p.Shared.FrameTable, p.Shared.FuncTable
	for i, at := range p.Threads[0].Samples.Time {
		f := st["frame"].([]int)[*p.Threads[0].Samples.Stack[i]]
		leaf[at/1000] = p.Shared.StringArray[fn["name"].([]int)[fr["func"].([]int)[f]]]
	}
	// sample at second n covers (n-1, n]: its middle n-0.5
	want := map[float64]string{1: "job", 2: "a", 3: "b", 5: "b", 6: "a", 7: "a1", 8: "a", 9: "a", 10: "job"}
	for at, w := range want {
		if leaf[at] != w {
			t.Errorf("sample at %vs: %q, want %q (all: %v)", at, leaf[at], w, leaf)
		}
	}
}
