package runmodel

import (
	"context"
	"math"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/internal/figure"
)

// sizingTick is a sample of a job on an 8-CPU, 32 GiB machine: cumulative
// counters at a time.
type sizingTick struct {
	sec    float64
	cpu    time.Duration // the job's, user + system
	mem    uint64
	stall  time.Duration // some of the job's tasks waited for memory
	oom    uint64
	swap   uint64 // the machine's in use
	reason hostmetrics.Reason
	// noAvailable: the machine does not say what memory is available
	// (Linux before 3.14), and its memory in use is the older estimate.
	noAvailable bool
	// fromTree: the cgroup's cpu.stat could not be read, and the job's
	// CPU time is its tree's, which misses what was reaped unseen.
	fromTree bool
}

// sample is the tick's sample; without a cgroup of its own, the job's
// figures are its tree's and there is no job stall or OOM kill, and the
// machine's memory stall is twice the job's.
func (k sizingTick) sample(ownCgroup bool) hostmetrics.Sample {
	s := hostmetrics.Sample{Time: sampleAt(k.sec), Reason: k.reason}
	s.Host.NumCPU = 8
	s.Host.HasMemory = true
	s.Host.Memory = hostmetrics.Memory{Total: 32 << 30, Used: 5 << 30, Available: 27 << 30, SwapTotal: 4 << 30, SwapUsed: k.swap}
	if k.noAvailable {
		s.Host.Memory.Used, s.Host.Memory.Available = 7<<30, 0
	}
	s.Host.Pressure.Memory = hostmetrics.Pressure{Some: time.Minute + 2*k.stall, HasSome: true}
	if !ownCgroup {
		s.Job.HasTree = true
		s.Job.Tree = hostmetrics.Tree{CPUUser: k.cpu, RSS: k.mem, At: s.Time}
		return s
	}
	s.Job.HasCgroup, s.Job.CgroupOwn = true, true
	cg := &s.Job.Cgroup
	user := (k.cpu * 3 / 4).Round(time.Microsecond) // cpu.stat counts microseconds
	cg.HasCPU, cg.CPUUser, cg.CPUSystem = true, user, k.cpu-user
	if k.fromTree {
		cg.HasCPU = false
		s.Job.HasTree = true
		s.Job.Tree = hostmetrics.Tree{CPUUser: k.cpu / 2, At: s.Time}
	}
	cg.HasMemory, cg.Memory = true, k.mem
	cg.HasOOMKills, cg.OOMKills = true, k.oom
	cg.Pressure.Memory = hostmetrics.Pressure{Some: k.stall, HasSome: true}
	return s
}

// sizingJob is a job of n seconds sampled every second, a fraction of a
// millisecond late, that keeps 2.3 CPUs busy, but 6 for a second, and
// whose memory grows to 3.1 GiB; at every tenth second boundary samples
// follow 3 and 5 ms later, each with a clock tick of CPU (20 CPUs over
// 5 ms, were it taken alone), and another 199.6 ms after the interval
// sample, which the CSV, writing times to the millisecond, puts 200 ms
// after it. change may alter each tick.
func sizingJob(n int, change func(k *sizingTick)) []sizingTick {
	var ks []sizingTick
	var cpu time.Duration
	prev := 0.0
	add := func(sec float64, tick time.Duration, reason hostmetrics.Reason) {
		rate := 2.3
		if int(sec) == n/2 && sec > prev+0.5 {
			rate = 6
		}
		// Whole microseconds, as cgroups count.
		cpu += (time.Duration(rate*(sec-prev)*float64(time.Second)) + tick).Round(time.Microsecond)
		prev = sec
		k := sizingTick{sec: sec, cpu: cpu, mem: min(uint64(sec*float64(100<<20)), 31<<30/10), reason: reason}
		if change != nil {
			change(&k)
		}
		ks = append(ks, k)
	}
	add(0, 0, hostmetrics.ReasonStart)
	for i := 1; i <= n; i++ {
		reason := hostmetrics.ReasonInterval
		if i == n {
			reason = hostmetrics.ReasonEnd
		}
		add(float64(i)+0.0009, 0, reason)
		if i%10 == 0 && i < n {
			add(float64(i)+0.003, 10*time.Millisecond, hostmetrics.ReasonBoundary)
			add(float64(i)+0.005, 10*time.Millisecond, hostmetrics.ReasonBoundary)
			add(float64(i)+0.2005, 0, hostmetrics.ReasonBoundary)
		}
	}
	return ks
}

