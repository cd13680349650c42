package runmodel

import (
	"cmp"
	"encoding/hex"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/internal/readback"
)

// Attribute keys the model reads (docs/attributes.md).
const (
	// AttrTaskName names the task on the job's span.
	AttrTaskName = semconv.CICDPipelineTaskNameKey
	// AttrResult is a span's result: success, failure, error, timeout,
	// cancellation.
	AttrResult = semconv.CICDPipelineTaskRunResultKey
	// AttrExitCode is the exit code of the job or of a `jobtrace exec`.
	AttrExitCode = semconv.ProcessExitCodeKey
	// AttrSamplingInterval is the job's sampling interval in seconds.
	AttrSamplingInterval = attribute.Key("jobtrace.sampling.interval")
	// AttrJobDuration is the job's duration in seconds, from its start to
	// its exit, on its span: the span itself ends later, once jobtrace's
	// own shutdown work (its child span "jobtrace shutdown") is done.
	AttrJobDuration = attribute.Key("jobtrace.job.duration")
)

// Run is one run of a job.
type Run struct {
	// Job is the job's span; HasJob is false when the run has none (the
	// agent was killed before it ended it: only ended spans are kept).
	Job    Span
	HasJob bool
	// Phases are the other spans, as a tree: each followed by its
	// children, siblings by start time.
	Phases []Span
	// Resource is the resource of the job's span, else of the first span.
	Resource []attribute.KeyValue
	// SkippedSpans counts the spans left out past spool.MaxReadSpans.
	SkippedSpans int
	// Rows are the rows of resource-usage.csv, in order.
	Rows []Row
	// Stats are the statistics of the job's samples (Series), when the
	// run's samples went to a Recorder; a run read from its artifacts
	// has none (Stats.Samples is 0). SetStats sets them.
	Stats JobStats

	// advice is the job's right-sizing advice, made once with the model
	// (Advice).
	advice sizing.Advice
}

// Span is a span of the run: the job's or a phase.
type Span struct {
	Name       string
	ID, Parent trace.SpanID
	// Start and End are zero when the span does not say.
	Start, End time.Time
	// Failed is set when the span's status is Error; Status is the
	// status description.
	Failed bool
	Status string
	// Attributes are the span's, in the order set. Usage and Verdict are
	// read back from them once, when the model is made
	// (usage.FromAttributes, its shares of all CPUs at most 1, and
	// verdict.FromAttributes), and every renderer reads them there: the
	// zero Verdict when the span carries none. The usage's Duration is the
	// one duration every renderer shows of the span (Until): a phase's is
	// its span's, End less Start (usage.SpanDuration); the job's is from
	// its start to its exit, as its span says (AttrJobDuration), else its
	// span's. Its NumCPU is the machine's, as the run's rows count them.
	Attributes []attribute.KeyValue
	Usage      usage.Usage
	Verdict    verdict.Verdict
	Events     []Event

	// Order is the span's place in the order spans ended, which is the
	// spool's order.
	Order int
	// Depth counts the phases above it in the run, the job's span not
	// counted: 0 for a child of the job, and for a span whose parent is
	// not in the run.
	Depth int
	// InJob is set when the job's span is above it.
	InJob bool
	// ParentName is the name of its parent, "" when the parent is not in
	// the run.
	ParentName string
	// ParentIndex is the index of its parent in Run.Phases; -1 for the
	// job's span, a child of the job's span (Depth 0 and InJob) and a span
	// whose parent is not in the run.
	ParentIndex int

	resource []attribute.KeyValue
}

// Until is when the span's duration (Usage.Duration) ends, from its
// Start: its End for a phase whose times are in order, its Start for one
// whose are not, the job's exit for the job's span. report.html's bars and
// profile.json's markers run from Start to it. A span without a Start
// has its End.
func (s *Span) Until() time.Time {
	if s.Start.IsZero() {
		return s.End
	}
	return s.Start.Add(s.Usage.Duration)
}

// Event is an event of a span.
type Event struct {
	Name       string
	Time       time.Time // zero when the event does not say
	Attributes []attribute.KeyValue
}

// Attr returns the value of key among attrs, the last if it is set twice:
// the rule a span's usage and verdict are read back by (readback.Attr).
func Attr(attrs []attribute.KeyValue, key attribute.Key) (attribute.Value, bool) {
	return readback.Attr(attrs, key)
}

// Text returns the value of key among attrs as text (Text), "" when
// absent.
func (s *Span) Text(key attribute.Key) string {
	v, _ := Attr(s.Attributes, key)
	return Text(v)
}

