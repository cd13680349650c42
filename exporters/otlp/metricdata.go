package otlp

import (
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
)

// resourceMetrics is rm in the OTLP protobuf form, as the OpenTelemetry
// exporters write it. A metric whose data is of no kind OTLP has is left
// out, and named in the error.
func resourceMetrics(rm *metricdata.ResourceMetrics) (*metricpb.ResourceMetrics, error) {
	out := &metricpb.ResourceMetrics{
		Resource:  &resourcepb.Resource{Attributes: keyValues(rm.Resource.Iter())},
		SchemaUrl: rm.Resource.SchemaURL(),
	}
	var unknown []string
	for _, sm := range rm.ScopeMetrics {
		ps := &metricpb.ScopeMetrics{
			Scope: &commonpb.InstrumentationScope{
				Name:       sm.Scope.Name,
				Version:    sm.Scope.Version,
				Attributes: keyValues(sm.Scope.Attributes.Iter()),
			},
			SchemaUrl: sm.Scope.SchemaURL,
		}
		for _, m := range sm.Metrics {
			pm := &metricpb.Metric{Name: m.Name, Description: m.Description, Unit: m.Unit}
			if !setData(pm, m.Data) {
				unknown = append(unknown, m.Name)
				continue
			}
			ps.Metrics = append(ps.Metrics, pm)
		}
		out.ScopeMetrics = append(out.ScopeMetrics, ps)
	}
	if len(unknown) > 0 {
		return out, fmt.Errorf("otlp: metrics of no OTLP kind left out: %v", unknown)
	}
	return out, nil
}

// setData sets the data of pm from a, and reports whether a is of a kind
// OTLP has.
func setData(pm *metricpb.Metric, a metricdata.Aggregation) bool {
	if summary, ok := a.(metricdata.Summary); ok {
		pm.Data = &metricpb.Metric_Summary{Summary: &metricpb.Summary{DataPoints: each(summary.DataPoints, summaryPoint)}}
		return true
	}
	return setNumbers[int64](pm, a) || setNumbers[float64](pm, a)
}

// setNumbers sets the data of pm from a, when a holds numbers of type N.
func setNumbers[N int64 | float64](pm *metricpb.Metric, a metricdata.Aggregation) bool {
	switch a := a.(type) {
	case metricdata.Gauge[N]:
		pm.Data = &metricpb.Metric_Gauge{Gauge: &metricpb.Gauge{DataPoints: each(a.DataPoints, numberPoint[N])}}
	case metricdata.Sum[N]:
		pm.Data = &metricpb.Metric_Sum{Sum: &metricpb.Sum{
			AggregationTemporality: temporalityOf(a.Temporality), IsMonotonic: a.IsMonotonic, DataPoints: each(a.DataPoints, numberPoint[N])}}
	case metricdata.Histogram[N]:
		pm.Data = &metricpb.Metric_Histogram{Histogram: &metricpb.Histogram{
			AggregationTemporality: temporalityOf(a.Temporality), DataPoints: each(a.DataPoints, histogramPoint[N])}}
	case metricdata.ExponentialHistogram[N]:
		pm.Data = &metricpb.Metric_ExponentialHistogram{ExponentialHistogram: &metricpb.ExponentialHistogram{
			AggregationTemporality: temporalityOf(a.Temporality), DataPoints: each(a.DataPoints, exponentialPoint[N])}}
	default:
		return false
	}
	return true
}

// each is f of every element of in, nil for none.
func each[In, Out any](in []In, f func(In) Out) []Out {
	if len(in) == 0 {
		return nil
	}
	out := make([]Out, 0, len(in))
	for _, x := range in {
		out = append(out, f(x))
	}
	return out
}

func temporalityOf(t metricdata.Temporality) metricpb.AggregationTemporality {
	if t == metricdata.DeltaTemporality {
		return metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_DELTA
	}
	if t == metricdata.CumulativeTemporality {
		return metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE
	}
	return metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_UNSPECIFIED
}

// unixNano is t in nanoseconds since the epoch; 0 for the zero time.
func unixNano(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(max(0, t.UnixNano()))
}

func numberPoint[N int64 | float64](dp metricdata.DataPoint[N]) *metricpb.NumberDataPoint {
	p := &metricpb.NumberDataPoint{
		Attributes:        keyValues(dp.Attributes.Iter()),
		StartTimeUnixNano: unixNano(dp.StartTime),
		TimeUnixNano:      unixNano(dp.Time),
		Exemplars:         each(dp.Exemplars, exemplar[N]),
	}
	switch v := any(dp.Value).(type) {
	case int64:
		p.Value = &metricpb.NumberDataPoint_AsInt{AsInt: v}
	case float64:
		p.Value = &metricpb.NumberDataPoint_AsDouble{AsDouble: v}
	}
	return p
}

// extremum is the value of e as a float64, or nil when it is not set.
func extremum[N int64 | float64](e metricdata.Extrema[N]) *float64 {
	v, ok := e.Value()
	if !ok {
		return nil
	}
	f := float64(v)
	return &f
}

