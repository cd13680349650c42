package report

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/internal/regularfile"
)

// File names of the report in the output directory.
const (
	HTMLName = "report.html"
	SVGName  = "usage.svg"
)

// ErrParse marks an artifact, or a part of one, that could not be read.
var ErrParse = errors.New("report: malformed artifact")

// Data is what a report shows, read from the artifacts of one run.
type Data struct {
	Job    Job
	Phases []Phase // every span below the job span, by start time
	// Skipped counts the spans left out past spool.MaxReadSpans.
	Skipped int
	Rows    []Row // resource-usage.csv, in file order
}

// Job is the job span and its resource.
type Job struct {
	Name     string
	Result   string // cicd.pipeline.task.run.result; empty when unknown
	ExitCode string // process.exit.code; empty when unknown
	Start    time.Time
	End      time.Time
	Host     string // resource host.name
	Service  string // resource service.name
	Usage    Usage
}

// Phase is one span below the job span.
type Phase struct {
	Name   string
	Depth  int // 0 for a child of the job span
	Start  time.Time
	End    time.Time
	Result string
	// Failed is true when the span's status is Error or its result is
	// anything but success.
	Failed bool
	Usage  Usage

	id, parent string // span ids, for treeOrder
}

// Usage holds the jobtrace.usage.* attributes of a span
// (docs/attributes.md); an absent attribute is not OK.
type Usage struct {
	CPUUser, CPUSystem Opt // s
	CPUAvg, CPUPeak    Opt // 0 to 1
	MemoryPeak         Opt // bytes
	DiskRead           Opt // bytes
	DiskWrite          Opt // bytes
}

// Opt is a figure that may be absent.
type Opt struct {
	V  float64
	OK bool
}

// Row is one row of resource-usage.csv (docs/csv.md): the columns the
// charts use, indexed by the col* constants.
type Row struct {
	Time time.Time
	V    [numCols]Opt
}

const (
	colJobCPUPct = iota
	colHostCPUPct
	colJobMemory
	colHostMemory
	colJobRead
	colJobWrite
	colNetRx
	colNetTx
	colJobCPUStall
	colJobMemStall
	colJobIOStall
	colHostCPUStall
	colHostMemStall
	colHostIOStall
	numCols
)

// csvNames are the columns read, by name (usagecsv.Columns). A column the
// file lacks is absent in every row, so files from other versions read.
var csvNames = [numCols]string{
	colJobCPUPct:    "job_cpu_pct",
	colHostCPUPct:   "host_cpu_pct",
	colJobMemory:    "job_memory_bytes",
	colHostMemory:   "host_memory_used_bytes",
	colJobRead:      "job_read_bytes",
	colJobWrite:     "job_write_bytes",
	colNetRx:        "host_net_rx_bytes",
	colNetTx:        "host_net_tx_bytes",
	colJobCPUStall:  "job_cpu_pressure_some_s",
	colJobMemStall:  "job_memory_pressure_some_s",
	colJobIOStall:   "job_io_pressure_some_s",
	colHostCPUStall: "host_cpu_pressure_some_s",
	colHostMemStall: "host_memory_pressure_some_s",
	colHostIOStall:  "host_io_pressure_some_s",
}