// bothWays gives the samples of ks to a Recorder's statistics and to a
// real usagecsv.Writer, as a run does, and to also if not nil, and returns
// the advice of the model made in the run and of the model read back from
// the CSV, and the rows read back.
func bothWays(t *testing.T, ks []sizingTick, ownCgroup bool, also hostmetrics.Sink) (inRun, fromFiles sizing.Advice, rows []Row) {
	t.Helper()
	dir := t.TempDir()
	rec := NewRecorder()
	w, err := usagecsv.Create(filepath.Join(dir, usagecsv.FileName), usagecsv.Options{Tee: rec.Tee()})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range ks {
		s := k.sample(ownCgroup)
		rec.Samples().Sample(&s)
		w.Sample(&s)
		if also != nil {
			also.Sample(&s)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	run, err := rec.Run(dir)
	if err != nil {
		t.Fatal(err)
	}
	read, warn, err := ReadDir(dir)
	if err != nil || warn != nil {
		t.Fatalf("ReadDir: %v, warn %v", err, warn)
	}
	if run.Stats.Samples != len(ks) || read.Stats.Samples != 0 {
		t.Fatalf("%d and %d samples in the models' statistics; want %d and 0", run.Stats.Samples, read.Stats.Samples, len(ks))
	}
	if a, b := run.Advice(), rec.Advice(nil, verdict.Verdict{}); a.Text != b.Text || a.Figures != b.Figures {
		t.Errorf("the model's advice %+v\nis not the Recorder's %+v", a, b)
	}
	return run.Advice(), read.Advice(), read.Rows
}

// sameAdvice checks that the advice made in a run and made again from its
// files agree: the same words and figures, but for the last digits of
// sums.
func sameAdvice(t *testing.T, name string, a, b sizing.Advice) {
	t.Helper()
	close := func(x, y, tol float64) bool { return math.Abs(x-y) <= tol }
	af, bf := a.Figures, b.Figures
	if a.Kind != b.Kind || a.Text != b.Text || a.CPUs != b.CPUs || a.Memory != b.Memory ||
		af.HasCPU != bf.HasCPU || !close(af.CPUBusyP95, bf.CPUBusyP95, 1e-9) ||
		!close(af.CPUBusyPeak, bf.CPUBusyPeak, 1e-9) || !close(af.AboveOneCPU.Seconds(), bf.AboveOneCPU.Seconds(), 1e-6) ||
		af.HasMemory != bf.HasMemory || af.MemoryPeak != bf.MemoryPeak || af.NumCPU != bf.NumCPU || af.MachineMemory != bf.MachineMemory ||
		af.HasMemoryStall != bf.HasMemoryStall || af.MachineStall != bf.MachineStall || !close(af.MemoryStall.Seconds(), bf.MemoryStall.Seconds(), 1e-6) ||
		af.HasOOMKills != bf.HasOOMKills || af.OOMKills != bf.OOMKills || af.HasSwap != bf.HasSwap || af.Swapped != bf.Swapped ||
		af.Duration != bf.Duration {
		t.Errorf("%s: in the run\n  %+v\nfrom the files\n  %+v", name, a, b)
	}
}

// The advice made in a run, from its samples, is the advice made again
// from its resource-usage.csv, for jobs of every kind.
func TestAdviceInRunAndFromFilesAgree(t *testing.T) {
	for _, c := range []struct {
		name      string
		n         int
		ownCgroup bool
		change    func(k *sizingTick)
		kind      sizing.Kind
		text      string
	}{
		{"sized", 60, true, nil, sizing.Sized,
			"used 2.3 of 8 CPUs (p95; more than one for 1m00s) and at most 3.1 GiB: a 4-CPU, 8 GiB machine would do"},
		{"its tree", 60, false, nil, sizing.Sized,
			"used 2.3 of 8 CPUs (p95; more than one for 1m00s) and at most 3.1 GiB: a 4-CPU, 8 GiB machine would do"},
		{"memory pressure", 60, true, func(k *sizingTick) { k.stall = time.Duration(k.sec * float64(700*time.Millisecond)) }, sizing.NeedsMemory,
			"hit memory pressure for 42s: needs more memory, 16 GiB or more"},
		{"the machine's memory pressure", 60, false, func(k *sizingTick) { k.stall = time.Duration(k.sec * float64(700*time.Millisecond)) }, sizing.NeedsMemory,
			"the machine was under memory pressure for 1m24s: needs more memory, 16 GiB or more"},
		{"OOM-killed", 60, true, func(k *sizingTick) { k.oom = uint64(k.sec) / 25 }, sizing.NeedsMemory,
			"2 processes were OOM-killed at 3.1 GiB: needs more memory, 16 GiB or more"},
		{"swapped", 60, true, func(k *sizingTick) { k.swap = 1<<30 + uint64(k.sec*float64(10<<20)) }, sizing.NeedsMemory,
			"the machine swapped 600 MiB out: needs more memory, 16 GiB or more"},
		{"too short", 5, true, nil, sizing.TooShort, "ran 5s: too short to size a machine for (10s at least)"},
	} {
		inRun, fromFiles, _ := bothWays(t, sizingJob(c.n, c.change), c.ownCgroup, nil)
		sameAdvice(t, c.name, inRun, fromFiles)
		if inRun.Kind != c.kind || inRun.Text != c.text {
			t.Errorf("%s: %s %q\nwant %s %q", c.name, inRun.Kind, inRun.Text, c.kind, c.text)
		}
	}
}

// A counter that went back is taken by one rule (package monotonic) in the
// run and in its CSV: the change is unknown, left out, and the next counts
// from the new reading; so the advice made in the run and from the files
// agree. Before, the run took the job's CPU time that went back within a
// span joined to the next (samples at a boundary, a few ms apart) as no
// work over that span, where the CSV's empty cell left the span open to
// the next row; and it took a counter whose only change was a reset as one
// that had moved, by 0, where the CSV has no change of it at all; and it
// took the change of the job's CPU time from its cgroup to its tree, and
// back, as one of a counter, where the CSV's cells are empty.
func TestAdviceAgreesAcrossResets(t *testing.T) {
	for _, c := range []struct {
		name  string
		n     int
		reset func(k *sizingTick)
		check func(f sizing.Figures) bool
	}{
		{"CPU time that went back within a joined span", 60, func(k *sizingTick) {
			if k.sec > 20.002 {
				k.cpu -= 3 * time.Second
			}
		}, func(f sizing.Figures) bool { return f.AboveOneCPU == time.Minute }}, // busy throughout: the reset is no idle span
		{"CPU time read from the tree for a sample", 60, func(k *sizingTick) {
			k.fromTree = k.sec > 30 && k.sec < 31
		}, func(f sizing.Figures) bool { return f.CPUBusyPeak < 3 }}, // the cgroup's figure over the tree's is no burst of work
		{"a memory stall that only went back", 1, func(k *sizingTick) {
			k.stall = 10 * time.Second
			if k.sec > 0 {
				k.stall = 5 * time.Second
			}
		}, func(f sizing.Figures) bool { return !f.HasMemoryStall }},
		{"OOM kills that only went back", 1, func(k *sizingTick) {
			k.oom = 2
			if k.sec > 0 {
				k.oom = 1
			}
		}, func(f sizing.Figures) bool { return !f.HasOOMKills }},
		{"a memory stall that went back and went on", 60, func(k *sizingTick) {
			k.stall = time.Duration(k.sec * float64(700*time.Millisecond))
			if k.sec > 30 {
				k.stall -= 20 * time.Second
			}
		}, func(f sizing.Figures) bool {
			return f.HasMemoryStall && f.MemoryStall > 41*time.Second && f.MemoryStall < 43*time.Second
		}},
	} {
		inRun, fromFiles, _ := bothWays(t, sizingJob(c.n, c.reset), true, nil)
		sameAdvice(t, c.name, inRun, fromFiles)
		if !c.check(inRun.Figures) {
			t.Errorf("%s: figures %+v", c.name, inRun.Figures)
		}
	}
}

// windowSink gives every sample to a usage.Window: the first begins it,
// the end sample ends it.
type windowSink struct {
	w usage.Window
	u usage.Usage
}

func (ws *windowSink) Sample(s *hostmetrics.Sample) {
	switch {
	case !ws.w.Started():
		ws.w.Begin(s)
	case s.Reason == hostmetrics.ReasonEnd:
		ws.u = ws.w.End(s)
	default:
		ws.w.Add(s)
	}
}

// One sequence of samples whose counters are reset (the job's CPU time, its
// memory stall and its OOM kills go back, then on), given to the CSV, to a
// phase's usage window and to the run's statistics, is taken by one rule
// (package monotonic) in each: a column of the CSV summed over its rows is
// the window's usage, and the advice made in the run is the one made from
// the CSV. Before, the window took its end less its begin: less than the
// CSV's sum by each reset's drop.
func TestOneRuleAcrossArtifacts(t *testing.T) {
	ks := sizingJob(60, func(k *sizingTick) {
		k.stall = time.Duration(k.sec * float64(700*time.Millisecond))
		k.oom = uint64(k.sec) / 10
		if k.sec > 20.002 {
			k.cpu -= 3 * time.Second
		}
		if k.sec > 30 {
			k.stall -= 20 * time.Second
			k.oom -= 3
		}
	})
	var ws windowSink
	inRun, fromFiles, rows := bothWays(t, ks, true, &ws)
	sameAdvice(t, "resets", inRun, fromFiles)
	sum := func(c Col) float64 {
		var total float64
		for i := range rows {
			v, _ := rows[i].Get(c)
			total += v
		}
		return total
	}
	u := &ws.u
	if cpu := sum(JobCPUUser) + sum(JobCPUSystem); math.Abs(cpu-u.CPU().Seconds()) > 1e-6 {
		t.Errorf("the CSV's CPU time sums to %v s, the window's is %v", cpu, u.CPU())
	}
	if stall := sum(JobMemoryStall); !u.Pressure.HasMemorySome || math.Abs(stall-u.Pressure.MemorySome.Seconds()) > 1e-6 {
		t.Errorf("the CSV's memory stall sums to %v s, the window's is %v", stall, u.Pressure.MemorySome)
	}
	// 6 kills, but the one in the second the reset came in, whose change
	// is unknown.
	if oom := sum(JobOOMKills); !u.HasOOMKills || oom != float64(u.OOMKills) || u.OOMKills != 5 {
		t.Errorf("the CSV's OOM kills sum to %v, the window's are %d; want 5", oom, u.OOMKills)
	}
}

// Unweighted, the samples at boundaries, a few ms apart with a clock tick
// of CPU each, would make the job's p95 the 6 CPUs of two seconds, or
// more: weighted by the time each covers, and joined into spans of at
// least usage.MinPeakSpan, they count for what they are.
func TestAdviceWeighsUnevenSamples(t *testing.T) {
	se := NewSeries()
	for _, k := range sizingJob(60, nil) {
		s := k.sample(true)
		se.Sample(&s)
	}
	f := se.Stats().Sizing
	if f.CPUBusyP95 < 2.3 || f.CPUBusyP95 > 2.3*(1+1.0/sizing.BusySubBuckets) || f.CPUBusyPeak < 5.9 || f.CPUBusyPeak > 6.1 {
		t.Errorf("p95 %g CPUs, peak %g; want 2.3 and 6", f.CPUBusyP95, f.CPUBusyPeak)
	}
	if f.Duration != 60*time.Second || f.AboveOneCPU < 59*time.Second {
		t.Errorf("duration %v, above one CPU %v; want 60s", f.Duration, f.AboveOneCPU)
	}
}

// The job's peak memory is its span's when higher: its cgroup's
// memory.peak, read at the end, catches what fell between samples.
func TestAdviceTakesTheJobsPeak(t *testing.T) {
	u := usage.Usage{HasMemory: true, MemoryPeak: 7 << 30}
	job := Span{Name: "job", ID: trace.SpanID{1}, Attributes: append([]attribute.KeyValue{AttrTaskName.String("job")}, u.Attributes()...)}
	var rows []Row
	for i := range 20 {
		r := Row{Time: sampleAt(float64(i))}
		r.Set(JobMemory, 1<<30)
		rows = append(rows, r)
	}
	if a := New([]Span{job}, rows).Advice(); a.MemoryPeak != 7<<30 || a.Memory != 16<<30 || a.Kind != sizing.Sized {
		t.Errorf("advice %+v; want a peak of 7 GiB, 16 GiB suggested", a)
	}
	// The job's verdict is its span's: starved, its CPUs are not sized.
	for i := range rows {
		rows[i].Set(JobCPUUser, 0.3)
		rows[i].Set(HostCPUs, 2)
	}
	job.Attributes = append(job.Attributes, verdict.Verdict{Kind: verdict.Starved, Reason: "waited for CPU"}.Attributes()...)
	if a := New([]Span{job}, rows).Advice(); a.Kind != sizing.Starved || a.CPUs != 0 || a.Memory != 16<<30 || a.Verdict.Kind != verdict.Starved {
		t.Errorf("a starved job's advice %+v", a)
	}
	if a := (&Run{}).Advice(); a.Kind != sizing.Unknown {
		t.Errorf("an empty run: %+v", a)
	}
}

// The machine's memory is what is in use plus what is available, in the
// run and from its files alike: the CSV has no total. Where nothing is
// said to be available (Linux before 3.14), what is in use is another
// estimate, and the total is unknown both ways; before, the run took the
// sample's total while the files gave what was in use.
func TestMachineMemoryIsOneFigure(t *testing.T) {
	for _, c := range []struct {
		name  string
		avail bool
		want  uint64
	}{{"available", true, 32 << 30}, {"no MemAvailable", false, 0}} {
		ks := sizingJob(60, func(k *sizingTick) { k.noAvailable = !c.avail })
		inRun, fromFiles, _ := bothWays(t, ks, true, nil)
		sameAdvice(t, c.name, inRun, fromFiles)
		if inRun.MachineMemory != c.want || fromFiles.MachineMemory != c.want {
			t.Errorf("%s: the machine's memory %d in the run, %d from the files; want %d", c.name, inRun.MachineMemory, fromFiles.MachineMemory, c.want)
		}
	}
}

// A model made in a run, and one read from its files, carry the advice the
// run set on the job's span (Recorder.Advice), read back from it, which
// every renderer shows: it is not made again, from the span's usage and
// verdict read back, or from the rows.
func TestModelsCarryTheAdviceSetOnTheJob(t *testing.T) {
	dir := t.TempDir()
	rec := NewRecorder()
	client := spool.NewTraceClient(filepath.Join(dir, spool.TracesFile))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spool.NewSpanProcessor(client)), sdktrace.WithSpanProcessor(rec))
	_, root := tp.Tracer("jobtrace").Start(context.Background(), "job", at(0), trace.WithAttributes(AttrTaskName.String("job")))
	// Given a usage and a verdict the span does not carry, the advice
	// differs from what they would give.
	set := rec.Advice(&usage.Usage{HasMemory: true, MemoryPeak: 9 << 30}, verdict.Verdict{Kind: verdict.Starved, Reason: "waited"})
	root.SetAttributes(set.Attributes()...)
	root.End(trace.WithTimestamp(t0.Add(50 * time.Millisecond)))
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	run, err := rec.Run(dir)
	if err != nil {
		t.Fatal(err)
	}
	read, _, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]*Run{"in the run": run, "from the files": read} {
		if got, want := m.Advice(), set; got.Kind != want.Kind || got.Text != want.Text || got.MemoryPeak != 9<<30 {
			t.Errorf("%s, the model's advice %+v\nis not the one set on the job's span %+v", name, got, want)
		}
	}
}

