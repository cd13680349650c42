package profile

// The types below are the part of the Firefox Profiler's processed format
// (version FormatVersion) that a profile without stack samples needs. The
// format is described in the profiler's docs-developer/processed-profile-format.md
// and typed in its src/types/profile.ts; older versions are upgraded on load
// by src/profile-logic/processed-profile-versioning.ts.

// FormatVersion is the processed-format version written in
// meta.preprocessedProfileVersion: the first version that has every
// feature the file uses. Version 62 gave counters their display (graph
// type, label, colour), version 63 the display's tooltip rows; the
// marker schemas' colorField and hidden fields, and the thread's
// showMarkersInTimeline, are older. The tables have the shape they had in
// version 63 (the stack table's prefix column, the resource table's lib
// column); the profiler upgrades them on load.
const FormatVersion = 63

// geckoVersion is meta.version: the version of the Gecko format that went
// with processed version 63.
const geckoVersion = 34

// Profile is the whole file.
type Profile struct {
	Meta     Meta      `json:"meta"`
	Libs     []any     `json:"libs"`
	Pages    []any     `json:"pages"`
	Counters []Counter `json:"counters"`
	Shared   Shared    `json:"shared"`
	Threads  []Thread  `json:"threads"`
}

// Meta describes the profile.
type Meta struct {
	// Interval is the usual time between samples, in ms.
	Interval float64 `json:"interval"`
	// StartTime is the profile's zero, in ms since the Unix epoch; every
	// other time in the profile is in ms after it.
	StartTime                  float64    `json:"startTime"`
	EndTime                    float64    `json:"endTime"`
	ProfilingStartTime         float64    `json:"profilingStartTime"`
	ProfilingEndTime           float64    `json:"profilingEndTime"`
	ProcessType                int        `json:"processType"`
	Categories                 []Category `json:"categories"`
	Product                    string     `json:"product"`
	Stackwalk                  int        `json:"stackwalk"`
	Version                    int        `json:"version"`
	PreprocessedProfileVersion int        `json:"preprocessedProfileVersion"`
	Symbolicated               bool       `json:"symbolicated"`
	LogicalCPUs                int        `json:"logicalCPUs,omitempty"`
	// SampleUnits says the units of the samples' columns (time,
	// eventDelay, threadCPUDelta).
	SampleUnits  map[string]string `json:"sampleUnits"`
	ImportedFrom string            `json:"importedFrom"`
	MarkerSchema []MarkerSchema    `json:"markerSchema"`
	Extensions   ExtensionsTable   `json:"extensions"`
}

// Category is an entry of meta.categories; markers refer to it by index.
type Category struct {
	Name          string   `json:"name"`
	Color         string   `json:"color"`
	Subcategories []string `json:"subcategories"`
}

// ExtensionsTable is empty: no browser extensions here.
type ExtensionsTable struct {
	ID      []string `json:"id"`
	Name    []string `json:"name"`
	BaseURL []string `json:"baseURL"`
	Length  int      `json:"length"`
}

// MarkerSchema says how markers whose data.type is Name are shown.
type MarkerSchema struct {
	Name         string        `json:"name"`
	TooltipLabel string        `json:"tooltipLabel,omitempty"`
	TableLabel   string        `json:"tableLabel,omitempty"`
	ChartLabel   string        `json:"chartLabel,omitempty"`
	Display      []string      `json:"display"`
	Fields       []MarkerField `json:"fields"`
	Description  string        `json:"description,omitempty"`
	// ColorField names the field that holds a marker's colour in the
	// marker chart (one of the profiler's graph colours: blue, red, grey,
	// ...); without it, or without the field, a marker is blue.
	ColorField string `json:"colorField,omitempty"`
}

// MarkerField is one field of a marker's data. A hidden field is not
// listed in the tooltip and sidebar, but labels can use it and a search
// finds it.
type MarkerField struct {
	Key    string `json:"key"`
	Label  string `json:"label"`
	Format string `json:"format"`
	Hidden bool   `json:"hidden,omitempty"`
}

// Counter is a track of values over time. Samples.Count[i] is the change
// over the time since sample i-1.
type Counter struct {
	Name            string         `json:"name"`
	Category        string         `json:"category"`
	Description     string         `json:"description"`
	Color           string         `json:"color"`
	Pid             string         `json:"pid"`
	MainThreadIndex int            `json:"mainThreadIndex"`
	Samples         CounterSamples `json:"samples"`
	Display         CounterDisplay `json:"display"`
}

