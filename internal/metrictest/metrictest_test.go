package metrictest

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// What the meter recorded is collected under its name.
func TestCollect(t *testing.T) {
	r := New(t)
	c, err := r.Meter.Int64Counter("things")
	if err != nil {
		t.Fatal(err)
	}
	c.Add(context.Background(), 3)
	s, ok := r.Collect(t)["things"].Data.(metricdata.Sum[int64])
	if !ok || len(s.DataPoints) != 1 || s.DataPoints[0].Value != 3 {
		t.Errorf("collected %+v, want the counter at 3", s)
	}
}
