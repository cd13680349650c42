package profile

import (
	"encoding/hex"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/jobtrace/jobtrace/hostmetrics/usage"
)

// Indexes into meta.categories.
const (
	catOther = iota
	catPhase
	catFailed
	catEvent
)

var categories = []Category{
	// The profiler wants a grey category, the default.
	{Name: "Other", Color: "grey", Subcategories: []string{"Other"}},
	{Name: "Phase", Color: "blue", Subcategories: []string{"Other"}},
	{Name: "Failed phase", Color: "red", Subcategories: []string{"Other"}},
	{Name: "Event", Color: "orange", Subcategories: []string{"Other"}},
}

// Marker data types, the names of their schemas.
const (
	typePhase = "Phase"
	typeEvent = "Event"
)

var markerDisplay = []string{"marker-chart", "marker-table", "timeline-overview"}

var markerSchemas = []MarkerSchema{
	{
		Name:         typePhase,
		TooltipLabel: "{marker.name}",
		TableLabel:   "{marker.data.result}",
		ChartLabel:   "{marker.data.name}",
		Display:      markerDisplay,
		Description:  "A phase of the job (a span); the job itself is at depth 0.",
		Fields: []MarkerField{
			{Key: "name", Label: "Name", Format: "string"},
			{Key: "parent", Label: "Inside", Format: "string"},
			{Key: "depth", Label: "Depth", Format: "integer"},
			{Key: "result", Label: "Result", Format: "string"},
			{Key: "status", Label: "Status", Format: "string"},
			{Key: "cpu", Label: "CPU time", Format: "duration"},
			{Key: "cpuAvg", Label: "CPU use (share of all CPUs)", Format: "percentage"},
			{Key: "memoryPeak", Label: "Peak memory", Format: "bytes"},
			{Key: "diskRead", Label: "Disk read", Format: "bytes"},
			{Key: "diskWrite", Label: "Disk written", Format: "bytes"},
			{Key: "exitCode", Label: "Exit code", Format: "integer"},
			{Key: "source", Label: "Source", Format: "string"},
			{Key: "attributes", Label: "Attributes", Format: "string"},
		},
	},
	{
		Name:         typeEvent,
		TooltipLabel: "{marker.name}",
		TableLabel:   "{marker.data.phase}",
		Display:      markerDisplay,
		Description:  "An event recorded on a phase (a span event).",
		Fields: []MarkerField{
			{Key: "phase", Label: "Phase", Format: "string"},
			{Key: "source", Label: "Source", Format: "string"},
			{Key: "line", Label: "Line", Format: "string"},
			{Key: "attributes", Label: "Attributes", Format: "string"},
		},
	},
}

// Attribute keys read from spans and events (docs/attributes.md).
const (
	attrResult      = "cicd.pipeline.task.run.result"
	attrExitCode    = "process.exit.code"
	attrPid         = "process.pid"
	attrPhaseSource = "jobtrace.phase.source"
	attrEventSource = "jobtrace.event.source"
	attrLine        = "jobtrace.line"
)

// shown lists the span attributes that have a field of their own, left
// out of the "attributes" field.
var shown = map[string]bool{
	attrResult: true, attrExitCode: true, attrPhaseSource: true,
	attrEventSource: true, attrLine: true,
}

// node is a span with its place in the tree: its depth and the name of
// its parent, not the names of all the phases above it, so that a marker
// costs the same however deep its phase is.
type node struct {
	span   *tracepb.Span
	depth  int
	parent string // the parent's name; "" for the job
}

