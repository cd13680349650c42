package rundiff

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/render/summary"
	"github.com/jobtrace/jobtrace/runmodel"
)

// t0 is when the constructed runs start.
var t0 = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// ph is a phase of a constructed run: its name, its parent's index in the
// list (-1 for the job), when it starts and how long it takes (seconds),
// and its CPU time (seconds, < 0 for none).
type ph struct {
	name          string
	parent        int
	start, dur    float64
	cpu           float64
	machine, jobs float64 // machine CPU and the job's share of all CPUs (0–1); 0 for none
}

// mkRun builds the model of a run whose job takes jobDur seconds, with the
// phases given, through runmodel.New and the usage attributes the session
// sets.
func mkRun(jobDur float64, phases ...ph) *runmodel.Run {
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	id := func(i int) trace.SpanID { return trace.SpanID{0, 0, 0, 0, 0, 0, 0, byte(i + 2)} }
	job := runmodel.Span{Name: "ci", ID: trace.SpanID{1}, Start: t0, End: at(jobDur),
		Attributes: []attribute.KeyValue{runmodel.AttrTaskName.String("ci")}}
	spans := []runmodel.Span{}
	for i, p := range phases {
		parent := job.ID
		if p.parent >= 0 {
			parent = id(p.parent)
		}
		u := usage.Usage{}
		if p.cpu >= 0 {
			u.HasCPU, u.CPUUser = true, time.Duration(p.cpu*float64(time.Second))
			u.CPUAvg = p.jobs
		}
		if p.machine > 0 {
			u.HasSystemCPU, u.SystemCPUAvg = true, p.machine
		}
		spans = append(spans, runmodel.Span{Name: p.name, ID: id(i), Parent: parent, Start: at(p.start), End: at(p.start + p.dur), Attributes: u.Attributes()})
	}
	return runmodel.New(append(spans, job), nil)
}

// rowsOf lists the rows as "path#n status".
func rowsOf(d *Diff) []string {
	var out []string
	for _, r := range d.Phases {
		out = append(out, fmt.Sprintf("%s#%d %s", strings.Join(r.Path, "/"), r.N, r.Status))
	}
	return out
}

// Phases are matched by path, repeated names in order; a gone phase is
// listed after the phase it followed in the base run.
func TestMatchByPathAndOrder(t *testing.T) {
	base := mkRun(100,
		ph{"build", -1, 0, 30, -1, 0, 0},
		ph{"compile", 0, 0, 20, -1, 0, 0},
		ph{"old", -1, 30, 5, -1, 0, 0},
		ph{"test", -1, 40, 10, -1, 0, 0},
		ph{"test", -1, 50, 10, -1, 0, 0},
	)
	cur := mkRun(100,
		ph{"build", -1, 0, 30, -1, 0, 0},
		ph{"compile", 0, 0, 40, -1, 0, 0},
		ph{"test", -1, 40, 10, -1, 0, 0},
		ph{"test", -1, 50, 5, -1, 0, 0},
		ph{"test", -1, 55, 10, -1, 0, 0},
		ph{"compile", -1, 70, 1, -1, 0, 0}, // same name, other path
	)
	d := Compare([]*runmodel.Run{base}, cur)
	want := []string{
		"build#1 same", "build/compile#1 slower", "old#1 gone",
		"test#1 same", "test#2 faster", "test#3 new", "compile#1 new",
	}
	if got := rowsOf(d); !slices.Equal(got, want) {
		t.Errorf("rows\n%q\nwant\n%q", got, want)
	}
	if !d.HasJob || d.Job.Status != StatusSame {
		t.Errorf("job %v %s, want the same", d.HasJob, d.Job.Status)
	}
}