// Load reads the artifacts of a run in dir. It needs at least one of
// spans.otlp.jsonl and resource-usage.csv; when both are missing the error
// wraps fs.ErrNotExist. Lines that could not be read are reported in warn,
// joined, and the rest is returned.
func Load(dir string) (d *Data, warn error, err error) {
	d = &Data{}
	var warns []error
	spanPath := filepath.Join(dir, spool.TracesFile)
	_, spanErr := os.Stat(spanPath)
	if spanErr == nil {
		if err := d.readSpans(spanPath); err != nil {
			if len(spool.LineErrors(err)) == 0 {
				return nil, nil, err
			}
			warns = append(warns, err)
		}
	}
	f, csvErr := regularfile.Open(filepath.Join(dir, usagecsv.FileName))
	if csvErr != nil && !errors.Is(csvErr, os.ErrNotExist) {
		warns = append(warns, fmt.Errorf("report: %s: %w", usagecsv.FileName, csvErr))
	}
	if csvErr == nil {
		defer f.Close()
		rows, err := ParseCSV(regularfile.LimitLines(f, usagecsv.MaxLineBytes))
		d.Rows = rows
		if err != nil {
			warns = append(warns, err)
		}
	}
	if spanErr != nil && csvErr != nil {
		return nil, nil, fmt.Errorf("report: %s: no %s and no %s: %w", dir, spool.TracesFile, usagecsv.FileName, os.ErrNotExist)
	}
	d.fillTimes()
	d.clean()
	return d, errors.Join(warns...), nil
}

// clean replaces invalid UTF-8 and control characters in the text a report
// shows (cleantext.String). jobtrace cleans names where they come in; a
// spool from elsewhere may hold "\u001b" escapes, which html/template
// would pass through as raw bytes.
func (d *Data) clean() {
	j := &d.Job
	for _, s := range []*string{&j.Name, &j.Result, &j.ExitCode, &j.Host, &j.Service} {
		*s = cleantext.String(*s)
	}
	for i := range d.Phases {
		d.Phases[i].Name = cleantext.String(d.Phases[i].Name)
		d.Phases[i].Result = cleantext.String(d.Phases[i].Result)
	}
}

type spanRes struct {
	span *tracepb.Span
	res  []*commonpb.KeyValue
}

// readSpans reads the spool, at most spool.MaxReadSpans spans and their
// ancestors (spool.ReadSpans), and picks the job span: the span with
// cicd.pipeline.task.name whose parent is not in the file (a job may join an
// outer trace), the earliest if there are several.
func (d *Data) readSpans(path string) error {
	var all []spanRes
	skipped, err := spool.ReadSpansProto(path, spool.MaxReadSpans, func(rs *tracepb.ResourceSpans, s *tracepb.Span) {
		var res []*commonpb.KeyValue
		if rs.Resource != nil {
			res = rs.Resource.Attributes
		}
		// Only what setSpans reads is kept: with events and other
		// attributes, a span takes several times the memory.
		s.Events, s.Links = nil, nil
		s.Attributes = slices.DeleteFunc(s.Attributes, func(kv *commonpb.KeyValue) bool { return !readAttrs[kv.Key] })
		all = append(all, spanRes{s, res})
	})
	d.setSpans(all)
	d.Skipped = skipped
	return err
}

// readAttrs are the span attributes setSpans reads.
var readAttrs = map[string]bool{
	"cicd.pipeline.task.name": true, "cicd.pipeline.task.run.result": true, "process.exit.code": true,
	"jobtrace.usage.cpu.user": true, "jobtrace.usage.cpu.system": true,
	"jobtrace.usage.cpu.utilization.avg": true, "jobtrace.usage.cpu.utilization.peak": true,
	"jobtrace.usage.memory.peak": true, "jobtrace.usage.disk.read": true, "jobtrace.usage.disk.write": true,
}

