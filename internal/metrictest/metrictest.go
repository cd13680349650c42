// Package metrictest reads back what an OpenTelemetry meter recorded, for
// tests: a meter on the SDK's manual reader, and what it collected, by
// metric name.
package metrictest

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// Reader is a meter whose recordings a test collects.
type Reader struct {
	Meter  metric.Meter
	reader *sdkmetric.ManualReader
}

// New returns a Reader, whose provider is shut down when the test ends.
func New(t testing.TB) *Reader {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	return &Reader{Meter: mp.Meter("test"), reader: reader}
}

// Collect returns the metrics recorded so far, by name.
func (r *Reader) Collect(t testing.TB) map[string]metricdata.Metrics {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			out[m.Name] = m
		}
	}
	return out
}