// A phase's path is its parent's (runmodel.Span.ParentIndex) with its
// name: steps run side by side (jobtrace exec in the background), whose
// spans end out of start order, are matched by their own paths, whatever
// order each run's steps started and ended in.
func TestPathsOfOverlappingSteps(t *testing.T) {
	base := mkRun(100,
		ph{"unit", -1, 10, 30, -1, 0, 0},
		ph{"setup", 0, 10, 5, -1, 0, 0},
		ph{"lint", -1, 5, 40, -1, 0, 0},
		ph{"setup", 2, 6, 3, -1, 0, 0},
		ph{"compile", 3, 6, 1, -1, 0, 0},
	)
	cur := mkRun(100,
		ph{"compile", 2, 1, 1, -1, 0, 0},
		ph{"setup", 3, 1, 5, -1, 0, 0},
		ph{"setup", 4, 0, 3, -1, 0, 0},
		ph{"unit", -1, 1, 30, -1, 0, 0},
		ph{"lint", -1, 0, 40, -1, 0, 0},
	)
	d := Compare([]*runmodel.Run{base}, cur)
	want := []string{"lint#1 same", "lint/setup#1 same", "lint/setup/compile#1 same", "unit#1 same", "unit/setup#1 same"}
	if got := rowsOf(d); !slices.Equal(got, want) {
		t.Errorf("rows\n%q\nwant\n%q", got, want)
	}
	for _, r := range d.Phases {
		if r.Depth != len(r.Path)-1 {
			t.Errorf("%q: depth %d", r.Path, r.Depth)
		}
	}

	// A run whose phases are listed by start time rather than as a tree
	// (lint and unit side by side, then the step each ran): each step is
	// under its own parent, not under the phase listed last.
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	byStart := &runmodel.Run{Phases: []runmodel.Span{
		{Name: "lint", Start: at(0), End: at(40), ParentIndex: -1},
		{Name: "unit", Start: at(1), End: at(31), ParentIndex: -1},
		{Name: "setup", Start: at(1), End: at(4), Depth: 1, ParentIndex: 0},
		{Name: "go test", Start: at(5), End: at(30), Depth: 1, ParentIndex: 1},
	}}
	var paths []string
	for _, p := range phasesOf(byStart) {
		paths = append(paths, strings.Join(p.path, "/"))
	}
	if want := []string{"lint", "unit", "lint/setup", "unit/go test"}; !slices.Equal(paths, want) {
		t.Errorf("paths %q, want %q", paths, want)
	}
}

// A change is "same" unless it is beyond both the absolute and the
// relative part of the noise rule.
func TestNoiseRule(t *testing.T) {
	for _, c := range []struct {
		base, cur float64
		want      Status
	}{
		{10, 10.4, StatusSame},   // +0.4 s: under 0.5 s
		{1, 1.4, StatusSame},     // +40 %, but +0.4 s
		{100, 109, StatusSame},   // +9 s, but 9 %
		{10, 12, StatusSlower},   // +2 s, +20 %
		{10, 8, StatusFaster},    // −2 s, −20 %
		{0.2, 0.8, StatusSlower}, // +0.6 s, +300 %
	} {
		d := Compare([]*runmodel.Run{mkRun(200, ph{"p", -1, 0, c.base, -1, 0, 0})}, mkRun(200, ph{"p", -1, 0, c.cur, -1, 0, 0}))
		if got := d.Phases[0].Status; got != c.want {
			t.Errorf("%vs → %vs: %s, want %s", c.base, c.cur, got, c.want)
		}
	}
}

// With several base runs the base is their median, and a duration
// outside their spread is flagged.
func TestBaselinesMedianAndSpread(t *testing.T) {
	bases := []*runmodel.Run{
		mkRun(100, ph{"p", -1, 0, 10, 5, 0, 0}),
		mkRun(100, ph{"p", -1, 0, 30, 9, 0, 0}),
		mkRun(100, ph{"p", -1, 0, 11, 6, 0, 0}),
	}
	for _, c := range []struct {
		cur     float64
		status  Status
		outside bool
	}{
		{12, StatusSame, false},
		{25, StatusSlower, false}, // slower than the median 11, within 10–30
		{40, StatusSlower, true},
		{8, StatusFaster, true},
	} {
		d := Compare(bases, mkRun(100, ph{"p", -1, 0, c.cur, 6, 0, 0}))
		r := d.Phases[0]
		if b, _ := r.Base.Get(Duration); b != 11 {
			t.Errorf("base duration %v, want the median 11", b)
		}
		if cpu, _ := r.Base.Get(CPUTime); cpu != 6 {
			t.Errorf("base CPU time %v, want the median 6", cpu)
		}
		lo, _ := r.Low.Get(Duration)
		hi, _ := r.High.Get(Duration)
		if lo != 10 || hi != 30 || r.Runs != 3 {
			t.Errorf("spread %v–%v of %d runs, want 10–30 of 3", lo, hi, r.Runs)
		}
		if r.Status != c.status || r.Outside != c.outside {
			t.Errorf("%vs: %s outside=%v, want %s outside=%v", c.cur, r.Status, r.Outside, c.status, c.outside)
		}
	}
	// A phase in one base run only is compared with that one.
	d := Compare(append(bases, mkRun(100, ph{"q", -1, 0, 5, -1, 0, 0})), mkRun(100, ph{"q", -1, 0, 5, -1, 0, 0}))
	if r := d.Phases[len(d.Phases)-1]; r.Name != "q" || r.Runs != 1 || r.Status != StatusSame || r.Outside {
		t.Errorf("q: %d runs, %s, outside=%v", r.Runs, r.Status, r.Outside)
	}
}