// setSpans fills the job and the phases. When the job span is missing (the
// agent was killed before it ended: the spool only has ended spans), the
// job's name is unknown, its times come from the rest, and the spans with
// no parent in the file are at depth 0.
func (d *Data) setSpans(all []spanRes) {
	byID := make(map[string]*tracepb.Span, len(all))
	for _, s := range all {
		byID[string(s.span.SpanId)] = s.span
	}
	var root *spanRes
	for i := range all {
		s := &all[i]
		if _, ok := byID[string(s.span.ParentSpanId)]; ok && len(s.span.ParentSpanId) > 0 {
			continue
		}
		if strAttr(s.span.Attributes, "cicd.pipeline.task.name") == "" {
			continue
		}
		if root == nil || s.span.StartTimeUnixNano < root.span.StartTimeUnixNano {
			root = s
		}
	}
	depth := map[string]int{}
	if root != nil {
		r := root.span
		d.Job = Job{
			Name:     r.Name,
			Result:   strAttr(r.Attributes, "cicd.pipeline.task.run.result"),
			ExitCode: strAttr(r.Attributes, "process.exit.code"),
			Start:    unixNano(r.StartTimeUnixNano),
			End:      unixNano(r.EndTimeUnixNano),
			Host:     strAttr(root.res, "host.name"),
			Service:  strAttr(root.res, "service.name"),
			Usage:    usageOf(r.Attributes),
		}
		depth[string(r.SpanId)] = -1
	} else if len(all) > 0 {
		d.Job.Host = strAttr(all[0].res, "host.name")
		d.Job.Service = strAttr(all[0].res, "service.name")
	}
	// depthOf follows parents up to the job span or to a span whose parent
	// is not in the file (depth 0); hops bounds it in a damaged file with a
	// cycle.
	var depthOf func(s *tracepb.Span, hops int) int
	depthOf = func(s *tracepb.Span, hops int) int {
		id := string(s.SpanId)
		if v, ok := depth[id]; ok {
			return v
		}
		v := 0
		if p, ok := byID[string(s.ParentSpanId)]; ok && len(s.ParentSpanId) > 0 && hops < 64 {
			v = depthOf(p, hops+1) + 1
		}
		depth[id] = v
		return v
	}
	for _, s := range all {
		if root != nil && s.span == root.span {
			continue
		}
		result := strAttr(s.span.Attributes, "cicd.pipeline.task.run.result")
		failed := s.span.Status != nil && s.span.Status.Code == tracepb.Status_STATUS_CODE_ERROR
		if result != "" && result != "success" {
			failed = true
		}
		d.Phases = append(d.Phases, Phase{
			Name:   s.span.Name,
			Depth:  depthOf(s.span, 0),
			Start:  unixNano(s.span.StartTimeUnixNano),
			End:    unixNano(s.span.EndTimeUnixNano),
			Result: result,
			Failed: failed,
			Usage:  usageOf(s.span.Attributes),
			id:     string(s.span.SpanId),
			parent: string(s.span.ParentSpanId),
		})
	}
	treeOrder(d.Phases)
}

// treeOrder orders phases as the tree they form: each phase followed by its
// children, siblings by start time. A phase whose parent is not among them
// (a child of the job's span, or of a span missing from the file) is at the
// top. Ordered by start time alone, a child that began with its parent
// would be listed under the phase before it when their times are equal or
// out of order.
func treeOrder(ps []Phase) {
	idx := make(map[string]int, len(ps))
	for i := range ps {
		idx[ps[i].id] = i
	}
	const top = -1
	kids := map[int][]int{}
	for i := range ps {
		p, ok := idx[ps[i].parent]
		if !ok || ps[i].parent == "" || p == i {
			p = top
		}
		kids[p] = append(kids[p], i)
	}
	byStart := func(a, b int) int {
		return cmp.Or(ps[a].Start.Compare(ps[b].Start), cmp.Compare(ps[a].Depth, ps[b].Depth), cmp.Compare(a, b))
	}
	for _, k := range kids {
		slices.SortFunc(k, byStart)
	}
	out := make([]Phase, 0, len(ps))
	seen := make([]bool, len(ps))
	// An explicit stack: the nesting depth is the job's to choose.
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
		if seen[i] {
			continue
		}
		seen[i] = true
		out = append(out, ps[i])
		push(kids[i])
	}
	// A cycle of parents in a damaged file is not reached from the top:
	// its phases come last, by start time.
	var rest []int
	for i := range ps {
		if !seen[i] {
			rest = append(rest, i)
		}
	}
	slices.SortFunc(rest, byStart)
	for _, i := range rest {
		out = append(out, ps[i])
	}
	copy(ps, out)
}

