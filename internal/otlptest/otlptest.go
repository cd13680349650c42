// Package otlptest runs real OTLP receivers on loopback for tests: a gRPC
// server with the collector's trace and metrics services, an HTTP server
// decoding protobuf at /v1/traces and /v1/metrics, a listener that accepts
// connections and never answers, and an address that refuses connections.
package otlptest

import (
	"compress/gzip"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	_ "google.golang.org/grpc/encoding/gzip" // accept gzip requests
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/protobuf/proto"
)

// Collector records what a server received.
type Collector struct {
	mu      sync.Mutex
	traces  []*coltracepb.ExportTraceServiceRequest
	headers []map[string]string
	metrics int
	encs    []string
	delay   time.Duration
}

// SetDelay makes the server wait d before handling each trace request, like
// a collector under load.
func (c *Collector) SetDelay(d time.Duration) {
	c.mu.Lock()
	c.delay = d
	c.mu.Unlock()
}

func (c *Collector) wait(ctx context.Context) {
	c.mu.Lock()
	d := c.delay
	c.mu.Unlock()
	if d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
		}
	}
}

func (c *Collector) addTraces(req *coltracepb.ExportTraceServiceRequest, h map[string]string, enc string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.traces = append(c.traces, req)
	c.headers = append(c.headers, h)
	c.encs = append(c.encs, enc)
}

// Requests returns the number of trace requests received.
func (c *Collector) Requests() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.traces)
}

// SpanNames returns the names of the spans received, in arrival order.
func (c *Collector) SpanNames() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []string
	for _, r := range c.traces {
		for _, rs := range r.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					out = append(out, s.Name)
				}
			}
		}
	}
	return out
}

// Header returns header key (lower case) of the last trace request.
func (c *Collector) Header(key string) string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.headers) == 0 {
		return ""
	}
	return c.headers[len(c.headers)-1][key]
}

// Encoding returns the content encoding of the last trace request.
func (c *Collector) Encoding() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.encs) == 0 {
		return ""
	}
	return c.encs[len(c.encs)-1]
}

// MetricRequests returns the number of metric requests received.
func (c *Collector) MetricRequests() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.metrics
}

// GRPC is an OTLP/gRPC receiver.
type GRPC struct {
	*Collector
	Addr string
	srv  *grpc.Server
	done chan struct{}
}

type traceService struct {
	coltracepb.UnimplementedTraceServiceServer
	c *Collector
}

func (s traceService) Export(ctx context.Context, req *coltracepb.ExportTraceServiceRequest) (*coltracepb.ExportTraceServiceResponse, error) {
	h := map[string]string{}
	md, _ := metadata.FromIncomingContext(ctx)
	for k, v := range md {
		h[k] = strings.Join(v, ",")
	}
	s.c.wait(ctx)
	enc, _ := ctx.Value(encodingKey{}).(*string)
	s.c.addTraces(req, h, *enc)
	return &coltracepb.ExportTraceServiceResponse{}, nil
}

// encodingStats records each RPC's compression, which gRPC keeps out of the
// metadata a handler sees.
type encodingStats struct{}

type encodingKey struct{}

func (encodingStats) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context {
	return context.WithValue(ctx, encodingKey{}, new(string))
}

func (encodingStats) HandleRPC(ctx context.Context, s stats.RPCStats) {
	if h, ok := s.(*stats.InHeader); ok {
		if p, ok := ctx.Value(encodingKey{}).(*string); ok {
			*p = h.Compression
		}
	}
}

func (encodingStats) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context { return ctx }
func (encodingStats) HandleConn(context.Context, stats.ConnStats)                       {}

type metricService struct {
	colmetricpb.UnimplementedMetricsServiceServer
	c *Collector
}

func (s metricService) Export(context.Context, *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	s.c.mu.Lock()
	s.c.metrics++
	s.c.mu.Unlock()
	return &colmetricpb.ExportMetricsServiceResponse{}, nil
}