func histogramPoint[N int64 | float64](dp metricdata.HistogramDataPoint[N]) *metricpb.HistogramDataPoint {
	sum := float64(dp.Sum)
	// The fields in the order of their numbers in the message.
	return &metricpb.HistogramDataPoint{
		StartTimeUnixNano: unixNano(dp.StartTime),
		TimeUnixNano:      unixNano(dp.Time),
		Count:             dp.Count,
		Sum:               &sum,
		BucketCounts:      dp.BucketCounts,
		ExplicitBounds:    dp.Bounds,
		Exemplars:         each(dp.Exemplars, exemplar[N]),
		Attributes:        keyValues(dp.Attributes.Iter()),
		Min:               extremum(dp.Min),
		Max:               extremum(dp.Max),
	}
}

func exponentialPoint[N int64 | float64](dp metricdata.ExponentialHistogramDataPoint[N]) *metricpb.ExponentialHistogramDataPoint {
	sum := float64(dp.Sum)
	return &metricpb.ExponentialHistogramDataPoint{
		Attributes:        keyValues(dp.Attributes.Iter()),
		StartTimeUnixNano: unixNano(dp.StartTime),
		TimeUnixNano:      unixNano(dp.Time),
		Count:             dp.Count,
		Sum:               &sum,
		Scale:             dp.Scale,
		ZeroCount:         dp.ZeroCount,
		Positive:          &metricpb.ExponentialHistogramDataPoint_Buckets{Offset: dp.PositiveBucket.Offset, BucketCounts: dp.PositiveBucket.Counts},
		Negative:          &metricpb.ExponentialHistogramDataPoint_Buckets{Offset: dp.NegativeBucket.Offset, BucketCounts: dp.NegativeBucket.Counts},
		Min:               extremum(dp.Min),
		Max:               extremum(dp.Max),
		ZeroThreshold:     dp.ZeroThreshold,
		Exemplars:         each(dp.Exemplars, exemplar[N]),
	}
}

func summaryPoint(dp metricdata.SummaryDataPoint) *metricpb.SummaryDataPoint {
	return &metricpb.SummaryDataPoint{
		Attributes:        keyValues(dp.Attributes.Iter()),
		StartTimeUnixNano: unixNano(dp.StartTime),
		TimeUnixNano:      unixNano(dp.Time),
		Count:             dp.Count,
		Sum:               dp.Sum,
		QuantileValues: each(dp.QuantileValues, func(q metricdata.QuantileValue) *metricpb.SummaryDataPoint_ValueAtQuantile {
			return &metricpb.SummaryDataPoint_ValueAtQuantile{Quantile: q.Quantile, Value: q.Value}
		}),
	}
}

func exemplar[N int64 | float64](ex metricdata.Exemplar[N]) *metricpb.Exemplar {
	e := &metricpb.Exemplar{
		FilteredAttributes: each(ex.FilteredAttributes, keyValue),
		TimeUnixNano:       unixNano(ex.Time),
		SpanId:             ex.SpanID,
		TraceId:            ex.TraceID,
	}
	if n, ok := any(ex.Value).(int64); ok {
		e.Value = &metricpb.Exemplar_AsInt{AsInt: n}
	} else {
		e.Value = &metricpb.Exemplar_AsDouble{AsDouble: float64(ex.Value)}
	}
	return e
}

func keyValues(it attribute.Iterator) []*commonpb.KeyValue {
	return each(it.ToSlice(), keyValue)
}

func keyValue(kv attribute.KeyValue) *commonpb.KeyValue {
	return &commonpb.KeyValue{Key: string(kv.Key), Value: anyValue(kv.Value)}
}

// anyValue is v in OTLP's form, as the OpenTelemetry exporters write it.
func anyValue(v attribute.Value) *commonpb.AnyValue {
	var elems []*commonpb.AnyValue
	switch v.Type() {
	case attribute.BOOL:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}}
	case attribute.INT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}}
	case attribute.FLOAT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}}
	case attribute.STRING:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.AsString()}}
	case attribute.BYTESLICE:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BytesValue{BytesValue: v.AsByteSlice()}}
	case attribute.MAP:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_KvlistValue{KvlistValue: &commonpb.KeyValueList{Values: each(v.AsMap(), keyValue)}}}
	case attribute.EMPTY:
		return &commonpb.AnyValue{}
	case attribute.BOOLSLICE:
		elems = each(v.AsBoolSlice(), func(b bool) *commonpb.AnyValue { return anyValue(attribute.BoolValue(b)) })
	case attribute.INT64SLICE:
		elems = each(v.AsInt64Slice(), func(n int64) *commonpb.AnyValue { return anyValue(attribute.Int64Value(n)) })
	case attribute.FLOAT64SLICE:
		elems = each(v.AsFloat64Slice(), func(f float64) *commonpb.AnyValue { return anyValue(attribute.Float64Value(f)) })
	case attribute.STRINGSLICE:
		elems = each(v.AsStringSlice(), func(s string) *commonpb.AnyValue { return anyValue(attribute.StringValue(s)) })
	case attribute.SLICE:
		elems = each(v.AsSlice(), anyValue)
	default:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: "INVALID"}}
	}
	return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: &commonpb.ArrayValue{Values: elems}}}
}