// figs makes figures from pairs of a figure and its value.
func figs(v verdict.Kind, kv ...any) Figures {
	var f Figures
	for i := 0; i < len(kv); i += 2 {
		f.Set(kv[i].(Figure), kv[i+1].(float64))
	}
	f.Verdict = verdict.Verdict{Kind: v, Reason: "the evidence"}
	return f
}

// Each rule of the causes' table, and the order they are read in.
func TestExplain(t *testing.T) {
	base := func(v verdict.Kind) Figures {
		return figs(v, Duration, 10.0, CPUTime, 9.0, CPUsBusy, 0.9, DiskIO, 1e6, MachineCPU, 0.5, NeighbourCPU, 0.05, CPUStall, 0.02, IOStall, 0.01)
	}
	for _, c := range []struct {
		name      string
		base, cur Figures
		cause     Cause
		says      string
	}{
		{"more work", base(""), figs("", Duration, 20.0, CPUTime, 19.0, CPUsBusy, 0.95), CauseMoreWork, "2.1× CPU time — did more work"},
		{"a little more work, slowed by neighbours", base(""), figs("", Duration, 20.0, CPUTime, 10.0, CPUsBusy, 0.5, MachineCPU, 1.0, NeighbourCPU, 0.5), CauseNeighbours, "machine CPU 100%, others' 50% (base: 5%) — slowed by neighbours"},
		{"starved verdict", base("cpu-bound"), figs("starved", Duration, 20.0, CPUTime, 9.0), CauseNeighbours, "starved: the evidence — slowed by neighbours"},
		{"starved both sides is not the change", base("starved"), figs("starved", Duration, 20.0, CPUTime, 9.0, MachineCPU, 0.3), CauseWaiting, "machine CPU 30% — waited longer"},
		{"io-bound verdict", base(""), figs("io-bound", Duration, 20.0, CPUTime, 9.0), CauseIO, "io-bound: the evidence — slowed by IO"},
		{"CPU stall", base(""), figs("", Duration, 20.0, CPUTime, 9.0, CPUStall, 0.45, NeighbourCPU, 0.1), CauseNeighbours, "waited for a CPU 8.8s longer (45% of the time; base: 2%) — slowed by neighbours"},
		{"CPU stall on a busy base", figs("", Duration, 10.0, CPUTime, 4.0, CPUsBusy, 0.4, CPUStall, 0.6), figs("", Duration, 16.0, CPUTime, 4.0, CPUStall, 0.6), CauseNeighbours, "waited for a CPU 3.6s longer (60% of the time; base: 60%)"},
		{"CPU stall that does not explain the change", base(""), figs("", Duration, 20.0, CPUTime, 9.0, CPUStall, 0.25, MachineCPU, 0.3), CauseWaiting, "waited longer"},
		{"more disk IO", base(""), figs("", Duration, 20.0, CPUTime, 9.0, DiskIO, 5e8), CauseIO, "+476 MiB disk IO"},
		{"more disk IO, a ratio", base(""), figs("", Duration, 20.0, CPUTime, 9.0, DiskIO, 5e7), CauseIO, "50× disk IO"},
		{"IO stall", base(""), figs("", Duration, 20.0, CPUTime, 9.0, IOStall, 0.5), CauseIO, "waited for IO 9.9s longer (50% of the time; base: 1%) — slowed by IO"},
		{"waiting", base(""), figs("", Duration, 20.0, CPUTime, 9.0, MachineCPU, 0.2), CauseWaiting, "same CPU time, machine CPU 20% — waited longer"},
		{"no CPU time", figs("", Duration, 10.0), figs("", Duration, 20.0), CauseUnknown, "no CPU time"},
		{"less work", base(""), figs("", Duration, 5.0, CPUTime, 4.0), CauseLessWork, "0.44× CPU time — did less work"},
		{"neighbours gone", figs("", Duration, 10.0, CPUTime, 4.0, CPUsBusy, 0.4, NeighbourCPU, 0.9, MachineCPU, 1.0), figs("", Duration, 5.0, CPUTime, 4.0, NeighbourCPU, 0.1, MachineCPU, 0.5), CauseNeighboursGone, "others' 10% (base: 90%) — no longer slowed by neighbours"},
		{"less waiting", base(""), figs("", Duration, 5.0, CPUTime, 9.0, MachineCPU, 0.5), CauseLessWaiting, "waited less"},
	} {
		r := Row{Base: c.base, Cur: c.cur, Runs: 1, InCur: true}
		r.judge()
		if r.Cause != c.cause || !strings.Contains(r.Reason, c.says) {
			t.Errorf("%s: %s %q, want %s with %q", c.name, r.Cause, r.Reason, c.cause, c.says)
		}
	}
	same := Row{Base: base(""), Cur: base(""), Runs: 1, InCur: true}
	if same.judge(); same.Cause != "" || same.Reason != "" {
		t.Errorf("same duration: %s %q, want no cause", same.Cause, same.Reason)
	}
}

