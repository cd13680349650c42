package promtext

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// ContentType is the HTTP Content-Type of what Append writes.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Names of what the translation adds.
const (
	TargetInfo            = "target_info"
	targetInfoHelp        = "Target metadata"
	scopeNameLabel        = "otel_scope_name"
	scopeVersionLabel     = "otel_scope_version"
	scopeSchemaLabel      = "otel_scope_schema_url"
	scopeAttrLabelsPrefix = "otel_scope_"
	bucketLabel           = "le"
)

// Options are the choices of the translation.
type Options struct {
	// ResourceLabels picks the resource attributes that are labels of
	// every series, besides target_info; nil picks none.
	ResourceLabels func(attribute.KeyValue) bool
}

// label is one label of a series, its value not yet escaped.
type label struct{ name, value string }

// family is the series of one metric name.
type family struct {
	name, help string
	kind       kind
	series     []series
}

// series is the lines of one data point (a histogram's are several).
type series struct {
	key  string // its labels as written: the order of a family's series
	text []byte
}

// Append appends rm to b in the text format. What cannot be written (a
// name or label that translates to nothing, a type conflict, an
// aggregation the format has no place for) is left out, and the returned
// error says what: an errors.Join of one error per problem. Everything
// else is written.
func Append(b []byte, rm *metricdata.ResourceMetrics, opt Options) ([]byte, error) {
	var errs []error
	fams := map[string]*family{}
	var resourceAttrs []attribute.KeyValue
	if rm.Resource != nil {
		for _, kv := range rm.Resource.Attributes() {
			if opt.ResourceLabels != nil && opt.ResourceLabels(kv) {
				resourceAttrs = append(resourceAttrs, kv)
			}
		}
	}
	for _, sm := range rm.ScopeMetrics {
		scope := scopeLabels(sm.Scope)
		for _, m := range sm.Metrics {
			errs = addMetric(errs, fams, m, scope, resourceAttrs)
		}
	}
	if rm.Resource != nil && rm.Resource.Len() > 0 {
		labels := attrLabels(rm.Resource.Attributes(), nil)
		key := formatLabels(nil, labels)
		fams[TargetInfo] = &family{name: TargetInfo, help: targetInfoHelp, kind: kindGauge, series: []series{{
			key: string(key), text: sampleLine(nil, TargetInfo, key, "", func(b []byte) []byte { return append(b, '1') }),
		}}}
	}
	names := make([]string, 0, len(fams))
	for n, f := range fams {
		if len(f.series) > 0 {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		f := fams[n]
		if f.help != "" {
			b = append(b, "# HELP "...)
			b = append(b, n...)
			b = append(b, ' ')
			b = appendEscaped(b, f.help, false)
			b = append(b, '\n')
		}
		b = append(b, "# TYPE "...)
		b = append(b, n...)
		b = append(b, ' ')
		b = append(b, f.kind.typeName()...)
		b = append(b, '\n')
		slices.SortStableFunc(f.series, func(x, y series) int { return cmp.Compare(x.key, y.key) })
		for _, s := range f.series {
			b = append(b, s.text...)
		}
	}
	return b, errors.Join(errs...)
}

// scopeLabels are the labels of an instrumentation scope, on every series
// of its metrics.
func scopeLabels(s instrumentation.Scope) []label {
	labels := []label{{scopeNameLabel, s.Name}, {scopeVersionLabel, s.Version}, {scopeSchemaLabel, s.SchemaURL}}
	for _, l := range attrLabels(s.Attributes.ToSlice(), nil) {
		switch l.name {
		case "name", "version", "schema_url":
			continue // the scope's own fields
		}
		labels = append(labels, label{scopeAttrLabelsPrefix + l.name, l.value})
	}
	return labels
}

// attrLabels appends the labels of attrs to dst: attributes whose keys
// become the same label name are one label, their values joined by ";" in
// the order of the keys. An attribute whose key becomes no name is left
// out.
func attrLabels(attrs []attribute.KeyValue, dst []label) []label {
	attrs = slices.Clone(attrs)
	slices.SortStableFunc(attrs, func(x, y attribute.KeyValue) int { return cmp.Compare(x.Key, y.Key) })
	start := len(dst)
	for _, kv := range attrs {
		n := labelName(string(kv.Key))
		if n == "" {
			continue
		}
		if i := slices.IndexFunc(dst[start:], func(l label) bool { return l.name == n }); i >= 0 {
			dst[start+i].value += ";" + kv.Value.String()
			continue
		}
		dst = append(dst, label{n, kv.Value.String()})
	}
	return dst
}

// seriesLabels are the labels of a data point: its attributes and the
// resource's chosen ones (joined as attrLabels does), then the scope's,
// which win over an attribute of the same name, sorted by name.
func seriesLabels(attrs attribute.Set, resource []attribute.KeyValue, scope []label) []label {
	all := append(attrs.ToSlice(), resource...)
	labels := attrLabels(all, make([]label, 0, len(all)+len(scope)))
	labels = slices.DeleteFunc(labels, func(l label) bool {
		return slices.ContainsFunc(scope, func(s label) bool { return s.name == l.name })
	})
	labels = append(labels, scope...)
	slices.SortFunc(labels, func(x, y label) int { return cmp.Compare(x.name, y.name) })
	return labels
}

// addMetric adds the series of m to its family, and appends to errs what
// it leaves out.
func addMetric(errs []error, fams map[string]*family, m metricdata.Metrics, scope []label, resource []attribute.KeyValue) []error {
	var k kind
	temporality := metricdata.CumulativeTemporality
	var add func(point pointFunc, name string)
	switch d := m.Data.(type) {
	case metricdata.Gauge[int64]:
		k, add = kindGauge, points(d.DataPoints)
	case metricdata.Gauge[float64]:
		k, add = kindGauge, points(d.DataPoints)
	case metricdata.Sum[int64]:
		k, temporality, add = sumKind(d.IsMonotonic), d.Temporality, points(d.DataPoints)
	case metricdata.Sum[float64]:
		k, temporality, add = sumKind(d.IsMonotonic), d.Temporality, points(d.DataPoints)
	case metricdata.Histogram[int64]:
		k, temporality, add = kindHistogram, d.Temporality, histograms(d.DataPoints)
	case metricdata.Histogram[float64]:
		k, temporality, add = kindHistogram, d.Temporality, histograms(d.DataPoints)
	default:
		return append(errs, fmt.Errorf("metric %s left out: the text format has no %T", m.Name, m.Data))
	}
	if temporality != metricdata.CumulativeTemporality {
		return append(errs, fmt.Errorf("metric %s left out: delta temporality", m.Name))
	}
	name := metricName(m.Name, m.Unit, k)
	if name == "" {
		return append(errs, fmt.Errorf("metric %q left out: no Prometheus name is left of it", m.Name))
	}
	if name == TargetInfo {
		return append(errs, fmt.Errorf("metric %s left out: %s is the resource's", m.Name, TargetInfo))
	}
	f, ok := fams[name]
	switch {
	case !ok:
		f = &family{name: name, help: m.Description, kind: k}
		fams[name] = f
	case f.kind.typeName() != k.typeName():
		return append(errs, fmt.Errorf("metric %s left out: %s is a %s already", m.Name, name, f.kind.typeName()))
	}
	point := func(attrs attribute.Set, write func(b []byte, key []byte) []byte) {
		labels := seriesLabels(attrs, resource, scope)
		if k == kindHistogram && slices.ContainsFunc(labels, func(l label) bool { return l.name == bucketLabel }) {
			errs = append(errs, fmt.Errorf("a series of %s left out: label %s is the bucket's", name, bucketLabel))
			return
		}
		key := formatLabels(nil, labels)
		f.series = append(f.series, series{key: string(key), text: write(nil, key)})
	}
	add(point, name)
	return errs
}

func sumKind(monotonic bool) kind {
	if monotonic {
		return kindCounter
	}
	return kindSumGauge
}

// pointFunc adds one series with the labels of attrs, its lines written
// by write given the labels formatted.
type pointFunc func(attrs attribute.Set, write func(b, key []byte) []byte)

// points adds a series for each of dps.
func points[N int64 | float64](dps []metricdata.DataPoint[N]) func(pointFunc, string) {
	return func(point pointFunc, name string) {
		for _, dp := range dps {
			point(dp.Attributes, func(b, key []byte) []byte {
				return sampleLine(b, name, key, "", func(b []byte) []byte { return appendNumber(b, dp.Value) })
			})
		}
	}
}

// histograms adds a series (its buckets, sum and count) for each of dps.
func histograms[N int64 | float64](dps []metricdata.HistogramDataPoint[N]) func(pointFunc, string) {
	return func(point pointFunc, name string) {
		for _, dp := range dps {
			point(dp.Attributes, func(b, key []byte) []byte {
				var cum uint64
				bucket := name + "_bucket"
				for i, bound := range dp.Bounds {
					if math.IsInf(bound, +1) {
						break // the +Inf bucket is written below
					}
					if i < len(dp.BucketCounts) {
						cum += dp.BucketCounts[i]
					}
					b = sampleLine(b, bucket, withBound(key, bound), "", func(b []byte) []byte { return strconv.AppendUint(b, cum, 10) })
				}
				b = sampleLine(b, bucket, withBound(key, math.Inf(+1)), "", func(b []byte) []byte { return strconv.AppendUint(b, dp.Count, 10) })
				b = sampleLine(b, name, key, "_sum", func(b []byte) []byte { return appendNumber(b, dp.Sum) })
				return sampleLine(b, name, key, "_count", func(b []byte) []byte { return strconv.AppendUint(b, dp.Count, 10) })
			})
		}
	}
}

// withBound is the labels of a bucket: the series' labels, then le.
func withBound(key []byte, bound float64) []byte {
	le := slices.Clip(key)
	if len(le) > 0 {
		le = append(le, ',')
	}
	le = append(le, bucketLabel+`="`...)
	return append(appendFloat(le, bound), '"')
}

// sampleLine appends one line: name, suffix, {labels} when there are
// any, a space, the value and a newline.
func sampleLine(b []byte, name string, labels []byte, suffix string, value func([]byte) []byte) []byte {
	b = append(b, name...)
	b = append(b, suffix...)
	if len(labels) > 0 {
		b = append(b, '{')
		b = append(b, labels...)
		b = append(b, '}')
	}
	b = append(b, ' ')
	b = value(b)
	return append(b, '\n')
}

// formatLabels appends labels as name="value" pairs separated by commas,
// their values escaped.
func formatLabels(b []byte, labels []label) []byte {
	for i, l := range labels {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, l.name...)
		b = append(b, `="`...)
		b = appendEscaped(b, l.value, true)
		b = append(b, '"')
	}
	return b
}

// appendEscaped appends s with backslash and newline escaped, and the
// double quote too when quoted (a label value; HELP text leaves it);
// invalid UTF-8 becomes U+FFFD, since the format is UTF-8.
func appendEscaped(b []byte, s string, quoted bool) []byte {
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		switch {
		case r == utf8.RuneError && size == 1:
			b = utf8.AppendRune(b, utf8.RuneError)
		case r == '\\':
			b = append(b, `\\`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '"' && quoted:
			b = append(b, `\"`...)
		default:
			b = append(b, s[:size]...)
		}
		s = s[size:]
	}
	return b
}

// appendNumber appends an int64 as an integer and a float64 as
// appendFloat does.
func appendNumber[N int64 | float64](b []byte, v N) []byte {
	switch v := any(v).(type) {
	case int64:
		return strconv.AppendInt(b, v, 10)
	case float64:
		return appendFloat(b, v)
	}
	return b
}

// appendFloat appends f as the format spells it: the shortest decimal or
// exponent form that reads back as f, NaN, +Inf or -Inf.
func appendFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, +1):
		return append(b, "+Inf"...)
	case math.IsInf(f, -1):
		return append(b, "-Inf"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}
