package profile

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/internal/figure"
	"github.com/jobtrace/jobtrace/runmodel"
	"github.com/jobtrace/jobtrace/spans"
	"github.com/jobtrace/jobtrace/spans/scan"
)

// FileName is the name of the profile in the output directory.
const FileName = "profile.json"

// ErrEmpty is a run with nothing to show: no span and no row.
var ErrEmpty = errors.New("profile: empty run")

// Indexes into meta.categories. The marker chart groups rows by
// category: alphabetically, but "Other" last. jobtrace's own spans (start-up
// and shut-down) and their events are in Other, so that the job's phases
// and events come first.
const (
	catOther = iota
	catPhase
	catEvent
	// catFailed is the category of a failed phase's frames (cpuSamples),
	// red in the thread's activity graph and the call tree; no marker is
	// in it.
	catFailed
)

var categories = []Category{
	// The profiler wants a grey category, the default.
	{Name: "Other", Color: "grey", Subcategories: []string{"Other"}},
	{Name: "Phase", Color: "blue", Subcategories: []string{"Other"}},
	{Name: "Event", Color: "orange", Subcategories: []string{"Other"}},
	{Name: "Failed phase", Color: "red", Subcategories: []string{"Other"}},
}

// Marker colours in the marker chart (the data's "color" field, the
// schemas' ColorField): a failed phase red, jobtrace's own markers grey.
const (
	colorPhase  = "blue"
	colorFailed = "red"
	colorOwn    = "grey"
	colorEvent  = "orange"
)

// Marker data types, the names of their schemas.
const (
	typePhase = "Phase"
	typeEvent = "Event"
)

var markerDisplay = []string{"marker-chart", "marker-table", "timeline-overview"}

var markerSchemas = []MarkerSchema{
	{
		Name:         typePhase,
		TooltipLabel: "{marker.data.title}",
		TableLabel:   "{marker.data.details}",
		ChartLabel:   "{marker.data.name}",
		Display:      markerDisplay,
		Description:  "A phase of the job (a span); the job itself is at depth 0.",
		ColorField:   "color",
		Fields: []MarkerField{
			{Key: "name", Label: "Name", Format: "string"},
			{Key: "parent", Label: "Inside", Format: "string"},
			{Key: "depth", Label: "Depth", Format: "integer"},
			{Key: "result", Label: "Result", Format: "string"},
			{Key: "status", Label: "Status", Format: "string"},
			{Key: "verdict", Label: "Verdict", Format: "string"},
			{Key: "verdictReason", Label: "Why", Format: "string"},
			{Key: "cpu", Label: "CPU time", Format: "duration"},
			{Key: "cpuAvg", Label: "CPU use (share of all CPUs)", Format: "percentage"},
			{Key: "memoryPeak", Label: "Peak memory", Format: "bytes"},
			{Key: "diskRead", Label: "Disk read", Format: "bytes"},
			{Key: "diskWrite", Label: "Disk written", Format: "bytes"},
			{Key: "diskHost", Label: "Disk IO", Format: "string"},
			{Key: "exitCode", Label: "Exit code", Format: "integer"},
			{Key: "source", Label: "Source", Format: "string"},
			{Key: "attributes", Label: "Attributes", Format: "string"},
			{Key: "details", Label: "Details", Format: "string", Hidden: true},
			{Key: "title", Label: "Title", Format: "string", Hidden: true},
			{Key: "color", Label: "Colour", Format: "string", Hidden: true},
		},
	},
	{
		Name:         typeEvent,
		TooltipLabel: "{marker.name}",
		TableLabel:   "{marker.data.details}",
		Display:      markerDisplay,
		Description:  "An event recorded on a phase (a span event).",
		ColorField:   "color",
		Fields: []MarkerField{
			{Key: "phase", Label: "Phase", Format: "string"},
			{Key: "source", Label: "Source", Format: "string"},
			{Key: "line", Label: "Line", Format: "string"},
			{Key: "attributes", Label: "Attributes", Format: "string"},
			{Key: "details", Label: "Details", Format: "string", Hidden: true},
			{Key: "color", Label: "Colour", Format: "string", Hidden: true},
		},
	},
}

// Attribute keys read from spans and events (docs/attributes.md), as
// their writers define them.
const (
	attrResult      = runmodel.AttrResult
	attrExitCode    = runmodel.AttrExitCode
	attrPid         = semconv.ProcessPIDKey
	attrPhaseSource = spans.AttrPhaseSource
	attrEventSource = spans.AttrEventSource
	attrLine        = attribute.Key(scan.LineAttr)
	attrInterval    = runmodel.AttrSamplingInterval
)

