package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	_ "google.golang.org/grpc/encoding/gzip" // registers the gzip compressor
	"google.golang.org/grpc/metadata"
)

// MaxResponseBytes bounds what is read of a collector's answer. An OTLP
// answer is a partial success or an error status of a few hundred bytes;
// a server that is not a collector may answer with a page, of which the
// first bytes say enough.
const MaxResponseBytes = 64 << 10

var (
	errAlreadyStarted = errors.New("otlp: trace client already started")
	errNotStarted     = errors.New("otlp: trace client not started")
)

// TraceClient sends spans to a collector. Start before the first upload,
// Stop after the last.
type TraceClient interface {
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	// Upload sends td in one request, encoded once from pdata.
	Upload(ctx context.Context, td ptrace.Traces) error
}

// NewTraceClient returns an OTLP trace client for e, not started. Nothing
// touches the network until its first upload. It is built from e alone:
// it reads no OTEL_* variable and no file. Its uploads are not retried (the
// forwarder retries from the spool); their errors carry the collector's
// HTTP status or gRPC code, for Classify, and a partial success is a
// *PartialError.
func NewTraceClient(e *Endpoint) (TraceClient, error) {
	if e == nil {
		return nil, ErrNoEndpoint
	}
	if e.Protocol == ProtocolGRPC {
		return &grpcTraceClient{e: e}, nil
	}
	hc, tr := newHTTPClient(e)
	return &httpTraceClient{e: e, hc: hc, tr: tr}, nil
}

// httpTraceClient posts OTLP/HTTP protobuf requests to the endpoint's URL.
type httpTraceClient struct {
	e  *Endpoint
	hc *http.Client
	tr *http.Transport
}

func (c *httpTraceClient) Start(context.Context) error { return nil }

// Stop closes the idle keep-alive connections, so no connection goroutine
// outlives the client.
func (c *httpTraceClient) Stop(context.Context) error {
	c.tr.CloseIdleConnections()
	return nil
}

func (c *httpTraceClient) Upload(ctx context.Context, td ptrace.Traces) error {
	body, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	if err != nil {
		return err
	}
	rejected, msg, err := post(ctx, c.e, c.hc, body)
	if err != nil {
		return err
	}
	return partialError(rejected, msg)
}

// post sends body, the protobuf of an OTLP export request, to e's URL as
// an OTLP/HTTP request, within e's timeout, and returns the partial
// success of a successful answer. A failed answer is a *statusError with
// the collector's status and the start of its body.
func post(ctx context.Context, e *Endpoint, hc *http.Client, body []byte) (rejected int64, msg string, err error) {
	ctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	if e.Gzip {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		if _, err := zw.Write(body); err != nil {
			return 0, "", err
		}
		if err := zw.Close(); err != nil {
			return 0, "", err
		}
		body = b.Bytes()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL.String(), bytes.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	for k, v := range e.Headers {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	if e.Gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	r, err := hc.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer r.Body.Close()
	data, err := io.ReadAll(io.LimitReader(r.Body, MaxResponseBytes))
	if err != nil {
		return 0, "", err
	}
	if r.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(data))
		if msg == "" {
			msg = "(empty)"
		}
		return 0, "", &statusError{code: r.StatusCode, err: fmt.Errorf("%s answered %s: %s", e, r.Status, msg)}
	}
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/x-protobuf") {
		return 0, "", nil
	}
	return partialSuccess(data)
}

// grpcTraceClient exports over OTLP/gRPC. Its connection is made by Start
// (it dials at the first upload) and closed by Stop.
type grpcTraceClient struct {
	e    *Endpoint
	conn *grpc.ClientConn
	svc  ptraceotlp.GRPCClient
}

func (c *grpcTraceClient) Start(context.Context) error {
	if c.conn != nil {
		return errAlreadyStarted
	}
	conn, err := dialGRPC(c.e)
	if err != nil {
		return err
	}
	c.conn, c.svc = conn, ptraceotlp.NewGRPCClient(conn)
	return nil
}

// Stop closes the connection and its goroutines.
func (c *grpcTraceClient) Stop(context.Context) error {
	if c.conn == nil {
		return nil
	}
	return c.conn.Close()
}

func (c *grpcTraceClient) Upload(ctx context.Context, td ptrace.Traces) error {
	if c.svc == nil {
		return errNotStarted
	}
	ctx, cancel := context.WithTimeout(ctx, c.e.Timeout)
	defer cancel()
	resp, err := c.svc.Export(grpcContext(ctx, c.e), ptraceotlp.NewExportRequestFromTraces(td))
	if err != nil {
		return err
	}
	ps := resp.PartialSuccess()
	return partialError(ps.RejectedSpans(), ps.ErrorMessage())
}

// grpcContext carries e's headers as the request's metadata.
func grpcContext(ctx context.Context, e *Endpoint) context.Context {
	if len(e.Headers) == 0 {
		return ctx
	}
	md := metadata.MD{}
	for k, v := range e.Headers {
		md.Append(strings.ToLower(k), v)
	}
	return metadata.NewOutgoingContext(ctx, md)
}

// partialError is an OTLP partial success as a *PartialError, or nil when
// everything was accepted.
func partialError(rejected int64, msg string) error {
	if rejected == 0 && msg == "" {
		return nil
	}
	return &PartialError{Rejected: rejected, Message: msg}
}

// dialGRPC returns a connection to e's host and port. It does not dial
// before its first call.
func dialGRPC(e *Endpoint) (*grpc.ClientConn, error) {
	return grpc.NewClient(e.HostPort(),
		append(grpcDialOptions(e.Timeout, e.Gzip), grpc.WithTransportCredentials(grpcCredentials(e.TLS)))...)
}

func grpcCredentials(tlsCfg *tls.Config) credentials.TransportCredentials {
	if tlsCfg == nil {
		return insecure.NewCredentials()
	}
	return credentials.NewTLS(tlsCfg.Clone())
}

// grpcDialOptions shortens gRPC's reconnect backoff (default: 1 s growing to
// 120 s) so that a collector that comes back is used again within a couple
// of seconds, which matters for jobs that last minutes. Every call is
// compressed with gzip, or explicitly not at all.
func grpcDialOptions(timeout time.Duration, gz bool) []grpc.DialOption {
	compressor := encoding.Identity
	if gz {
		compressor = "gzip"
	}
	return []grpc.DialOption{
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff: backoff.Config{
				BaseDelay:  100 * time.Millisecond,
				Multiplier: 1.6,
				Jitter:     0.2,
				MaxDelay:   2 * time.Second,
			},
			MinConnectTimeout: timeout,
		}),
		grpc.WithDefaultCallOptions(grpc.UseCompressor(compressor)),
	}
}