// CounterSamples is the counter's samples table: times in ms after
// meta.startTime, strictly increasing.
type CounterSamples struct {
	Time   []float64 `json:"time"`
	Count  []float64 `json:"count"`
	Length int       `json:"length"`
}

// CounterDisplay is how the track is drawn: "line-accumulated" draws the
// running total of the counts (memory), "line-rate" the count divided by
// the time since the previous sample.
type CounterDisplay struct {
	GraphType            string       `json:"graphType"`
	Unit                 string       `json:"unit"`
	Color                string       `json:"color"`
	MarkerSchemaLocation *string      `json:"markerSchemaLocation"`
	SortWeight           int          `json:"sortWeight"`
	Label                string       `json:"label"`
	TooltipRows          []TooltipRow `json:"tooltipRows"`
}

// TooltipRow is one line of a counter's hover tooltip.
type TooltipRow struct {
	Type   string         `json:"type"`
	Source string         `json:"source,omitempty"`
	Format *TooltipFormat `json:"format,omitempty"`
	Label  string         `json:"label,omitempty"`
}

// TooltipFormat: unit is bytes, bytes-per-second, percent or number.
type TooltipFormat struct {
	Unit string `json:"unit"`
}

// Shared holds the tables threads share. Without stack samples the
// stack, frame, function, resource, symbol and source tables are empty;
// StringArray holds the marker names.
type Shared struct {
	StackTable    table    `json:"stackTable"`
	FrameTable    table    `json:"frameTable"`
	FuncTable     table    `json:"funcTable"`
	ResourceTable table    `json:"resourceTable"`
	NativeSymbols table    `json:"nativeSymbols"`
	Sources       table    `json:"sources"`
	StringArray   []string `json:"stringArray"`
}

// table is a column table: each listed column an empty array, and length.
type table map[string]any

func emptyTable(columns ...string) table {
	t := table{"length": 0}
	for _, c := range columns {
		t[c] = []any{}
	}
	return t
}

func emptyShared() Shared {
	return Shared{
		StackTable:    emptyTable("frame", "prefix"),
		FrameTable:    emptyTable("address", "inlineDepth", "category", "subcategory", "func", "nativeSymbol", "innerWindowID", "line", "column"),
		FuncTable:     emptyTable("isJS", "relevantForJS", "name", "resource", "source", "lineNumber", "columnNumber"),
		ResourceTable: emptyTable("lib", "name", "host", "type"),
		NativeSymbols: emptyTable("libIndex", "address", "name", "functionSize"),
		Sources:       emptyTable("id", "filename", "startLine", "startColumn", "sourceMapURL"),
		StringArray:   []string{},
	}
}

// Thread carries the markers.
type Thread struct {
	ProcessType         string        `json:"processType"`
	ProcessName         string        `json:"processName"`
	ProcessStartupTime  float64       `json:"processStartupTime"`
	ProcessShutdownTime *float64      `json:"processShutdownTime"`
	RegisterTime        float64       `json:"registerTime"`
	UnregisterTime      *float64      `json:"unregisterTime"`
	PausedRanges        []any         `json:"pausedRanges"`
	Name                string        `json:"name"`
	IsMainThread        bool          `json:"isMainThread"`
	Pid                 string        `json:"pid"`
	Tid                 int           `json:"tid"`
	Samples             ThreadSamples `json:"samples"`
	Markers             Markers       `json:"markers"`
}

// ThreadSamples is the thread's samples table: one sample per row of the
// run with the job's CPU time, whose stack is the phase open then (see
// cpuSamples). Weight is the CPU time in ms ("tracing-ms": the call tree
// sums it per phase); ThreadCPUDelta is the same in µs (meta.sampleUnits),
// which the activity graph draws up to 1000 µs per ms, one CPU busy.
type ThreadSamples struct {
	WeightType     string    `json:"weightType"`
	Weight         []float64 `json:"weight"`
	Stack          []*int    `json:"stack"`
	Time           []float64 `json:"time"`
	ThreadCPUDelta []float64 `json:"threadCPUDelta"`
	Length         int       `json:"length"`
}

// Marker phases.
const (
	PhaseInstant  = 0
	PhaseInterval = 1
)

// Markers is the marker table. Name is an index into shared.stringArray,
// Category into meta.categories; EndTime is null for instant markers.
type Markers struct {
	Data      []map[string]any `json:"data"`
	Name      []int            `json:"name"`
	StartTime []float64        `json:"startTime"`
	EndTime   []*float64       `json:"endTime"`
	Phase     []int            `json:"phase"`
	Category  []int            `json:"category"`
	Length    int              `json:"length"`
}