func TestParseLimit(t *testing.T) {
	for in, want := range map[string]Limit{"20%": {Rel: 0.2}, " 5.5 %": {Rel: 0.055}, "30s": {Abs: 30 * time.Second}, "1m30s": {Abs: 90 * time.Second}, "0%": {}, ".5%": {Rel: 0.005}, "1000000%": {Rel: 10000}} {
		if got, err := ParseLimit(in); err != nil || got != want {
			t.Errorf("ParseLimit(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "20", "-5%", "x%", "-1s", "fast",
		// strconv.ParseFloat takes these; a NaN limit never fails.
		"NaN%", "nan %", "Inf%", "+Inf%", "1e9%", "1e2%", "0x1p4%", "1_0%", "+5%", ".%", "1.2.3%", "1000001%"} {
		if _, err := ParseLimit(in); err == nil {
			t.Errorf("ParseLimit(%q): no error", in)
		}
	}
}

// --fail-if-slower: the job always counts, a phase for a relative limit
// from FailFloor up, every phase for an absolute one; new phases never.
func TestSlowerThan(t *testing.T) {
	base := mkRun(20, ph{"long", -1, 0, 10, -1, 0, 0}, ph{"short", -1, 10, 0.3, -1, 0, 0})
	cur := mkRun(23, ph{"long", -1, 0, 11.5, -1, 0, 0}, ph{"short", -1, 12, 1.3, -1, 0, 0}, ph{"new", -1, 14, 9, -1, 0, 0})
	d := Compare([]*runmodel.Run{base}, cur)
	names := func(rows []*Row) string {
		var s []string
		for _, r := range rows {
			if r == &d.Job {
				s = append(s, "job")
			} else {
				s = append(s, r.Name)
			}
		}
		return strings.Join(s, ",")
	}
	for lim, want := range map[string]string{
		"10%":  "job,long", // short is +333 %, but shorter than FailFloor
		"14%":  "job,long",
		"16%":  "",
		"0.9s": "job,long,short",
		"2s":   "job",
		"3s":   "",
	} {
		l, err := ParseLimit(lim)
		if err != nil {
			t.Fatal(err)
		}
		if got := names(d.SlowerThan(l)); got != want {
			t.Errorf("%s: %q, want %q", lim, got, want)
		}
	}
}

// The verdict is the one the model read back from the spans' attributes
// (runmodel.Span.Verdict), used rather than the figures.
func TestVerdictFromSpans(t *testing.T) {
	base := mkRun(100, ph{"p", -1, 0, 10, 9, 0, 0})
	cur := mkRun(100, ph{"p", -1, 0, 20, 9, 0, 0})
	for run, v := range map[*runmodel.Run]verdict.Verdict{
		base: {Kind: verdict.CPUBound, Reason: "kept 0.9 of 1 CPUs busy"},
		cur:  {Kind: verdict.Starved, Reason: "waited for a CPU 55% of the time"},
	} {
		run.Phases[0].Verdict = v
	}
	r := Compare([]*runmodel.Run{base}, cur).Phases[0]
	if r.Cause != CauseNeighbours || !strings.Contains(r.Reason, "starved: waited for a CPU 55% of the time — slowed by neighbours") {
		t.Errorf("%s %q, want neighbours from the verdict", r.Cause, r.Reason)
	}
	if r.Base.Verdict.Kind != verdict.CPUBound {
		t.Errorf("base verdict %q", r.Base.Verdict.Kind)
	}
}

// jobtrace diff shows a phase's disk IO as the summary does
// (usage.Usage.StorageIO): the job's own, else the machine's disks',
// marked, and never compares one with the other; a share another tool
// wrote above 1 is 1 (usage.BoundShare), as the summary's 100 %. Before,
// the diff had no disk IO where the summary showed the host's.
func TestDiskIOAndSharesAsTheSummary(t *testing.T) {
	mk := func(own bool, dur float64) *runmodel.Run {
		u := usage.Usage{HasCPU: true, CPUUser: time.Second, CPUAvg: 1.5, CPUPeak: 1.5, HasSystemCPU: true, SystemCPUAvg: 1.5,
			HasSystemDisk: true, SystemReadBytes: 30 << 20, SystemWriteBytes: 10 << 20}
		if own {
			u.HasIO, u.ReadBytes, u.WriteBytes = true, 1<<20, 1<<20
		}
		job := runmodel.Span{Name: "ci", ID: trace.SpanID{1}, Start: t0, End: t0.Add(time.Minute),
			Attributes: []attribute.KeyValue{runmodel.AttrTaskName.String("ci")}}
		p := runmodel.Span{Name: "p", ID: trace.SpanID{2}, Parent: job.ID, Start: t0,
			End: t0.Add(time.Duration(dur * float64(time.Second))), Attributes: u.Attributes()}
		return runmodel.New([]runmodel.Span{p, job}, nil)
	}
	for _, own := range []bool{false, true} {
		run := mk(own, 10)
		s := summary.FiguresOf(&run.Phases[0].Usage)
		f := figuresOf(&run.Phases[0])
		io, ok := f.Get(DiskIO)
		if !ok || io != float64(s.ReadBytes+s.WriteBytes) || f.DiskIOHost != s.IOHost {
			t.Errorf("own IO %v: the diff's disk IO %v %v (host %v), the summary's %d (host %v)", own, io, ok, f.DiskIOHost, s.ReadBytes+s.WriteBytes, s.IOHost)
		}
		if m, _ := f.Get(MachineCPU); m != 1 || s.CPUAvg != 100 {
			t.Errorf("machine CPU %v in the diff, the job's %v %% in the summary; want 1 and 100", m, s.CPUAvg)
		}
	}
	// The host's disks in the base, the job's own in the run: not
	// compared, and the base's marked.
	d := Compare([]*runmodel.Run{mk(false, 10)}, mk(true, 20))
	r := &d.Phases[0]
	if _, _, _, ok := r.Change(DiskIO); ok || r.Cause == CauseIO {
		t.Errorf("the host's disk IO compared with the job's: %s %q", r.Cause, r.Reason)
	}
	var b strings.Builder
	if err := WriteText(&b, Compare([]*runmodel.Run{mk(false, 10)}, mk(false, 10)), Labels{Run: "run"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "40 MiB"+HostIOMark) || !strings.Contains(b.String(), HostIONote) {
		t.Errorf("the host's disk IO is not marked:\n%s", b.String())
	}
}