// The advice read back from the job's span keeps the figures its
// attributes do not carry (the machine's CPUs, the job's duration, its
// verdict) from the model, as the advice made from the rows has them.
func TestSpansAdviceKeepsTheModelsFigures(t *testing.T) {
	var rows []Row
	for i := range 20 {
		r := Row{Time: sampleAt(float64(i))}
		r.Set(JobMemory, 1<<30)
		r.Set(JobCPUUser, 2)
		r.Set(HostCPUs, 2)
		rows = append(rows, r)
	}
	job := Span{Name: "job", ID: trace.SpanID{1}, Attributes: []attribute.KeyValue{AttrTaskName.String("job")}}
	made := New([]Span{job}, rows).Advice()
	if made.NumCPU != 2 || made.Duration == 0 {
		t.Fatalf("the advice made from the rows %+v: want 2 CPUs and a duration", made)
	}
	job.Attributes = append(job.Attributes, made.Attributes()...)
	job.Attributes = append(job.Attributes, verdict.Verdict{Kind: verdict.CPUBound, Reason: "busy"}.Attributes()...)
	got := New([]Span{job}, rows).Advice()
	if got.Kind != made.Kind || got.Text != made.Text || got.CPUs != made.CPUs {
		t.Errorf("advice %+v, want the span's %+v", got, made)
	}
	if got.NumCPU != 2 || got.Duration != made.Duration || got.Verdict.Kind != verdict.CPUBound || got.CPUBusyP95 != made.CPUBusyP95 {
		t.Errorf("the span's advice lost the model's figures: %d CPUs, duration %v, verdict %q, p95 %g; want 2, %v, %q, %g",
			got.NumCPU, got.Duration, got.Verdict.Kind, got.CPUBusyP95, made.Duration, verdict.CPUBound, made.CPUBusyP95)
	}
}