// StartGRPC serves on addr ("" picks a free loopback port), recording into
// c (nil makes a new one). The server is stopped at the end of the test.
func StartGRPC(t testing.TB, addr string, c *Collector) *GRPC {
	t.Helper()
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if c == nil {
		c = &Collector{}
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	g := &GRPC{Collector: c, Addr: lis.Addr().String(), srv: grpc.NewServer(grpc.StatsHandler(encodingStats{})), done: make(chan struct{})}
	coltracepb.RegisterTraceServiceServer(g.srv, traceService{c: c})
	colmetricpb.RegisterMetricsServiceServer(g.srv, metricService{c: c})
	go func() {
		defer close(g.done)
		_ = g.srv.Serve(lis)
	}()
	t.Cleanup(g.Stop)
	return g
}

// Stop closes the server and its connections.
func (g *GRPC) Stop() {
	g.srv.Stop()
	<-g.done
}

// HTTP is an OTLP/HTTP receiver taking protobuf.
type HTTP struct {
	*Collector
	Addr string
	srv  *http.Server
	done chan struct{}
}

// StartHTTP serves on addr ("" picks a free loopback port).
func StartHTTP(t testing.TB, addr string, c *Collector) *HTTP {
	t.Helper()
	return startHTTP(t, addr, c, nil)
}

// StartHTTPS serves over TLS with cfg.
func StartHTTPS(t testing.TB, c *Collector, cfg *tls.Config) *HTTP {
	t.Helper()
	return startHTTP(t, "", c, cfg)
}

func startHTTP(t testing.TB, addr string, c *Collector, tlsCfg *tls.Config) *HTTP {
	t.Helper()
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	if c == nil {
		c = &Collector{}
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	if tlsCfg != nil {
		lis = tls.NewListener(lis, tlsCfg)
	}
	h := &HTTP{Collector: c, Addr: lis.Addr().String(), done: make(chan struct{})}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/traces", func(w http.ResponseWriter, r *http.Request) {
		body, ok := readBody(w, r)
		if !ok {
			return
		}
		req := &coltracepb.ExportTraceServiceRequest{}
		if err := proto.Unmarshal(body, req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.wait(r.Context())
		hs := map[string]string{}
		for k, v := range r.Header {
			hs[strings.ToLower(k)] = strings.Join(v, ",")
		}
		c.addTraces(req, hs, r.Header.Get("Content-Encoding"))
		writeProto(w, &coltracepb.ExportTraceServiceResponse{})
	})
	mux.HandleFunc("POST /v1/metrics", func(w http.ResponseWriter, r *http.Request) {
		body, ok := readBody(w, r)
		if !ok {
			return
		}
		req := &colmetricpb.ExportMetricsServiceRequest{}
		if err := proto.Unmarshal(body, req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		c.mu.Lock()
		c.metrics++
		c.mu.Unlock()
		writeProto(w, &colmetricpb.ExportMetricsServiceResponse{})
	})
	h.srv = &http.Server{Handler: mux}
	go func() {
		defer close(h.done)
		_ = h.srv.Serve(lis)
	}()
	t.Cleanup(h.Stop)
	return h
}

// Stop closes the server and its connections.
func (h *HTTP) Stop() {
	_ = h.srv.Close()
	<-h.done
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	if ct := r.Header.Get("Content-Type"); ct != "application/x-protobuf" {
		http.Error(w, "content type "+ct, http.StatusUnsupportedMediaType)
		return nil, false
	}
	var rd io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return nil, false
		}
		defer zr.Close()
		rd = zr
	}
	body, err := io.ReadAll(rd)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return nil, false
	}
	return body, true
}

func writeProto(w http.ResponseWriter, m proto.Message) {
	b, _ := proto.Marshal(m)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(b)
}

// Hanging returns the address of a listener that accepts connections and
// never reads from or writes to them, like a collector stuck in a GC pause or
// a firewall that swallows packets after the handshake.
func Hanging(t testing.TB) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := lis.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		lis.Close()
		<-done
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	return lis.Addr().String()
}

// Refused returns a loopback address where nothing listens, so connecting
// is refused.
func Refused(t testing.TB) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	lis.Close()
	return addr
}

// SelfSigned returns a TLS certificate for 127.0.0.1 signed by itself, and its
// PEM encoding for a client to trust.
func SelfSigned(t testing.TB) (tls.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "otlptest"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
		pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}