// shown lists the span attributes that have a field of their own, left
// out of the "attributes" field.
var shown = map[attribute.Key]bool{
	attrResult: true, attrExitCode: true, attrPhaseSource: true,
	attrEventSource: true, attrLine: true, attrInterval: true,
	verdict.AttrKind: true, verdict.AttrReason: true,
}

// node is a span with its place in the profile's tree, where the job is
// at depth 0: its depth and the name of its parent, not the names of all
// the phases above it, so that a marker costs the same however deep its
// phase is.
type node struct {
	span   *runmodel.Span
	depth  int
	parent string // the parent's name; "" for the job
	// phase is the span's index in the run's Phases, -1 for the job's;
	// up is the index of its parent's node, -1 for none: the model's
	// parent (runmodel.Span.ParentIndex), or the job's span for a phase at
	// the top of the job.
	phase, up int
	// own is set for jobtrace's own spans, start-up and shut-down: the
	// spans other than the job's that no source of phases made (they have
	// no jobtrace.phase.source).
	own bool
}

// Row is what the profile uses of one row of the run: deltas cover the
// time since the previous row.
type Row struct {
	Time time.Time
	// CPU is the job's user + system CPU time since the previous row, in
	// seconds; Build makes it the row's part of its span's (spreadCPU).
	CPU Opt
	// Memory is the job's memory in use at the row, in bytes.
	Memory Opt
	// Disk is the bytes the job read and wrote since the previous row.
	Disk Opt
	// Net is the bytes the machine received and sent since the previous
	// row, loopback excluded.
	Net Opt
	// CPUs is the number of online CPUs.
	CPUs Opt
}

// Opt is a figure that may be absent.
type Opt struct {
	V  float64
	OK bool
}

// rowOf is the profile's view of a row: each figure the sum of its
// columns, absent when one of them is.
func rowOf(r *runmodel.Row) Row {
	sum := func(cols ...runmodel.Col) Opt {
		var o Opt
		for _, c := range cols {
			v, ok := r.Get(c)
			if !ok {
				return Opt{}
			}
			o.V += v
		}
		o.OK = true
		return o
	}
	return Row{
		Time:   r.Time,
		CPU:    sum(runmodel.JobCPUUser, runmodel.JobCPUSystem),
		Memory: sum(runmodel.JobMemory),
		Disk:   sum(runmodel.JobRead, runmodel.JobWrite),
		Net:    sum(runmodel.HostNetRx, runmodel.HostNetTx),
		CPUs:   sum(runmodel.HostCPUs),
	}
}

// Build makes the profile of a run. It does no I/O. A run with no spans
// and no rows is an error.
func Build(run *runmodel.Run) (*Profile, error) {
	if !run.HasJob && len(run.Phases) == 0 && len(run.Rows) == 0 {
		return nil, fmt.Errorf("%w: no spans and no resource-usage rows", ErrEmpty)
	}
	rows := make([]Row, len(run.Rows))
	for i := range run.Rows {
		rows[i] = rowOf(&run.Rows[i])
	}
	spreadCPU(rows)
	return build(run, tree(run), rows), nil
}

