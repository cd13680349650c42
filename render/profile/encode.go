package profile

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/jobtrace/jobtrace/internal/jsonnumber"
	"github.com/jobtrace/jobtrace/internal/jsonstring"
)

// appendProfile appends p as JSON followed by a newline: the bytes
// json.NewEncoder(w).Encode(p) writes (HTML-escaped strings, sorted map
// keys, the float format of encoding/json), written field by field instead
// of through reflection, whose first use in a process costs more than the
// whole encoding of a run's profile. A value of a type it does not know
// (in a marker's data or an empty table) is marshalled by encoding/json.
func appendProfile(b []byte, p *Profile) ([]byte, error) {
	e := encoder{b: b}
	e.profile(p)
	e.b = append(e.b, '\n')
	return e.b, e.err
}

// encoder appends JSON to b; the first error is kept, and the rest
// written all the same.
type encoder struct {
	b   []byte
	err error
}

// The values of members that encoding/json leaves out when they are
// empty (omitempty).
type (
	omitEmpty string
	omitZero  int
	omitFalse bool
	omitted   struct{}
)

// object appends an object whose members are given as name, value pairs
// in their order; a value is written by value, and left out with its name
// when it is an empty omitEmpty, omitZero or omitFalse.
func (e *encoder) object(members ...any) {
	e.b = append(e.b, '{')
	first := true
	for i := 0; i < len(members); i += 2 {
		e.member(&first, members[i].(string), members[i+1])
	}
	e.b = append(e.b, '}')
}

// member appends the member name: v of an object, after a comma unless
// *first; an empty omitEmpty, omitZero or omitFalse is left out.
func (e *encoder) member(first *bool, name string, v any) {
	switch v {
	case omitEmpty(""), omitZero(0), omitFalse(false), omitted{}:
		return
	}
	if !*first {
		e.b = append(e.b, ',')
	}
	*first = false
	e.str(name)
	e.b = append(e.b, ':')
	e.value(v)
}

func (e *encoder) str(s string) { e.b = jsonstring.AppendAsEncodingJSON(e.b, s) }

func (e *encoder) float(f float64) {
	b, err := jsonnumber.AppendFloat(e.b, f)
	if err != nil && e.err == nil {
		e.err = err
	}
	e.b = b
}

// list appends s as an array, each element by elem: null for a nil slice,
// as encoding/json writes it.
func list[T any](e *encoder, s []T, elem func(T)) {
	if s == nil {
		e.b = append(e.b, "null"...)
		return
	}
	e.b = append(e.b, '[')
	for i, v := range s {
		if i > 0 {
			e.b = append(e.b, ',')
		}
		elem(v)
	}
	e.b = append(e.b, ']')
}

// value appends v: the profile's own types and the types its fields,
// maps and lists hold by hand, any other by encoding/json.
func (e *encoder) value(v any) {
	switch v := v.(type) {
	case nil:
		e.b = append(e.b, "null"...)
	case string:
		e.str(v)
	case omitEmpty:
		e.str(string(v))
	case bool:
		e.b = strconv.AppendBool(e.b, v)
	case omitFalse:
		e.b = strconv.AppendBool(e.b, bool(v))
	case int:
		e.b = strconv.AppendInt(e.b, int64(v), 10)
	case omitZero:
		e.b = strconv.AppendInt(e.b, int64(v), 10)
	case int64:
		e.b = strconv.AppendInt(e.b, v, 10)
	case float64:
		e.float(v)
	case *float64:
		if v == nil {
			e.value(nil)
		} else {
			e.float(*v)
		}
	case *int:
		if v == nil {
			e.value(nil)
		} else {
			e.value(*v)
		}
	case *string:
		if v == nil {
			e.value(nil)
		} else {
			e.str(*v)
		}
	case []any:
		list(e, v, e.value)
	case []string:
		list(e, v, e.str)
	case []float64:
		list(e, v, e.float)
	case []int:
		list(e, v, func(n int) { e.value(n) })
	case []*float64:
		list(e, v, func(f *float64) { e.value(f) })
	case []*int:
		list(e, v, func(n *int) { e.value(n) })
	case map[string]any:
		e.mapAny(v)
	case table:
		e.mapAny(v)
	case map[string]string:
		sortedMap(e, v)
	case rawObject:
		v()
	case []map[string]any:
		list(e, v, e.mapAny)
	case []Category:
		list(e, v, func(c Category) {
			e.object("name", c.Name, "color", c.Color, "subcategories", c.Subcategories)
		})
	default:
		b, err := json.Marshal(v)
		if err != nil {
			if e.err == nil {
				e.err = err
			}
			return
		}
		e.b = append(e.b, b...)
	}
}

