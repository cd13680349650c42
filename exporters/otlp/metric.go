package otlp

import (
	"context"
	"maps"
	"net/http"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// NewMetricExporter returns an OTLP metric exporter for e. Like the trace
// client it does not retry and does not touch the network before its first
// export.
func NewMetricExporter(ctx context.Context, e *Endpoint) (sdkmetric.Exporter, error) {
	if e == nil {
		return nil, ErrNoEndpoint
	}
	headers := maps.Clone(e.Headers)
	if e.Protocol == ProtocolGRPC {
		opts := []otlpmetricgrpc.Option{
			otlpmetricgrpc.WithEndpoint(e.HostPort()),
			otlpmetricgrpc.WithTLSCredentials(grpcCredentials(e.TLS)),
			otlpmetricgrpc.WithHeaders(headers),
			otlpmetricgrpc.WithTimeout(e.Timeout),
			otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig{Enabled: false}),
			otlpmetricgrpc.WithTemporalitySelector(temporality(e.Temporality)),
			otlpmetricgrpc.WithAggregationSelector(aggregation(e.Histogram)),
			otlpmetricgrpc.WithDialOption(grpcDialOptions(e.Timeout, e.Gzip)...),
		}
		return withoutOTLPEnv(func() (sdkmetric.Exporter, error) { return otlpmetricgrpc.New(ctx, opts...) })
	}
	hc, tr := newHTTPClient(e)
	compression := otlpmetrichttp.NoCompression
	if e.Gzip {
		compression = otlpmetrichttp.GzipCompression
	}
	return withoutOTLPEnv(func() (sdkmetric.Exporter, error) {
		exp, err := otlpmetrichttp.New(ctx,
			otlpmetrichttp.WithEndpointURL(baseURL(e)),
			otlpmetrichttp.WithTLSClientConfig(nil),
			otlpmetrichttp.WithHTTPClient(hc),
			otlpmetrichttp.WithHeaders(headers),
			otlpmetrichttp.WithTimeout(e.Timeout),
			otlpmetrichttp.WithCompression(compression),
			otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false}),
			otlpmetrichttp.WithTemporalitySelector(temporality(e.Temporality)),
			otlpmetrichttp.WithAggregationSelector(aggregation(e.Histogram)),
		)
		if err != nil {
			return nil, err
		}
		return &httpMetricExporter{Exporter: exp, tr: tr}, nil
	})
}

// httpMetricExporter closes its transport's idle connections on Shutdown.
type httpMetricExporter struct {
	sdkmetric.Exporter
	tr *http.Transport
}

func (e *httpMetricExporter) Shutdown(ctx context.Context) error {
	err := e.Exporter.Shutdown(ctx)
	e.tr.CloseIdleConnections()
	return err
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