func build(run *runmodel.Run, nodes []node, rows []Row) *Profile {
	// The profile's zero is the earliest time known, its end the latest.
	var zero, end int64 = math.MaxInt64, math.MinInt64
	see := func(ns int64) {
		zero, end = min(zero, ns), max(end, ns)
	}
	for _, n := range nodes {
		see(unixNano(n.span.Start))
		see(unixNano(n.span.End))
		for _, e := range n.span.Events {
			see(unixNano(e.Time))
		}
	}
	for _, r := range rows {
		see(r.Time.UnixNano())
	}
	ms := func(ns int64) float64 { return round3(float64(ns-zero) / 1e6) }

	jobName, pid := "job", "0"
	if run.HasJob {
		jobName = run.Job.Name
		if v, ok := runmodel.Attr(run.Job.Attributes, attrPid); ok {
			pid = runmodel.Text(v)
		}
	}

	p := &Profile{
		Meta: Meta{
			Interval:                   interval(run, rows),
			StartTime:                  float64(zero) / 1e6,
			EndTime:                    float64(end) / 1e6,
			ProfilingStartTime:         0,
			ProfilingEndTime:           ms(end),
			Categories:                 categories,
			Product:                    "jobtrace: " + jobName,
			Version:                    geckoVersion,
			PreprocessedProfileVersion: FormatVersion,
			Symbolicated:               true,
			ImportedFrom:               "jobtrace",
			MarkerSchema:               markerSchemas,
			Extensions:                 ExtensionsTable{ID: []string{}, Name: []string{}, BaseURL: []string{}},
			SampleUnits:                map[string]string{"time": "ms", "eventDelay": "ms", "threadCPUDelta": "µs"},
		},
		Libs:   []any{},
		Pages:  []any{},
		Shared: emptyShared(),
	}
	p.Meta.LogicalCPUs = runmodel.NumCPUOf(run.Rows)

	strs := map[string]int{}
	str := func(s string) int {
		i, ok := strs[s]
		if !ok {
			i = len(p.Shared.StringArray)
			p.Shared.StringArray = append(p.Shared.StringArray, s)
			strs[s] = i
		}
		return i
	}

	endMs := ms(end)
	th := Thread{
		ProcessType:         "default",
		ProcessName:         "jobtrace run",
		ProcessShutdownTime: &endMs,
		PausedRanges:        []any{},
		Name:                jobName,
		IsMainThread:        true,
		Pid:                 pid,
		Markers: Markers{
			Data: []map[string]any{}, Name: []int{}, StartTime: []float64{},
			EndTime: []*float64{}, Phase: []int{}, Category: []int{},
		},
	}
	m := &th.Markers
	add := func(name string, start float64, end *float64, phase, cat int, data map[string]any) {
		m.Name = append(m.Name, str(name))
		m.StartTime = append(m.StartTime, start)
		m.EndTime = append(m.EndTime, end)
		m.Phase = append(m.Phase, phase)
		m.Category = append(m.Category, cat)
		m.Data = append(m.Data, data)
		m.Length++
	}
	// A span's marker runs for its duration (runmodel.Span.Until), the
	// job's to its exit.
	for _, n := range nodes {
		s := n.span
		start, stop := ms(unixNano(s.Start)), ms(unixNano(s.Until()))
		if stop < start {
			stop = start
		}
		cat := catPhase
		if n.own {
			cat = catOther
		}
		add(s.Name, start, &stop, PhaseInterval, cat, phaseData(n))
	}
	for _, n := range nodes {
		cat, color := catEvent, colorEvent
		if n.own {
			cat, color = catOther, colorOwn
		}
		for _, e := range n.span.Events {
			data := map[string]any{"type": typeEvent, "phase": n.span.Name, "color": color}
			if v, ok := runmodel.Attr(e.Attributes, attrEventSource); ok {
				data["source"] = runmodel.Text(v)
			}
			if v, ok := runmodel.Attr(e.Attributes, attrLine); ok {
				data["line"] = runmodel.Text(v)
			}
			details := "in " + n.span.Name
			if a := otherAttrs(e.Attributes); a != "" {
				data["attributes"] = a
				details = a + " · " + details
			}
			data["details"] = details
			add(e.Name, ms(unixNano(e.Time)), nil, PhaseInstant, cat, data)
		}
	}
	th.Samples = cpuSamples(run, nodes, rows, ms, &p.Shared, str)
	p.Threads = []Thread{th}
	p.Counters = counters(rows, ms, pid, p.Meta.LogicalCPUs, p.Meta.Interval)
	return p
}

// tree is the job's span and the phases, by start time (parents before
// children that start with them, then in the order they ended), each with
// its depth in the profile (the job at 0), its parent's name and its
// parent's node, as the model placed them.
func tree(run *runmodel.Run) []node {
	nodes := make([]node, 0, len(run.Phases)+1)
	if run.HasJob {
		nodes = append(nodes, node{span: &run.Job, phase: -1})
	}
	for i := range run.Phases {
		s := &run.Phases[i]
		_, made := runmodel.Attr(s.Attributes, attrPhaseSource)
		n := node{span: s, depth: s.Depth, parent: s.ParentName, phase: i, own: !made}
		if s.InJob {
			n.depth++
		}
		nodes = append(nodes, n)
	}
	slices.SortFunc(nodes, func(a, b node) int {
		return cmp.Or(cmp.Compare(unixNano(a.span.Start), unixNano(b.span.Start)),
			cmp.Compare(a.depth, b.depth), cmp.Compare(a.span.Order, b.span.Order))
	})
	job, at := nodeIndex(nodes, len(run.Phases))
	for k := range nodes {
		n := &nodes[k]
		switch s := n.span; {
		case n.phase < 0:
			n.up = -1
		case s.ParentIndex >= 0:
			n.up = at[s.ParentIndex]
		case s.InJob:
			n.up = job
		default:
			n.up = -1
		}
	}
	return nodes
}

// nodeIndex returns the index in nodes of the job's node (-1 for none)
// and of each phase's, by its index in the run's Phases.
func nodeIndex(nodes []node, phases int) (job int, at []int) {
	job, at = -1, make([]int, phases)
	for k, n := range nodes {
		if n.phase < 0 {
			job = k
		} else {
			at[n.phase] = k
		}
	}
	return job, at
}