// Build makes the profile of a run from its spans (as read from
// spans.otlp.jsonl) and its resource-usage rows. It does no I/O. Either
// may be empty; a run with neither is an error.
func Build(spans []*tracepb.Span, rows []Row) (*Profile, error) {
	if len(spans) == 0 && len(rows) == 0 {
		return nil, fmt.Errorf("%w: no spans and no resource-usage rows", ErrParse)
	}
	nodes, root := tree(spans)

	// The profile's zero is the earliest time known, its end the latest.
	var zero, end int64 = math.MaxInt64, math.MinInt64
	see := func(ns int64) {
		zero, end = min(zero, ns), max(end, ns)
	}
	for _, n := range nodes {
		see(int64(n.span.StartTimeUnixNano))
		see(int64(n.span.EndTimeUnixNano))
		for _, e := range n.span.Events {
			see(int64(e.TimeUnixNano))
		}
	}
	for _, r := range rows {
		see(r.Time.UnixNano())
	}
	ms := func(ns int64) float64 { return round3(float64(ns-zero) / 1e6) }

	jobName, pid := "job", "0"
	if root != nil {
		jobName = root.span.Name
		if v, ok := attr(root.span.Attributes, attrPid); ok {
			pid = v
		}
	}

	p := &Profile{
		Meta: Meta{
			Interval:                   interval(rows),
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
		},
		Libs:   []any{},
		Pages:  []any{},
		Shared: emptyShared(),
	}
	if len(rows) > 0 && rows[0].CPUs.OK {
		p.Meta.LogicalCPUs = int(rows[0].CPUs.V)
	}

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
		Samples: ThreadSamples{
			WeightType: "samples", EventDelay: []float64{}, Stack: []int{}, Time: []float64{},
		},
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
	for _, n := range nodes {
		s := n.span
		start, stop := ms(int64(s.StartTimeUnixNano)), ms(int64(s.EndTimeUnixNano))
		if stop < start {
			stop = start
		}
		cat := catPhase
		if s.Status != nil && s.Status.Code == tracepb.Status_STATUS_CODE_ERROR {
			cat = catFailed
		}
		add(s.Name, start, &stop, PhaseInterval, cat, phaseData(n))
	}
	for _, n := range nodes {
		for _, e := range n.span.Events {
			data := map[string]any{"type": typeEvent, "phase": n.span.Name}
			if v, ok := attr(e.Attributes, attrEventSource); ok {
				data["source"] = v
			}
			if v, ok := attr(e.Attributes, attrLine); ok {
				data["line"] = v
			}
			if a := otherAttrs(e.Attributes); a != "" {
				data["attributes"] = a
			}
			add(e.Name, ms(int64(e.TimeUnixNano)), nil, PhaseInstant, catEvent, data)
		}
	}
	p.Threads = []Thread{th}
	p.Counters = counters(rows, ms, pid)
	return p, nil
}

// tree orders the spans by start time (parents before children that start
// with them) and gives each its depth and its parent's name. The root is the
// span whose parent is not among them: the job span, even when it joined an
// outer trace.
func tree(spans []*tracepb.Span) ([]node, *node) {
	byID := map[string]*tracepb.Span{}
	for _, s := range spans {
		byID[hex.EncodeToString(s.SpanId)] = s
	}
	info := map[*tracepb.Span]*node{}
	var walk func(s *tracepb.Span, seen int) *node
	walk = func(s *tracepb.Span, seen int) *node {
		if n, ok := info[s]; ok {
			return n
		}
		n := &node{span: s}
		parent, ok := byID[hex.EncodeToString(s.ParentSpanId)]
		if ok && parent != s && seen < len(spans) {
			pn := walk(parent, seen+1)
			n.depth = pn.depth + 1
			n.parent = parent.Name
		}
		info[s] = n
		return n
	}
	nodes := make([]node, 0, len(spans))
	var root *node
	for _, s := range spans {
		n := walk(s, 0)
		nodes = append(nodes, *n)
	}
	sort.SliceStable(nodes, func(i, j int) bool {
		a, b := nodes[i], nodes[j]
		if a.span.StartTimeUnixNano != b.span.StartTimeUnixNano {
			return a.span.StartTimeUnixNano < b.span.StartTimeUnixNano
		}
		return a.depth < b.depth
	})
	for i := range nodes {
		if nodes[i].depth == 0 && (root == nil || spanLen(nodes[i].span) > spanLen(root.span)) {
			root = &nodes[i]
		}
	}
	return nodes, root
}

