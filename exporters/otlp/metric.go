package otlp

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.opentelemetry.io/collector/pdata/pmetric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

var errShutdown = errors.New("otlp: metric exporter shut down")

// NewMetricExporter returns an OTLP metric exporter for e, built from e
// alone: it reads no OTEL_* variable and no file. Like the trace client it
// does not retry and does not touch the network before its first export.
// Its temporality and histogram aggregation are e's.
func NewMetricExporter(_ context.Context, e *Endpoint) (sdkmetric.Exporter, error) {
	if e == nil {
		return nil, ErrNoEndpoint
	}
	return &metricExporter{e: e, s: newSender(e, grpcMetricsExport),
		temporality: temporality(e.Temporality), aggregation: aggregation(e.Histogram)}, nil
}

// metricExporter sends metrics over OTLP/HTTP or OTLP/gRPC.
type metricExporter struct {
	e           *Endpoint
	temporality sdkmetric.TemporalitySelector
	aggregation sdkmetric.AggregationSelector
	s           sender

	mu       sync.Mutex
	shutdown bool
}

var _ sdkmetric.Exporter = (*metricExporter)(nil)

func (x *metricExporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return x.temporality(k)
}

func (x *metricExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return x.aggregation(k)
}

// Export sends rm in one request. A partial success (the collector dropped
// some data points) is an error that says how many.
func (x *metricExporter) Export(ctx context.Context, rm *metricdata.ResourceMetrics) error {
	x.mu.Lock()
	done := x.shutdown
	x.mu.Unlock()
	if done {
		return errShutdown
	}
	md, convErr := resourceMetrics(rm)
	body, err := (&pmetric.ProtoMarshaler{}).MarshalMetrics(md)
	if err != nil {
		return errors.Join(err, convErr)
	}
	rejected, msg, err := x.s.send(ctx, body)
	if err != nil {
		return errors.Join(err, convErr)
	}
	if rejected != 0 || msg != "" {
		err = fmt.Errorf("the collector accepted the metrics but rejected %d data points: %s", rejected, msg)
	}
	return errors.Join(err, convErr)
}

// ForceFlush has nothing to do: every Export is sent at once.
func (x *metricExporter) ForceFlush(context.Context) error { return nil }

// Shutdown closes the exporter's connections; later exports fail.
func (x *metricExporter) Shutdown(context.Context) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.shutdown {
		return nil
	}
	x.shutdown = true
	x.s.close()
	return nil
}

// temporality is the selector of a temporality preference, as the
// specification defines them: delta for counters and histograms with
// delta, and for synchronous counters and histograms only with lowmemory.
func temporality(pref string) sdkmetric.TemporalitySelector {
	switch pref {
	case TemporalityDelta:
		return sdkmetric.DeltaTemporalitySelector
	case TemporalityLowMemory:
		return sdkmetric.LowMemoryTemporalitySelector
	}
	return sdkmetric.CumulativeTemporalitySelector
}

// Base2ExponentialMaxSize and Base2ExponentialMaxScale are the
// specification's defaults for a base2 exponential bucket histogram: at
// most 160 buckets, starting at the finest scale, 20.
const (
	Base2ExponentialMaxSize  = 160
	Base2ExponentialMaxScale = 20
)

// aggregation is the selector of a default histogram aggregation.
func aggregation(histogram string) sdkmetric.AggregationSelector {
	if histogram != HistogramExponential {
		return sdkmetric.DefaultAggregationSelector
	}
	return func(kind sdkmetric.InstrumentKind) sdkmetric.Aggregation {
		if kind == sdkmetric.InstrumentKindHistogram {
			return sdkmetric.AggregationBase2ExponentialHistogram{MaxSize: Base2ExponentialMaxSize, MaxScale: Base2ExponentialMaxScale}
		}
		return sdkmetric.DefaultAggregationSelector(kind)
	}
}
