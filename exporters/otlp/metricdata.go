package otlp

import (
	"fmt"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/jobtrace/jobtrace/internal/pdataattr"
)

// resourceMetrics is rm in OTLP's form, as pdata, with the content the
// OpenTelemetry exporters give it. A metric whose data is of no kind OTLP
// has is left out, and named in the error.
func resourceMetrics(rm *metricdata.ResourceMetrics) (pmetric.Metrics, error) {
	md := pmetric.NewMetrics()
	out := md.ResourceMetrics().AppendEmpty()
	pdataattr.PutIter(out.Resource().Attributes(), rm.Resource.Iter())
	out.SetSchemaUrl(rm.Resource.SchemaURL())
	var unknown []string
	for _, sm := range rm.ScopeMetrics {
		ps := out.ScopeMetrics().AppendEmpty()
		ps.Scope().SetName(pdataattr.Valid(sm.Scope.Name))
		ps.Scope().SetVersion(pdataattr.Valid(sm.Scope.Version))
		pdataattr.PutIter(ps.Scope().Attributes(), sm.Scope.Attributes.Iter())
		ps.SetSchemaUrl(sm.Scope.SchemaURL)
		for _, m := range sm.Metrics {
			pm := pmetric.NewMetric()
			pm.SetName(pdataattr.Valid(m.Name))
			pm.SetDescription(pdataattr.Valid(m.Description))
			pm.SetUnit(pdataattr.Valid(m.Unit))
			if !setData(pm, m.Data) {
				unknown = append(unknown, m.Name)
				continue
			}
			pm.MoveTo(ps.Metrics().AppendEmpty())
		}
	}
	if len(unknown) > 0 {
		return md, fmt.Errorf("otlp: metrics of no OTLP kind left out: %v", unknown)
	}
	return md, nil
}

// setData sets the data of pm from a, and reports whether a is of a kind
// OTLP has.
func setData(pm pmetric.Metric, a metricdata.Aggregation) bool {
	if summary, ok := a.(metricdata.Summary); ok {
		points := pm.SetEmptySummary().DataPoints()
		for _, dp := range summary.DataPoints {
			summaryPoint(points.AppendEmpty(), dp)
		}
		return true
	}
	return setNumbers[int64](pm, a) || setNumbers[float64](pm, a)
}

// setNumbers sets the data of pm from a, when a holds numbers of type N.
func setNumbers[N int64 | float64](pm pmetric.Metric, a metricdata.Aggregation) bool {
	switch a := a.(type) {
	case metricdata.Gauge[N]:
		each(pm.SetEmptyGauge().DataPoints(), a.DataPoints, numberPoint[N])
	case metricdata.Sum[N]:
		s := pm.SetEmptySum()
		s.SetAggregationTemporality(temporalityOf(a.Temporality))
		s.SetIsMonotonic(a.IsMonotonic)
		each(s.DataPoints(), a.DataPoints, numberPoint[N])
	case metricdata.Histogram[N]:
		h := pm.SetEmptyHistogram()
		h.SetAggregationTemporality(temporalityOf(a.Temporality))
		each(h.DataPoints(), a.DataPoints, histogramPoint[N])
	case metricdata.ExponentialHistogram[N]:
		h := pm.SetEmptyExponentialHistogram()
		h.SetAggregationTemporality(temporalityOf(a.Temporality))
		each(h.DataPoints(), a.DataPoints, exponentialPoint[N])
	default:
		return false
	}
	return true
}

// slice is a pdata slice of points.
type slice[P any] interface {
	EnsureCapacity(int)
	AppendEmpty() P
}

// each sets a new element of out from every element of in, with put.
func each[In, P any](out slice[P], in []In, put func(P, In)) {
	out.EnsureCapacity(len(in))
	for _, x := range in {
		put(out.AppendEmpty(), x)
	}
}

func temporalityOf(t metricdata.Temporality) pmetric.AggregationTemporality {
	if t == metricdata.DeltaTemporality {
		return pmetric.AggregationTemporalityDelta
	}
	if t == metricdata.CumulativeTemporality {
		return pmetric.AggregationTemporalityCumulative
	}
	return pmetric.AggregationTemporalityUnspecified
}