// fillTimes gives the job a start and end from the rows or the phases when
// there was no job span.
func (d *Data) fillTimes() {
	extend := func(t time.Time) {
		if t.IsZero() {
			return
		}
		if d.Job.Start.IsZero() || t.Before(d.Job.Start) {
			d.Job.Start = t
		}
		if d.Job.End.IsZero() || t.After(d.Job.End) {
			d.Job.End = t
		}
	}
	if !d.Job.Start.IsZero() && !d.Job.End.IsZero() {
		return
	}
	for _, p := range d.Phases {
		extend(p.Start)
		extend(p.End)
	}
	for _, r := range d.Rows {
		extend(r.Time)
	}
}

func unixNano(ns uint64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, int64(ns)).UTC()
}

func findAttr(kvs []*commonpb.KeyValue, key string) *commonpb.AnyValue {
	for _, kv := range kvs {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}

func strAttr(kvs []*commonpb.KeyValue, key string) string {
	v := findAttr(kvs, key)
	if v == nil {
		return ""
	}
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	}
	return ""
}

func numAttr(kvs []*commonpb.KeyValue, key string) Opt {
	v := findAttr(kvs, key)
	if v == nil {
		return Opt{}
	}
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_IntValue:
		return Opt{float64(x.IntValue), true}
	case *commonpb.AnyValue_DoubleValue:
		return Opt{x.DoubleValue, true}
	}
	return Opt{}
}

func usageOf(kvs []*commonpb.KeyValue) Usage {
	return Usage{
		CPUUser:    numAttr(kvs, "jobtrace.usage.cpu.user"),
		CPUSystem:  numAttr(kvs, "jobtrace.usage.cpu.system"),
		CPUAvg:     numAttr(kvs, "jobtrace.usage.cpu.utilization.avg"),
		CPUPeak:    numAttr(kvs, "jobtrace.usage.cpu.utilization.peak"),
		MemoryPeak: numAttr(kvs, "jobtrace.usage.memory.peak"),
		DiskRead:   numAttr(kvs, "jobtrace.usage.disk.read"),
		DiskWrite:  numAttr(kvs, "jobtrace.usage.disk.write"),
	}
}

// ParseCSV reads resource-usage.csv. Columns are found by name; a row that
// cannot be read (a torn last line, a bad time) is skipped and reported in
// the returned error, joined with the others, next to the rows read.
func ParseCSV(r io.Reader) ([]Row, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%w: %s header: %v", ErrParse, usagecsv.FileName, err)
	}
	timeCol := -1
	var cols [numCols]int
	for i := range cols {
		cols[i] = -1
	}
	for i, h := range header {
		if h == "time_utc" {
			timeCol = i
		}
		for c, name := range csvNames {
			if h == name {
				cols[c] = i
			}
		}
	}
	if timeCol < 0 {
		return nil, fmt.Errorf("%w: %s has no column time_utc", ErrParse, usagecsv.FileName)
	}
	var rows []Row
	var reports []error
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err == nil && len(rec) < len(header) {
			err = fmt.Errorf("%d fields, want %d", len(rec), len(header))
		}
		var t time.Time
		if err == nil {
			t, err = time.Parse(time.RFC3339Nano, rec[timeCol])
		}
		if err != nil {
			reports = append(reports, fmt.Errorf("%w: %s line %d: %v", ErrParse, usagecsv.FileName, line, err))
			continue
		}
		row := Row{Time: t.UTC()}
		for c, i := range cols {
			if i < 0 || rec[i] == "" {
				continue
			}
			v, err := strconv.ParseFloat(rec[i], 64)
			if err != nil {
				reports = append(reports, fmt.Errorf("%w: %s line %d: %s: %v", ErrParse, usagecsv.FileName, line, csvNames[c], err))
				continue
			}
			row.V[c] = Opt{v, true}
		}
		rows = append(rows, row)
	}
	return rows, errors.Join(reports...)
}