func (e *encoder) profile(p *Profile) {
	m := &p.Meta
	x := &m.Extensions
	s := &p.Shared
	e.b = append(e.b, `{"meta":`...)
	e.object("interval", m.Interval, "startTime", m.StartTime, "endTime", m.EndTime,
		"profilingStartTime", m.ProfilingStartTime, "profilingEndTime", m.ProfilingEndTime,
		"processType", m.ProcessType, "categories", m.Categories, "product", m.Product,
		"stackwalk", m.Stackwalk, "version", m.Version, "preprocessedProfileVersion", m.PreprocessedProfileVersion,
		"symbolicated", m.Symbolicated, "logicalCPUs", omitZero(m.LogicalCPUs), "sampleUnits", m.SampleUnits,
		"importedFrom", m.ImportedFrom, "markerSchema", rawObject(func() { list(e, m.MarkerSchema, e.markerSchema) }),
		"extensions", rawObject(func() {
			e.object("id", x.ID, "name", x.Name, "baseURL", x.BaseURL, "length", x.Length)
		}))
	e.b = append(e.b, `,"libs":`...)
	e.value(p.Libs)
	e.b = append(e.b, `,"pages":`...)
	e.value(p.Pages)
	e.b = append(e.b, `,"counters":`...)
	list(e, p.Counters, e.counter)
	e.b = append(e.b, `,"shared":`...)
	e.object("stackTable", s.StackTable, "frameTable", s.FrameTable, "funcTable", s.FuncTable,
		"resourceTable", s.ResourceTable, "nativeSymbols", s.NativeSymbols, "sources", s.Sources,
		"stringArray", s.StringArray)
	e.b = append(e.b, `,"threads":`...)
	list(e, p.Threads, e.thread)
	e.b = append(e.b, '}')
}

// rawObject is a member's value written by a function of the encoder's
// (an object, or a list of objects).
type rawObject func()

func (e *encoder) markerSchema(s MarkerSchema) {
	e.object("name", s.Name, "tooltipLabel", omitEmpty(s.TooltipLabel), "tableLabel", omitEmpty(s.TableLabel),
		"chartLabel", omitEmpty(s.ChartLabel), "display", s.Display,
		"fields", rawObject(func() {
			list(e, s.Fields, func(f MarkerField) {
				e.object("key", f.Key, "label", f.Label, "format", f.Format, "hidden", omitFalse(f.Hidden))
			})
		}),
		"description", omitEmpty(s.Description), "colorField", omitEmpty(s.ColorField))
}

func (e *encoder) counter(c Counter) {
	d := &c.Display
	e.object("name", c.Name, "category", c.Category, "description", c.Description, "color", c.Color,
		"pid", c.Pid, "mainThreadIndex", c.MainThreadIndex,
		"samples", rawObject(func() {
			e.object("time", c.Samples.Time, "count", c.Samples.Count, "length", c.Samples.Length)
		}),
		"display", rawObject(func() {
			e.object("graphType", d.GraphType, "unit", d.Unit, "color", d.Color,
				"markerSchemaLocation", d.MarkerSchemaLocation, "sortWeight", d.SortWeight, "label", d.Label,
				"tooltipRows", rawObject(func() {
					list(e, d.TooltipRows, func(r TooltipRow) {
						var format any = omitted{}
						if r.Format != nil {
							format = rawObject(func() { e.object("unit", r.Format.Unit) })
						}
						e.object("type", r.Type, "source", omitEmpty(r.Source), "format", format, "label", omitEmpty(r.Label))
					})
				}))
		}))
}

func (e *encoder) thread(t Thread) {
	s, m := &t.Samples, &t.Markers
	e.object("processType", t.ProcessType, "processName", t.ProcessName,
		"processStartupTime", t.ProcessStartupTime, "processShutdownTime", t.ProcessShutdownTime,
		"registerTime", t.RegisterTime, "unregisterTime", t.UnregisterTime, "pausedRanges", t.PausedRanges,
		"name", t.Name, "isMainThread", t.IsMainThread, "pid", t.Pid, "tid", t.Tid,
		"samples", rawObject(func() {
			e.object("weightType", s.WeightType, "weight", s.Weight, "stack", s.Stack, "time", s.Time,
				"threadCPUDelta", s.ThreadCPUDelta, "length", s.Length)
		}),
		"markers", rawObject(func() {
			e.object("data", m.Data, "name", m.Name, "startTime", m.StartTime, "endTime", m.EndTime,
				"phase", m.Phase, "category", m.Category, "length", m.Length)
		}))
}

// sortedMap appends m as encoding/json writes a map: its members sorted
// by key; null for a nil map.
func sortedMap[V any](e *encoder, m map[string]V) {
	if m == nil {
		e.value(nil)
		return
	}
	var room [16]string
	keys := room[:0]
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	e.b = append(e.b, '{')
	first := true
	for _, k := range keys {
		e.member(&first, k, m[k])
	}
	e.b = append(e.b, '}')
}

func (e *encoder) mapAny(m map[string]any) { sortedMap(e, m) }
