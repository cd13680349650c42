package otlp

import (
	"context"
	"crypto/tls"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
)

// NewTraceClient returns an OTLP trace client for e, not started. Nothing
// touches the network until its first upload.
func NewTraceClient(e *Endpoint) (otlptrace.Client, error) {
	if e == nil {
		return nil, ErrNoEndpoint
	}
	headers := headersOf(e)
	if e.Protocol == ProtocolGRPC {
		opts := []otlptracegrpc.Option{
			otlptracegrpc.WithEndpoint(e.HostPort()),
			otlptracegrpc.WithTLSCredentials(grpcCredentials(e.TLS)),
			otlptracegrpc.WithHeaders(headers),
			otlptracegrpc.WithTimeout(e.Timeout),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}),
			otlptracegrpc.WithDialOption(grpcDialOptions(e.Timeout, e.Gzip)...),
		}
		if e.Gzip {
			opts = append(opts, otlptracegrpc.WithCompressor("gzip"))
		}
		return withoutOTLPEnv(func() (otlptrace.Client, error) {
			return grpcTraceClient{otlptracegrpc.NewClient(opts...)}, nil
		})
	}
	hc, tr := newHTTPClient(e)
	hc.Transport = statusTransport{hc.Transport}
	compression := otlptracehttp.NoCompression
	if e.Gzip {
		compression = otlptracehttp.GzipCompression
	}
	return withoutOTLPEnv(func() (otlptrace.Client, error) {
		c := otlptracehttp.NewClient(
			otlptracehttp.WithEndpointURL(baseURL(e)),
			// Our own HTTP client carries the TLS settings.
			otlptracehttp.WithTLSClientConfig(nil),
			otlptracehttp.WithHTTPClient(hc),
			otlptracehttp.WithHeaders(headers),
			otlptracehttp.WithTimeout(e.Timeout),
			otlptracehttp.WithCompression(compression),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}),
		)
		return &httpTraceClient{Client: c, tr: tr}, nil
	})
}

// httpTraceClient closes the idle keep-alive connections of its transport
// when stopped, so no connection goroutine outlives the client. Its uploads'
// errors carry the HTTP status, for Classify.
type httpTraceClient struct {
	otlptrace.Client
	tr *http.Transport
}

func (c *httpTraceClient) UploadTraces(ctx context.Context, rss []*tracepb.ResourceSpans) error {
	return withStatus(ctx, func(ctx context.Context) error { return c.Client.UploadTraces(ctx, rss) })
}

// grpcTraceClient reports a partial success as a *PartialError.
type grpcTraceClient struct{ otlptrace.Client }

func (c grpcTraceClient) UploadTraces(ctx context.Context, rss []*tracepb.ResourceSpans) error {
	return partial(c.Client.UploadTraces(ctx, rss))
}

func (c *httpTraceClient) Stop(ctx context.Context) error {
	err := c.Client.Stop(ctx)
	c.tr.CloseIdleConnections()
	return err
}

// headersOf returns a copy of the headers, never nil.
func headersOf(e *Endpoint) map[string]string {
	h := make(map[string]string, len(e.Headers))
	for k, v := range e.Headers {
		h[k] = v
	}
	return h
}

func grpcCredentials(tlsCfg *tls.Config) credentials.TransportCredentials {
	if tlsCfg == nil {
		return insecure.NewCredentials()
	}
	return credentials.NewTLS(tlsCfg.Clone())
}

// grpcDialOptions shortens gRPC's reconnect backoff (default: 1 s growing to
// 120 s) so that a collector that comes back is used again within a couple
// of seconds, which matters for jobs that last minutes. Without gzip, the
// identity compressor is set explicitly.
func grpcDialOptions(timeout time.Duration, gz bool) []grpc.DialOption {
	opts := []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
		Backoff: backoff.Config{
			BaseDelay:  100 * time.Millisecond,
			Multiplier: 1.6,
			Jitter:     0.2,
			MaxDelay:   2 * time.Second,
		},
		MinConnectTimeout: timeout,
	})}
	if !gz {
		opts = append(opts, grpc.WithDefaultCallOptions(grpc.UseCompressor(encoding.Identity)))
	}
	return opts
}
