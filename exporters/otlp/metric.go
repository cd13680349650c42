package otlp

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/jobtrace/jobtrace/config"
)

// NewMetricExporter returns an OTLP metric exporter for e. Like the trace
// client it does not retry and does not touch the network before its first
// export.
func NewMetricExporter(ctx context.Context, e *config.Endpoint) (sdkmetric.Exporter, error) {
	if e == nil {
		return nil, ErrNoEndpoint
	}
	headers := headersOf(e)
	if e.Protocol == config.ProtocolGRPC {
		opts := []otlpmetricgrpc.Option{
			otlpmetricgrpc.WithEndpoint(e.HostPort()),
			otlpmetricgrpc.WithTLSCredentials(grpcCredentials(e.TLS)),
			otlpmetricgrpc.WithHeaders(headers),
			otlpmetricgrpc.WithTimeout(e.Timeout),
			otlpmetricgrpc.WithRetry(otlpmetricgrpc.RetryConfig{Enabled: false}),
			otlpmetricgrpc.WithDialOption(grpcDialOptions(e.Timeout, e.Gzip)...),
		}
		if e.Gzip {
			opts = append(opts, otlpmetricgrpc.WithCompressor("gzip"))
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
