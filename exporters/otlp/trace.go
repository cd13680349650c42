package otlp

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
)

// NewTraceClient returns an OTLP trace client for s, not started. Nothing
// touches the network until its first upload.
func NewTraceClient(s Settings) (otlptrace.Client, error) {
	t, tlsCfg, gz, err := s.prepare(s.TracesEndpoint, tracesPath)
	if err != nil {
		return nil, err
	}
	headers := headersOf(s)

	if t.grpc {
		opts := []otlptracegrpc.Option{
			otlptracegrpc.WithEndpoint(t.hostport),
			otlptracegrpc.WithTLSCredentials(grpcCredentials(tlsCfg)),
			otlptracegrpc.WithHeaders(headers),
			otlptracegrpc.WithTimeout(s.timeout()),
			otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}),
			otlptracegrpc.WithDialOption(grpcDialOptions(s.timeout(), gz)...),
		}
		if gz {
			opts = append(opts, otlptracegrpc.WithCompressor("gzip"))
		}
		return otlptracegrpc.NewClient(opts...), nil
	}

	hc, tr := newHTTPClient(tlsCfg, s.timeout())
	compression := otlptracehttp.NoCompression
	if gz {
		compression = otlptracehttp.GzipCompression
	}
	c := otlptracehttp.NewClient(
		otlptracehttp.WithEndpointURL(t.url),
		// Our own HTTP client carries the TLS settings; clearing the
		// option's copy drops a certificate the client may have read
		// from the environment, which it would otherwise refuse to
		// combine with an http:// endpoint.
		otlptracehttp.WithTLSClientConfig(nil),
		otlptracehttp.WithHTTPClient(hc),
		otlptracehttp.WithHeaders(headers),
		otlptracehttp.WithTimeout(s.timeout()),
		otlptracehttp.WithCompression(compression),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}),
	)
	return &httpTraceClient{Client: c, tr: tr}, nil
}

// httpTraceClient closes the idle keep-alive connections of its transport
// when stopped, so no connection goroutine outlives the client.
type httpTraceClient struct {
	otlptrace.Client
	tr *http.Transport
}

func (c *httpTraceClient) Stop(ctx context.Context) error {
	err := c.Client.Stop(ctx)
	c.tr.CloseIdleConnections()
	return err
}

// headersOf returns a non-nil map, so that an empty header set from our
// config still replaces headers the client read from the environment.
func headersOf(s Settings) map[string]string {
	h := make(map[string]string, len(s.Headers))
	for k, v := range s.Headers {
		h[k] = v
	}
	return h
}

func grpcCredentials(tlsCfg *tls.Config) credentials.TransportCredentials {
	if tlsCfg == nil {
		return insecure.NewCredentials()
	}
	return credentials.NewTLS(tlsCfg)
}

// grpcDialOptions shortens gRPC's reconnect backoff (default: 1 s growing to
// 120 s) so that a collector that comes back is used again within a couple
// of seconds, which matters for jobs that last minutes. Without gzip, the
// identity compressor is set explicitly to override a compression the client
// may have read from the environment.
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

// newHTTPClient returns a client with a transport of its own, so that its
// idle connections can be closed when the exporter stops.
func newHTTPClient(tlsCfg *tls.Config, timeout time.Duration) (*http.Client, *http.Transport) {
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       tlsCfg,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   timeout,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{Transport: tr, Timeout: timeout}, tr
}