// unixNano is t in ns since the Unix epoch, as OTLP has it: 0 for no time.
func unixNano(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// phaseData is the data of a span's marker.
func phaseData(n node) map[string]any {
	s := n.span
	d := map[string]any{"type": typePhase, "name": s.Name, "depth": n.depth}
	if n.parent != "" {
		d["parent"] = n.parent
	}
	if v, ok := runmodel.Attr(s.Attributes, attrResult); ok {
		d["result"] = runmodel.Text(v)
	}
	if s.Status != "" {
		d["status"] = s.Status
	}
	if v, ok := runmodel.Attr(s.Attributes, attrPhaseSource); ok {
		d["source"] = runmodel.Text(v)
	}
	if v, ok := runmodel.Number(s.Attributes, attrExitCode); ok {
		d["exitCode"] = v
	}
	if u := &s.Usage; u.HasCPU {
		d["cpu"] = round3((u.CPUUser.Seconds() + u.CPUSystem.Seconds()) * 1000) // the profiler's durations are in ms
		d["cpuAvg"] = u.CPUAvg
	}
	if u := &s.Usage; u.HasMemory {
		d["memoryPeak"] = float64(u.MemoryPeak)
	}
	if io, ok := runmodel.DiskIOOf(&s.Usage); ok {
		d["diskRead"], d["diskWrite"] = float64(io.Read), float64(io.Write)
		if io.Host {
			d["diskHost"] = runmodel.HostDiskNote
		}
	}
	if a := otherAttrs(s.Attributes); a != "" {
		d["attributes"] = a
	}
	switch {
	case s.Failed:
		d["color"] = colorFailed
	case n.own:
		d["color"] = colorOwn
	default:
		d["color"] = colorPhase
	}
	d["title"] = s.Name
	if v := s.Verdict; v.Kind != "" {
		d["verdict"], d["verdictReason"] = string(v.Kind), v.Reason
		d["title"] = s.Name + " — " + string(v.Kind)
	}
	d["details"] = phaseDetails(s)
	if d["details"] == "" && n.own {
		// The profiler prints an empty label as "(empty)".
		d["details"] = "jobtrace's own, not the job's"
	}
	return d
}

// phaseDetails is a phase's line in the marker table: its result, its
// verdict and its key figures, written by the rules of package figure as
// every renderer writes them; a figure the span does not carry is left
// out.
func phaseDetails(s *runmodel.Span) string {
	var parts []string
	if r := s.Text(attrResult); r != "" {
		parts = append(parts, r)
	}
	if s.Verdict.Kind != "" {
		parts = append(parts, string(s.Verdict.Kind))
	}
	if c, ok := runmodel.Number(s.Attributes, attrExitCode); ok && c != 0 {
		parts = append(parts, fmt.Sprintf("exit code %v", c))
	}
	u := &s.Usage
	if u.HasCPU {
		parts = append(parts, fmt.Sprintf("CPU %s (%s of all CPUs)", figure.Duration(u.CPU()), figure.Percent(u.CPUAvg*100)))
	}
	if u.HasMemory {
		parts = append(parts, "peak memory "+figure.Bytes(float64(u.MemoryPeak)))
	}
	if io, ok := runmodel.DiskIOOf(u); ok {
		s := fmt.Sprintf("read %s, wrote %s", figure.Bytes(float64(io.Read)), figure.Bytes(float64(io.Write)))
		if io.Host {
			s += " (" + runmodel.HostDiskNote + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " · ")
}

// otherAttrs lists the attributes that have no field of their own, as
// key=value separated by commas; usage figures are left out (the fields
// above show the main ones, the span in a trace viewer has them all).
func otherAttrs(kvs []attribute.KeyValue) string {
	var parts []string
	for _, kv := range kvs {
		k := string(kv.Key)
		if shown[kv.Key] || strings.HasPrefix(k, "jobtrace.usage.") || strings.HasPrefix(k, "jobtrace.system.") {
			continue
		}
		parts = append(parts, k+"="+runmodel.Text(kv.Value))
	}
	return strings.Join(parts, ", ")
}

// interval is the sampling interval in ms: the job span's
// jobtrace.sampling.interval. A run that does not say (its agent was
// killed, or it is older) has the median time between rows, which
// boundary rows make shorter than the interval; 1 s when there are too
// few rows.
func interval(run *runmodel.Run, rows []Row) float64 {
	if run.HasJob {
		if v, ok := runmodel.Number(run.Job.Attributes, attrInterval); ok && v > 0 {
			return round3(v * 1000)
		}
	}
	var gaps []float64
	for i := 1; i < len(rows); i++ {
		if d := rows[i].Time.Sub(rows[i-1].Time); d > 0 {
			gaps = append(gaps, float64(d)/float64(time.Millisecond))
		}
	}
	if len(gaps) == 0 {
		return 1000
	}
	slices.Sort(gaps)
	return gaps[len(gaps)/2]
}

// round3 rounds to three decimals: ms to the µs, the precision of the
// artifacts, so the file has no float noise.
func round3(v float64) float64 { return math.Round(v*1000) / 1000 }