// unixNano is t in nanoseconds since the epoch; 0 for the zero time.
func unixNano(t time.Time) pcommon.Timestamp {
	if t.IsZero() {
		return 0
	}
	return pcommon.Timestamp(uint64(max(0, t.UnixNano())))
}

func numberPoint[N int64 | float64](p pmetric.NumberDataPoint, dp metricdata.DataPoint[N]) {
	pdataattr.PutIter(p.Attributes(), dp.Attributes.Iter())
	p.SetStartTimestamp(unixNano(dp.StartTime))
	p.SetTimestamp(unixNano(dp.Time))
	each(p.Exemplars(), dp.Exemplars, exemplar[N])
	switch v := any(dp.Value).(type) {
	case int64:
		p.SetIntValue(v)
	case float64:
		p.SetDoubleValue(v)
	}
}

// extrema sets min and max with the values of lo and hi that are set.
func extrema[N int64 | float64](lo, hi metricdata.Extrema[N], setMin, setMax func(float64)) {
	if v, ok := lo.Value(); ok {
		setMin(float64(v))
	}
	if v, ok := hi.Value(); ok {
		setMax(float64(v))
	}
}

func histogramPoint[N int64 | float64](p pmetric.HistogramDataPoint, dp metricdata.HistogramDataPoint[N]) {
	p.SetStartTimestamp(unixNano(dp.StartTime))
	p.SetTimestamp(unixNano(dp.Time))
	p.SetCount(dp.Count)
	p.SetSum(float64(dp.Sum))
	p.BucketCounts().FromRaw(dp.BucketCounts)
	p.ExplicitBounds().FromRaw(dp.Bounds)
	each(p.Exemplars(), dp.Exemplars, exemplar[N])
	pdataattr.PutIter(p.Attributes(), dp.Attributes.Iter())
	extrema(dp.Min, dp.Max, p.SetMin, p.SetMax)
}

func exponentialPoint[N int64 | float64](p pmetric.ExponentialHistogramDataPoint, dp metricdata.ExponentialHistogramDataPoint[N]) {
	pdataattr.PutIter(p.Attributes(), dp.Attributes.Iter())
	p.SetStartTimestamp(unixNano(dp.StartTime))
	p.SetTimestamp(unixNano(dp.Time))
	p.SetCount(dp.Count)
	p.SetSum(float64(dp.Sum))
	p.SetScale(dp.Scale)
	p.SetZeroCount(dp.ZeroCount)
	p.Positive().SetOffset(dp.PositiveBucket.Offset)
	p.Positive().BucketCounts().FromRaw(dp.PositiveBucket.Counts)
	p.Negative().SetOffset(dp.NegativeBucket.Offset)
	p.Negative().BucketCounts().FromRaw(dp.NegativeBucket.Counts)
	extrema(dp.Min, dp.Max, p.SetMin, p.SetMax)
	p.SetZeroThreshold(dp.ZeroThreshold)
	each(p.Exemplars(), dp.Exemplars, exemplar[N])
}

func summaryPoint(p pmetric.SummaryDataPoint, dp metricdata.SummaryDataPoint) {
	pdataattr.PutIter(p.Attributes(), dp.Attributes.Iter())
	p.SetStartTimestamp(unixNano(dp.StartTime))
	p.SetTimestamp(unixNano(dp.Time))
	p.SetCount(dp.Count)
	p.SetSum(dp.Sum)
	qs := p.QuantileValues()
	qs.EnsureCapacity(len(dp.QuantileValues))
	for _, q := range dp.QuantileValues {
		v := qs.AppendEmpty()
		v.SetQuantile(q.Quantile)
		v.SetValue(q.Value)
	}
}

func exemplar[N int64 | float64](e pmetric.Exemplar, ex metricdata.Exemplar[N]) {
	pdataattr.Put(e.FilteredAttributes(), ex.FilteredAttributes)
	e.SetTimestamp(unixNano(ex.Time))
	if len(ex.SpanID) == len(pcommon.SpanID{}) {
		e.SetSpanID(pcommon.SpanID(ex.SpanID))
	}
	if len(ex.TraceID) == len(pcommon.TraceID{}) {
		e.SetTraceID(pcommon.TraceID(ex.TraceID))
	}
	if n, ok := any(ex.Value).(int64); ok {
		e.SetIntValue(n)
	} else {
		e.SetDoubleValue(float64(ex.Value))
	}
}
