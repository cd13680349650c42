package otlp

import (
	"context"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
)

// Every kind of metric the SDK makes, recorded by real instruments and
// collected by a real reader, comes out in its OTLP form with its values,
// attributes, resource and scope.
func TestResourceMetricsOfEveryKind(t *testing.T) {
	reader := sdkmetric.NewManualReader(sdkmetric.WithAggregationSelector(aggregation(HistogramExponential)))
	explicit := sdkmetric.NewView(sdkmetric.Instrument{Name: "explicit"}, sdkmetric.Stream{
		Aggregation: sdkmetric.AggregationExplicitBucketHistogram{Boundaries: []float64{1, 10}}})
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader), sdkmetric.WithView(explicit),
		sdkmetric.WithResource(resource.NewSchemaless(attribute.String("service.name", "svc"))))
	meter := mp.Meter("scope", metric.WithInstrumentationVersion("1.2"))
	ctx := context.Background()
	attrs := metric.WithAttributes(attribute.String("s", "x"), attribute.Int("i", 7), attribute.Bool("b", true),
		attribute.Float64("f", 0.5), attribute.StringSlice("ss", []string{"a", "b"}))
	c, _ := meter.Int64Counter("counter")
	c.Add(ctx, 3, attrs)
	u, _ := meter.Float64UpDownCounter("updown")
	u.Add(ctx, -1.5)
	g, _ := meter.Float64Gauge("gauge")
	g.Record(ctx, 2.5)
	h, _ := meter.Int64Histogram("explicit")
	h.Record(ctx, 5)
	e, _ := meter.Float64Histogram("exponential")
	e.Record(ctx, 4)
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &rm); err != nil {
		t.Fatal(err)
	}
	rm.ScopeMetrics[0].Metrics = append(rm.ScopeMetrics[0].Metrics, metricdata.Metrics{Name: "summary",
		Data: metricdata.Summary{DataPoints: []metricdata.SummaryDataPoint{{Count: 2, Sum: 3,
			QuantileValues: []metricdata.QuantileValue{{Quantile: 0.5, Value: 1}}}}}})

	md, err := resourceMetrics(&rm)
	if err != nil {
		t.Fatal(err)
	}
	pm := md.ResourceMetrics().At(0)
	if got := attrString(pm.Resource().Attributes()); got != "service.name=svc" {
		t.Errorf("resource %v", got)
	}
	sm := pm.ScopeMetrics().At(0)
	if sm.Scope().Name() != "scope" || sm.Scope().Version() != "1.2" {
		t.Errorf("scope %v %v", sm.Scope().Name(), sm.Scope().Version())
	}
	byName := map[string]pmetric.Metric{}
	for _, m := range sm.Metrics().All() {
		byName[m.Name()] = m
	}
	cumulative := pmetric.AggregationTemporalityCumulative
	if s := byName["counter"].Sum(); !s.IsMonotonic() || s.AggregationTemporality() != cumulative || s.DataPoints().At(0).IntValue() != 3 ||
		attrString(s.DataPoints().At(0).Attributes()) != "b=true f=0.5 i=7 s=x ss=[a b]" {
		t.Errorf("counter %v", byName["counter"])
	}
	if s := byName["updown"].Sum(); s.IsMonotonic() || s.DataPoints().At(0).DoubleValue() != -1.5 {
		t.Errorf("up-down counter %v", byName["updown"])
	}
	if g := byName["gauge"].Gauge(); g.DataPoints().At(0).DoubleValue() != 2.5 || g.DataPoints().At(0).Timestamp() == 0 {
		t.Errorf("gauge %v", byName["gauge"])
	}
	if h := byName["explicit"].Histogram().DataPoints().At(0); h.Count() != 1 || h.Sum() != 5 ||
		h.Min() != 5 || h.Max() != 5 || h.ExplicitBounds().Len() != 2 || h.BucketCounts().At(1) != 1 {
		t.Errorf("histogram %v", byName["explicit"])
	}
	if x := byName["exponential"].ExponentialHistogram().DataPoints().At(0); x.Count() != 1 || x.Sum() != 4 ||
		x.Positive().BucketCounts().Len() == 0 {
		t.Errorf("exponential histogram %v", byName["exponential"])
	}
	if s := byName["summary"].Summary().DataPoints().At(0); s.Count() != 2 || s.QuantileValues().At(0).Quantile() != 0.5 {
		t.Errorf("summary %v", byName["summary"])
	}

	rm.ScopeMetrics[0].Metrics = append(rm.ScopeMetrics[0].Metrics, metricdata.Metrics{Name: "no data"})
	if md, err := resourceMetrics(&rm); err == nil || !strings.Contains(err.Error(), "no data") ||
		md.ResourceMetrics().At(0).ScopeMetrics().At(0).Metrics().Len() != 6 {
		t.Errorf("a metric without data: %v", err)
	}
}

// attrString prints attributes as "key=value" in their order.
func attrString(m pcommon.Map) string {
	var parts []string
	for k, v := range m.All() {
		parts = append(parts, k+"="+valueString(v))
	}
	return strings.Join(parts, " ")
}

func valueString(v pcommon.Value) string {
	if v.Type() != pcommon.ValueTypeSlice {
		return v.AsString()
	}
	var elems []string
	for _, e := range v.Slice().All() {
		elems = append(elems, valueString(e))
	}
	return "[" + strings.Join(elems, " ") + "]"
}