func spanLen(s *tracepb.Span) uint64 {
	if s.EndTimeUnixNano < s.StartTimeUnixNano {
		return 0
	}
	return s.EndTimeUnixNano - s.StartTimeUnixNano
}

// phaseData is the data of a span's marker.
func phaseData(n node) map[string]any {
	s := n.span
	d := map[string]any{"type": typePhase, "name": s.Name, "depth": n.depth}
	if n.parent != "" {
		d["parent"] = n.parent
	}
	if v, ok := attr(s.Attributes, attrResult); ok {
		d["result"] = v
	}
	if s.Status != nil && s.Status.Message != "" {
		d["status"] = s.Status.Message
	}
	if v, ok := attr(s.Attributes, attrPhaseSource); ok {
		d["source"] = v
	}
	if v, ok := number(s.Attributes, attrExitCode); ok {
		d["exitCode"] = v
	}
	user, uok := number(s.Attributes, string(usage.AttrCPUUser))
	sys, sok := number(s.Attributes, string(usage.AttrCPUSystem))
	if uok && sok {
		d["cpu"] = round3((user + sys) * 1000) // the profiler's durations are in ms
	}
	if v, ok := number(s.Attributes, string(usage.AttrCPUAvg)); ok {
		d["cpuAvg"] = v
	}
	if v, ok := number(s.Attributes, string(usage.AttrMemoryPeak)); ok {
		d["memoryPeak"] = v
	}
	if v, ok := number(s.Attributes, string(usage.AttrDiskRead)); ok {
		d["diskRead"] = v
	}
	if v, ok := number(s.Attributes, string(usage.AttrDiskWrite)); ok {
		d["diskWrite"] = v
	}
	if a := otherAttrs(s.Attributes); a != "" {
		d["attributes"] = a
	}
	return d
}

// otherAttrs lists the attributes that have no field of their own, as
// key=value separated by commas; usage figures are left out (the fields
// above show the main ones, the span in a trace viewer has them all).
func otherAttrs(kvs []*commonpb.KeyValue) string {
	var parts []string
	for _, kv := range kvs {
		if shown[kv.Key] || strings.HasPrefix(kv.Key, "jobtrace.usage.") || strings.HasPrefix(kv.Key, "jobtrace.system.") {
			continue
		}
		parts = append(parts, kv.Key+"="+valueString(kv.Value))
	}
	return strings.Join(parts, ", ")
}

func attr(kvs []*commonpb.KeyValue, key string) (string, bool) {
	for _, kv := range kvs {
		if kv.Key == key {
			return valueString(kv.Value), true
		}
	}
	return "", false
}

func number(kvs []*commonpb.KeyValue, key string) (float64, bool) {
	for _, kv := range kvs {
		if kv.Key != key || kv.Value == nil {
			continue
		}
		switch v := kv.Value.Value.(type) {
		case *commonpb.AnyValue_IntValue:
			return float64(v.IntValue), true
		case *commonpb.AnyValue_DoubleValue:
			return v.DoubleValue, true
		}
	}
	return 0, false
}

func valueString(v *commonpb.AnyValue) string {
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
	case *commonpb.AnyValue_ArrayValue:
		var parts []string
		for _, e := range x.ArrayValue.GetValues() {
			parts = append(parts, valueString(e))
		}
		return "[" + strings.Join(parts, " ") + "]"
	case *commonpb.AnyValue_BytesValue:
		return hex.EncodeToString(x.BytesValue)
	}
	return ""
}

// interval is the median time between rows, in ms: the sampling interval
// (boundary rows come closer). 1 s when there are too few rows.
func interval(rows []Row) float64 {
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
