package otlp

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
)

// NewMetricExporter returns an OTLP metric exporter for s. Like the trace
// client it does not retry and does not touch the network before its first
// export.
func NewMetricExporter(ctx context.Context, s Settings) (sdkmetric.Exporter, error) {
	t, tlsCfg, gz, err := s.prepare(s.MetricsEndpoint, metricsPath)
	if err != nil {
		return nil, err
	}
	headers := headersOf(s)

	if t.grpc {
		opts := []otlpmetricgrpc.Option{
			otlpmetricgrpc.WithEndpoint(t.hostport),
			otlpmetricgrpc.WithTLSCredentials(grpcCredentials(tlsCfg)),
			otlpmetricgrpc.WithHeaders(headers),
			otlpmetricgrpc.WithTimeout(s.timeout()),
			otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig{Enabled: false}),
			otlpmetricgrpc.WithDialOption(grpcDialOptions(s.timeout(), gz)...),
		}
		if gz {
			opts = append(opts, otlpmetricgrpc.WithCompressor("gzip"))
		}
		return otlpmetricgrpc.New(ctx, opts...)
	}

	hc, tr := newHTTPClient(tlsCfg, s.timeout())
	compression := otlpmetrichttp.NoCompression
	if gz {
		compression = otlpmetrichttp.GzipCompression
	}
	exp, err := otlpmetrichttp.New(ctx,
		otlpmetrichttp.WithEndpointURL(t.url),
		otlpmetrichttp.WithTLSClientConfig(nil),
		otlpmetrichttp.WithHTTPClient(hc),
		otlpmetrichttp.WithHeaders(headers),
		otlpmetrichttp.WithTimeout(s.timeout()),
		otlpmetrichttp.WithCompression(compression),
		otlpmetrichttp.WithRetry(otlpmetrichttp.RetryConfig{Enabled: false}),
	)
	if err != nil {
		return nil, err
	}
	return &httpMetricExporter{Exporter: exp, tr: tr}, nil
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