// Text writes a value as text: numbers as Go formats them, a list as
// [a b c], bytes in hex; a map is "".
func Text(v attribute.Value) string {
	switch v.Type() {
	case attribute.STRING:
		return v.AsString()
	case attribute.INT64:
		return strconv.FormatInt(v.AsInt64(), 10)
	case attribute.FLOAT64:
		return strconv.FormatFloat(v.AsFloat64(), 'g', -1, 64)
	case attribute.BOOL:
		return strconv.FormatBool(v.AsBool())
	case attribute.BYTESLICE:
		return hex.EncodeToString(v.AsByteSlice())
	}
	var parts []string
	switch v.Type() {
	case attribute.STRINGSLICE:
		parts = v.AsStringSlice()
	case attribute.INT64SLICE:
		for _, x := range v.AsInt64Slice() {
			parts = append(parts, Text(attribute.Int64Value(x)))
		}
	case attribute.FLOAT64SLICE:
		for _, x := range v.AsFloat64Slice() {
			parts = append(parts, Text(attribute.Float64Value(x)))
		}
	case attribute.BOOLSLICE:
		for _, x := range v.AsBoolSlice() {
			parts = append(parts, Text(attribute.BoolValue(x)))
		}
	case attribute.SLICE:
		for _, x := range v.AsSlice() {
			parts = append(parts, Text(x))
		}
	default:
		return ""
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// Number returns the value of key among attrs (Attr) when it is a figure,
// an int or a float from 0 to readback.MaxFigure: the rule a span's usage
// is read back by (readback.Number).
func Number(attrs []attribute.KeyValue, key attribute.Key) (float64, bool) {
	return readback.Number(attrs, key)
}

// readUsage reads a span's usage back (usage.FromAttributes) with its
// shares of all CPUs, the job's and the machine's, at most 1: a share
// past it (two readings of a window a moment apart, or a spool from
// elsewhere: usage.FromAttributes takes any figure) is all of the CPUs,
// and every renderer shows it as 100 %.
func readUsage(attrs []attribute.KeyValue) usage.Usage {
	u := usage.FromAttributes(attrs)
	u.CPUAvg, u.CPUPeak = usage.BoundShare(u.CPUAvg), usage.BoundShare(u.CPUPeak)
	u.SystemCPUAvg, u.SystemCPUPeak = usage.BoundShare(u.SystemCPUAvg), usage.BoundShare(u.SystemCPUPeak)
	return u
}

// timeOf is the time of a span or event given in ns since the Unix epoch;
// 0 is no time.
func timeOf(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}

// New makes the Run of spans, given in the order they ended, and rows: it
// finds the job's span, places each span in the tree, reads its usage and
// its verdict from its attributes, and the job's advice from its span, made
// from the rows when it carries none (Advice). The fields it sets of each span (Usage, Verdict, Order,
// Depth, InJob, ParentName, ParentIndex) need not be set.
func New(spans []Span, rows []Row) *Run {
	r := newRun(spans, rows)
	r.advice = r.advise()
	return r
}

// newRun is New but for the advice, which Recorder.Run sets with the
// statistics of the samples (SetStats).
func newRun(spans []Span, rows []Row) *Run {
	r := &Run{Rows: rows}
	byID := make(map[trace.SpanID]int, len(spans))
	numCPU := NumCPUOf(rows)
	for i := range spans {
		spans[i].Order = i
		spans[i].Usage = readUsage(spans[i].Attributes)
		spans[i].Usage.Duration = usage.SpanDuration(spans[i].Start, spans[i].End)
		spans[i].Usage.NumCPU = numCPU
		spans[i].Verdict, _ = verdict.FromAttributes(spans[i].Attributes)
		byID[spans[i].ID] = i
	}
	parent := make([]int, len(spans))
	for i := range spans {
		parent[i] = -1
		if p, ok := byID[spans[i].Parent]; ok && spans[i].Parent.IsValid() {
			parent[i] = p
		}
	}
	// The job: a span that names the task, whose parent is not in the
	// run, the earliest.
	job := -1
	for i := range spans {
		if parent[i] >= 0 || spans[i].Text(AttrTaskName) == "" {
			continue
		}
		if job < 0 || spans[i].Start.Before(spans[job].Start) {
			job = i
		}
	}
	place(spans, parent, job)

	if job >= 0 {
		if d, ok := Number(spans[job].Attributes, AttrJobDuration); ok {
			spans[job].Usage.Duration = readback.Seconds(d)
		}
		r.Job, r.HasJob = spans[job], true
		r.Job.ParentIndex = -1
		r.Resource = spans[job].resource
	} else if len(spans) > 0 {
		r.Resource = spans[0].resource
	}
	r.Phases = treeOrder(spans, parent, job)
	return r
}

// NumCPUOf is the machine's CPUs, as the last row that counts them says
// (host_cpus_count): 0 when none does. A span's usage has no attribute of
// them, and the verdict's figures (verdict.FiguresOf) need them; the model
// sets them on every span's usage, and profile.json's CPUs are them.
func NumCPUOf(rows []Row) int {
	for i := len(rows) - 1; i >= 0; i-- {
		if n, ok := rows[i].Get(HostCPUs); ok && n >= 1 && n <= math.MaxInt32 {
			return int(n)
		}
	}
	return 0
}

// place sets the depth, InJob and ParentName of each span. A chain of
// parents that loops (a damaged spool) is cut where the walk up finds a
// span already on it: that span is taken as having no parent in the run.
func place(spans []Span, parent []int, job int) {
	const (
		unseen = iota
		onPath
		done
	)
	state := make([]int, len(spans))
	var path []int
	for i := range spans {
		path = path[:0]
		for c := i; c >= 0 && state[c] == unseen; c = parent[c] {
			state[c] = onPath
			path = append(path, c)
			if p := parent[c]; p >= 0 && state[p] == onPath {
				parent[c] = -1 // the loop is cut here
			}
		}
		for k := len(path) - 1; k >= 0; k-- {
			c := path[k]
			s := &spans[c]
			switch p := parent[c]; {
			case c == job:
				s.Depth = -1
			case p < 0:
				s.Depth = 0
			default:
				s.Depth = spans[p].Depth + 1
				s.InJob = p == job || spans[p].InJob
				s.ParentName = spans[p].Name
			}
			state[c] = done
		}
	}
	if job >= 0 {
		spans[job].Depth = 0
	}
}

// treeOrder returns the spans but the job's as a tree, each with the index
// of its parent among them (ParentIndex): each followed by its children,
// siblings by start time. A span whose parent is the job's or not in the
// run is at the top. Ordered by start time alone, a child that began with
// its parent would be listed under the phase before it when their times
// are equal or out of order.
func treeOrder(spans []Span, parent []int, job int) []Span {
	kids := make(map[int][]int, len(spans))
	const top = -1
	for i := range spans {
		if i == job {
			continue
		}
		p := parent[i]
		if p == job {
			p = top
		}
		kids[p] = append(kids[p], i)
	}
	byStart := func(a, b int) int {
		return cmp.Or(spans[a].Start.Compare(spans[b].Start), cmp.Compare(spans[a].Depth, spans[b].Depth), cmp.Compare(a, b))
	}
	for _, k := range kids {
		slices.SortFunc(k, byStart)
	}
	out := make([]Span, 0, len(spans))
	at := make([]int, len(spans)) // a span's index in out
	// An explicit stack: the nesting depth is the job's to choose. A
	// parent is in out before its children.
	var stack []int
	push := func(k []int) {
		for i := len(k) - 1; i >= 0; i-- {
			stack = append(stack, k[i])
		}
	}
	push(kids[top])
	for len(stack) > 0 {
		i := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		at[i] = len(out)
		s := spans[i]
		s.ParentIndex = -1
		if p := parent[i]; p >= 0 && p != job {
			s.ParentIndex = at[p]
		}
		out = append(out, s)
		push(kids[i])
	}
	return out
}

// Row is one row of resource-usage.csv: its time and the figures the
// renderers use.
type Row struct {
	Time time.Time
	has  uint32 // bit c: figure c is present
	v    [numCols]float64
}

// Col names a figure of a Row: a column of resource-usage.csv
// (docs/csv.md), by the name colName gives.
type Col int

// The figures a Row holds.
const (
	JobCPUUser Col = iota
	JobCPUSystem
	JobCPUPct
	JobMemory
	JobRead
	JobWrite
	JobCPUStall
	JobMemoryStall
	JobIOStall
	HostCPUs
	HostCPUPct
	HostMemoryUsed
	HostNetRx
	HostNetTx
	HostCPUStall
	HostMemoryStall
	HostIOStall
	JobOOMKills
	HostMemoryAvailable
	HostSwapUsed
	numCols
)

// Name is the column of resource-usage.csv the figure is read from.
func (c Col) Name() string {
	return [numCols]string{
		JobCPUUser:      "job_cpu_user_s",
		JobCPUSystem:    "job_cpu_system_s",
		JobCPUPct:       "job_cpu_pct",
		JobMemory:       "job_memory_bytes",
		JobRead:         "job_read_bytes",
		JobWrite:        "job_write_bytes",
		JobCPUStall:     "job_cpu_pressure_some_s",
		JobMemoryStall:  "job_memory_pressure_some_s",
		JobIOStall:      "job_io_pressure_some_s",
		HostCPUs:        "host_cpus_count",
		HostCPUPct:      "host_cpu_pct",
		HostMemoryUsed:  "host_memory_used_bytes",
		HostNetRx:       "host_net_rx_bytes",
		HostNetTx:       "host_net_tx_bytes",
		HostCPUStall:    "host_cpu_pressure_some_s",
		HostMemoryStall: "host_memory_pressure_some_s",
		HostIOStall:     "host_io_pressure_some_s",

		JobOOMKills:         "job_oom_kills_count",
		HostMemoryAvailable: "host_memory_available_bytes",
		HostSwapUsed:        "host_swap_used_bytes",
	}[c]
}

// Get returns the figure c of the row, and whether it is present.
func (r *Row) Get(c Col) (float64, bool) {
	return r.v[c], r.has&(1<<c) != 0
}

// Set sets the figure c of the row to v; a row made as Row{Time: t} has
// every figure absent.
func (r *Row) Set(c Col, v float64) {
	r.v[c] = v
	r.has |= 1 << c
}