// The advice's duration is the job's, from its start to its exit, as every
// artifact shows it, not the time its samples cover: the first is taken
// once jobtrace has started, the last after the job's exit. A job of
// 10.4 s whose samples cover 9 s is sized, one of 9.9 s whose samples
// cover 11 s is too short, in the run (Recorder.Advice, given the job's
// usage) and read back (the job's span saying its duration).
func TestAdviceTakesTheJobsDuration(t *testing.T) {
	for _, c := range []struct {
		samples int // seconds the samples cover
		job     time.Duration
		kind    sizing.Kind
	}{{9, 10400 * time.Millisecond, sizing.Sized}, {11, 9900 * time.Millisecond, sizing.TooShort}} {
		rec := NewRecorder()
		var rows []Row
		for _, k := range sizingJob(c.samples, nil) {
			s := k.sample(true)
			rec.Samples().Sample(&s)
			r := Row{Time: s.Time}
			r.Set(JobMemory, float64(k.mem))
			r.Set(JobCPUUser, 2)
			r.Set(HostCPUs, 8)
			rows = append(rows, r)
		}
		inRun := rec.Advice(&usage.Usage{Duration: c.job}, verdict.Verdict{})
		job := Span{Name: "job", ID: trace.SpanID{1}, Start: sampleAt(0), End: sampleAt(float64(c.samples) + 1),
			Attributes: []attribute.KeyValue{AttrTaskName.String("job"), AttrJobDuration.Float64(c.job.Seconds())}}
		read := New([]Span{job}, rows).Advice()
		for name, a := range map[string]sizing.Advice{"in the run": inRun, "read back": read} {
			if a.Kind != c.kind || a.Duration != c.job {
				t.Errorf("a job of %v sampled over %ds, %s: %s %q over %v; want %s over the job's %v",
					c.job, c.samples, name, a.Kind, a.Text, a.Duration, c.kind, c.job)
			}
			if a.Kind == sizing.TooShort && !strings.Contains(a.Text, "ran "+figure.Duration(c.job)+":") {
				t.Errorf("%s: %q does not say the job's duration", name, a.Text)
			}
		}
	}
}
