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
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	_ "google.golang.org/grpc/encoding/gzip" // accept gzip requests
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/stats"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
)

// Collector records what a server received.
type Collector struct {
	mu      sync.Mutex
	traces  []*coltracepb.ExportTraceServiceRequest
	headers []map[string]string
	metrics int
	sums    map[string]int64 // the last value of each integer sum point, by metricKey
	encs    []string
	delay   time.Duration
	reject  string // span name prefix that makes a request rejected
	refused int    // trace requests answered with an error
	partial int64  // spans each accepted request says it rejected
	hold    chan struct{}
	deny    int        // HTTP status every trace request gets, when set
	denyRPC codes.Code // its gRPC counterpart
}

// RefuseAll makes the server answer every trace request with HTTP status
// code, or over gRPC with rpc, like a collector that wants a credential.
// Refused requests are counted with the rejected ones. A code of 0 stops
// it; a negative code refuses only over gRPC.
func (c *Collector) RefuseAll(code int, rpc codes.Code) {
	c.mu.Lock()
	c.deny, c.denyRPC = code, rpc
	c.mu.Unlock()
}

// Hold makes trace requests wait, before they are recorded, until release
// is called: a collector that takes a request after the client gave up
// waiting. Held requests are recorded when released, whether or not their
// client is still there. Call release before the server stops.
func (c *Collector) Hold() (release func()) {
	ch := make(chan struct{})
	c.mu.Lock()
	c.hold = ch
	c.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			c.hold = nil
			c.mu.Unlock()
			close(ch)
		})
	}
}

// RejectSpans makes the server refuse, as invalid (HTTP 400, gRPC
// InvalidArgument), every trace request holding a span whose name starts
// with prefix. Refused requests are counted, not recorded. "" accepts all.
func (c *Collector) RejectSpans(prefix string) {
	c.mu.Lock()
	c.reject = prefix
	c.mu.Unlock()
}

// SetPartial makes each accepted trace request answer with an OTLP partial
// success saying n spans were rejected. The request is still recorded.
func (c *Collector) SetPartial(n int64) {
	c.mu.Lock()
	c.partial = n
	c.mu.Unlock()
}

// Rejected returns how many trace requests were refused by RejectSpans or
// RefuseAll.
func (c *Collector) Rejected() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.refused
}

// rejects reports whether req is to be refused, and counts it.
func (c *Collector) rejects(req *coltracepb.ExportTraceServiceRequest) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reject == "" {
		return false
	}
	for _, rs := range req.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			for _, s := range ss.Spans {
				if strings.HasPrefix(s.Name, c.reject) {
					c.refused++
					return true
				}
			}
		}
	}
	return false
}

// denies returns what RefuseAll set, and counts a refused request.
func (c *Collector) denies() (int, codes.Code) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.deny != 0 {
		c.refused++
	}
	return c.deny, c.denyRPC
}

func (c *Collector) response() *coltracepb.ExportTraceServiceResponse {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.partial == 0 {
		return &coltracepb.ExportTraceServiceResponse{}
	}
	return &coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{
		RejectedSpans: c.partial, ErrorMessage: "test rejects some spans"}}
}

// SpanCount returns how many spans were received in all, and how many
// distinct ones (by trace and span id): total > unique means some arrived
// more than once.
func (c *Collector) SpanCount() (total, unique int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[[24]byte]bool{}
	for _, r := range c.traces {
		for _, rs := range r.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					var k [24]byte
					copy(k[:16], s.TraceId)
					copy(k[16:], s.SpanId)
					seen[k] = true
					total++
				}
			}
		}
	}
	return total, len(seen)
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
	d, hold := c.delay, c.hold
	c.mu.Unlock()
	if hold != nil {
		<-hold
	}
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
	if s.c.rejects(req) {
		return nil, status.Error(codes.InvalidArgument, "test rejects this request")
	}
	if code, rpc := s.c.denies(); code != 0 && rpc != codes.OK {
		return nil, status.Error(rpc, "test refuses every request")
	}
	s.c.wait(ctx)
	enc, _ := ctx.Value(encodingKey{}).(*string)
	s.c.addTraces(req, h, *enc)
	return s.c.response(), nil
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

func (s metricService) Export(_ context.Context, req *colmetricpb.ExportMetricsServiceRequest) (*colmetricpb.ExportMetricsServiceResponse, error) {
	s.c.addMetrics(req)
	return &colmetricpb.ExportMetricsServiceResponse{}, nil
}

// addMetrics counts a metrics request and keeps its integer sums.
func (c *Collector) addMetrics(req *colmetricpb.ExportMetricsServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.metrics++
	if c.sums == nil {
		c.sums = map[string]int64{}
	}
	for _, rm := range req.ResourceMetrics {
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				for _, p := range m.GetSum().GetDataPoints() {
					var attrs []string
					for _, kv := range p.Attributes {
						attrs = append(attrs, kv.Key+"="+kv.Value.GetStringValue())
					}
					c.sums[metricKey(m.Name, attrs...)] = p.GetAsInt()
				}
			}
		}
	}
}

func metricKey(name string, attrs ...string) string {
	sort.Strings(attrs)
	return name + "{" + strings.Join(attrs, ",") + "}"
}

// Sum returns the last value received of the integer sum name whose data
// point has exactly the string attributes attrs ("key=value").
func (c *Collector) Sum(name string, attrs ...string) (int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.sums[metricKey(name, append([]string(nil), attrs...)...)]
	return v, ok
}

// StartGRPC serves on addr ("" picks a free loopback port), recording into
// c (nil makes a new one). The server is stopped at the end of the test.
func StartGRPC(t testing.TB, addr string, c *Collector) *GRPC {
	t.Helper()
	return startGRPC(t, addr, c)
}

// StartGRPCS serves over TLS with cfg, on a free loopback port.
func StartGRPCS(t testing.TB, c *Collector, cfg *tls.Config) *GRPC {
	t.Helper()
	return startGRPC(t, "", c, grpc.Creds(credentials.NewTLS(cfg)))
}

func startGRPC(t testing.TB, addr string, c *Collector, opts ...grpc.ServerOption) *GRPC {
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
	g := &GRPC{Collector: c, Addr: lis.Addr().String(), srv: grpc.NewServer(append(opts, grpc.StatsHandler(encodingStats{}))...), done: make(chan struct{})}
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
		if c.rejects(req) {
			http.Error(w, "test rejects this request", http.StatusBadRequest)
			return
		}
		if code, _ := c.denies(); code > 0 {
			http.Error(w, "test refuses every request", code)
			return
		}
		c.wait(r.Context())
		hs := map[string]string{}
		for k, v := range r.Header {
			hs[strings.ToLower(k)] = strings.Join(v, ",")
		}
		c.addTraces(req, hs, r.Header.Get("Content-Encoding"))
		writeProto(w, c.response())
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
		c.addMetrics(req)
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

// Proto returns td as the proto structs of an OTLP request, for a test
// that looks at what a spool line holds field by field.
func Proto(t testing.TB, td ptrace.Traces) *coltracepb.ExportTraceServiceRequest {
	t.Helper()
	req, err := TryProto(td)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TryProto is Proto for traces that may hold strings the protobuf runtime
// refuses (not valid UTF-8, which pdata reads from JSON's escapes): the
// error says so.
func TryProto(td ptrace.Traces) (*coltracepb.ExportTraceServiceRequest, error) {
	pb, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
	if err != nil {
		return nil, err
	}
	req := &coltracepb.ExportTraceServiceRequest{}
	if err := proto.Unmarshal(pb, req); err != nil {
		return nil, err
	}
	return req, nil
}
