package otlp

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricpb "go.opentelemetry.io/proto/otlp/metrics/v1"
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

	pm, err := resourceMetrics(&rm)
	if err != nil {
		t.Fatal(err)
	}
	if got := pm.Resource.Attributes; len(got) != 1 || got[0].Key != "service.name" || got[0].Value.GetStringValue() != "svc" {
		t.Errorf("resource %v", got)
	}
	sm := pm.ScopeMetrics[0]
	if sm.Scope.Name != "scope" || sm.Scope.Version != "1.2" {
		t.Errorf("scope %v", sm.Scope)
	}
	byName := map[string]*metricpb.Metric{}
	for _, m := range sm.Metrics {
		byName[m.Name] = m
	}
	cumulative := metricpb.AggregationTemporality_AGGREGATION_TEMPORALITY_CUMULATIVE
	if s := byName["counter"].GetSum(); !s.GetIsMonotonic() || s.GetAggregationTemporality() != cumulative || s.DataPoints[0].GetAsInt() != 3 ||
		attrString(s.DataPoints[0].Attributes) != "b=true f=0.5 i=7 s=x ss=[a b]" {
		t.Errorf("counter %v", byName["counter"])
	}
	if s := byName["updown"].GetSum(); s.GetIsMonotonic() || s.DataPoints[0].GetAsDouble() != -1.5 {
		t.Errorf("up-down counter %v", byName["updown"])
	}
	if g := byName["gauge"].GetGauge(); g.DataPoints[0].GetAsDouble() != 2.5 || g.DataPoints[0].TimeUnixNano == 0 {
		t.Errorf("gauge %v", byName["gauge"])
	}
	if h := byName["explicit"].GetHistogram(); h.DataPoints[0].Count != 1 || h.DataPoints[0].GetSum() != 5 ||
		h.DataPoints[0].GetMin() != 5 || h.DataPoints[0].GetMax() != 5 || len(h.DataPoints[0].ExplicitBounds) != 2 ||
		h.DataPoints[0].BucketCounts[1] != 1 {
		t.Errorf("histogram %v", byName["explicit"])
	}
	if x := byName["exponential"].GetExponentialHistogram(); x.DataPoints[0].Count != 1 || x.DataPoints[0].GetSum() != 4 ||
		len(x.DataPoints[0].Positive.BucketCounts) == 0 {
		t.Errorf("exponential histogram %v", byName["exponential"])
	}
	if s := byName["summary"].GetSummary(); s.DataPoints[0].Count != 2 || s.DataPoints[0].QuantileValues[0].Quantile != 0.5 {
		t.Errorf("summary %v", byName["summary"])
	}

	rm.ScopeMetrics[0].Metrics = append(rm.ScopeMetrics[0].Metrics, metricdata.Metrics{Name: "no data"})
	if pm, err := resourceMetrics(&rm); err == nil || !strings.Contains(err.Error(), "no data") || len(pm.ScopeMetrics[0].Metrics) != 6 {
		t.Errorf("a metric without data: %v", err)
	}
}

// attrString prints attributes as "key=value" in their order.
func attrString(kvs []*commonpb.KeyValue) string {
	var parts []string
	for _, kv := range kvs {
		parts = append(parts, kv.Key+"="+valueString(kv.Value))
	}
	return strings.Join(parts, " ")
}

func valueString(v *commonpb.AnyValue) string {
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_BoolValue:
		return strconv.FormatBool(x.BoolValue)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	case *commonpb.AnyValue_ArrayValue:
		var elems []string
		for _, e := range x.ArrayValue.Values {
			elems = append(elems, valueString(e))
		}
		return "[" + strings.Join(elems, " ") + "]"
	}
	return "?"
}
