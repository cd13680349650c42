package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/binary"
	"encoding/pem"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/jobtrace/jobtrace/internal/otlptest"
)

// writePEM writes cert (and its key, when key is set) as PEM files and
// returns their paths.
func writePEM(t *testing.T, cert tls.Certificate, certPEM []byte) (certFile, keyFile string) {
	t.Helper()
	dir := t.TempDir()
	der, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// OTLP/gRPC over TLS to grpc-go's server: with the CA the spans arrive,
// compressed or not; without it the certificate is named and nothing is
// sent; a server that asks for a client certificate gets the configured
// one.
func TestGRPCOverTLS(t *testing.T) {
	cert, certPEM := otlptest.SelfSigned(t)
	caFile, keyFile := writePEM(t, cert, certPEM)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(certPEM)
	c := &otlptest.Collector{}
	srv := otlptest.StartGRPCS(t, c, &tls.Config{Certificates: []tls.Certificate{cert},
		ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: pool})
	mutual := otlptest.StartGRPCS(t, c, &tls.Config{Certificates: []tls.Certificate{cert},
		ClientAuth: tls.RequireAndVerifyClientCert, ClientCAs: pool})

	client := func(addr string, g General) TraceClient {
		g.Protocol = ProtocolGRPC
		tc, err := NewTraceClient(resolve(t, Settings{Endpoint: "https://" + addr, General: g}).Traces)
		if err != nil {
			t.Fatal(err)
		}
		return tc
	}
	for _, gz := range []string{"none", "gzip"} {
		if err := upload(t, client(srv.Addr, General{Certificate: caFile, Compression: gz}), "tls-"+gz); err != nil {
			t.Errorf("upload with the CA, compression %s: %v", gz, err)
		}
	}
	err := upload(t, client(srv.Addr, General{}), "untrusted")
	if err == nil || !strings.Contains(err.Error(), "certificate") || Classify(err) != Retry {
		t.Errorf("upload to an untrusted server: %v (%v)", err, Classify(err))
	}
	if err := upload(t, client(mutual.Addr, General{Certificate: caFile, ClientCertificate: caFile, ClientKey: keyFile}), "mutual"); err != nil {
		t.Errorf("upload with a client certificate: %v", err)
	}
	if err := upload(t, client(mutual.Addr, General{Certificate: caFile}), "no client certificate"); err == nil {
		t.Error("upload without a client certificate succeeded")
	}
	if got := strings.Join(c.SpanNames(), " "); got != "tls-none tls-gzip mutual" {
		t.Errorf("server got %q", got)
	}
}

// A compressed answer is read: grpc-go's server answers a gzip request in
// gzip, here with a partial success.
func TestGRPCGzipAnswer(t *testing.T) {
	c := &otlptest.Collector{}
	c.SetPartial(4)
	srv := otlptest.StartGRPC(t, "", c)
	tc, err := NewTraceClient(resolve(t, Settings{Endpoint: "http://" + srv.Addr, General: General{
		Protocol: ProtocolGRPC, Compression: CompressionGzip}}).Traces)
	if err != nil {
		t.Fatal(err)
	}
	var pe *PartialError
	if err := upload(t, tc, "gz"); !errors.As(err, &pe) || pe.Rejected != 4 || pe.Message != "test rejects some spans" {
		t.Errorf("upload: %v", err)
	}
	if srv.Encoding() != "gzip" {
		t.Errorf("request encoding %q", srv.Encoding())
	}
}

// A collector that does not answer within the timeout: the call ends at
// its deadline as DeadlineExceeded, which is retried and may have been
// delivered, and the server was told the deadline.
func TestGRPCDeadline(t *testing.T) {
	c := &otlptest.Collector{}
	c.SetDelay(time.Minute)
	srv := otlptest.StartGRPC(t, "", c)
	tc, err := NewTraceClient(resolve(t, Settings{Endpoint: "http://" + srv.Addr, General: General{
		Protocol: ProtocolGRPC, Timeout: 300 * time.Millisecond}}).Traces)
	if err != nil {
		t.Fatal(err)
	}
	err = upload(t, tc, "late")
	if Classify(err) != Retry || !Abandoned(err) || !errors.Is(err, context.DeadlineExceeded) ||
		err.Error() != "rpc error: code = DeadlineExceeded desc = context deadline exceeded" {
		t.Errorf("upload: %v (%v, abandoned %v)", err, Classify(err), Abandoned(err))
	}
	// grpc-go's server ends the handler's context at the deadline the
	// grpc-timeout header gave it, and the handler then records the span.
	deadline := time.Now().Add(10 * time.Second)
	for c.Requests() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if c.Requests() != 1 {
		t.Error("the server's handler did not see the deadline")
	}
}

// grpcAnswer is a gRPC server written with net/http's h2c server, whose
// answer each case sets, and which checks each request as gRPC over HTTP/2
// defines it.
func grpcAnswer(t *testing.T, answer func(w http.ResponseWriter)) (addr string, requests <-chan *http.Request) {
	t.Helper()
	reqs := make(chan *http.Request, 10)
	var p http.Protocols
	p.SetUnencryptedHTTP2(true)
	srv := &http.Server{Protocols: &p, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			t.Error(err)
			return
		}
		msg, err := grpcUnframe(body, r.Header.Get("Grpc-Encoding"))
		if err != nil {
			t.Errorf("request body: %v", err)
		}
		td, err := (&ptrace.ProtoUnmarshaler{}).UnmarshalTraces(msg)
		if err != nil || td.SpanCount() != 1 {
			t.Errorf("request message: %d spans, %v", td.SpanCount(), err)
		}
		reqs <- r
		answer(w)
	})}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(lis)
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
	return lis.Addr().String(), reqs
}

// frame is a gRPC message, gzipped when gz.
func frame(t *testing.T, m proto.Message, gz bool) []byte {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	f, err := grpcFrame(b, gz)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// What each answer of a gRPC server, or of something that is not one,
// comes out as.
func TestGRPCAnswers(t *testing.T) {
	partial := &coltracepb.ExportTraceServiceResponse{PartialSuccess: &coltracepb.ExportTracePartialSuccess{RejectedSpans: 2, ErrorMessage: "old"}}
	withStatus := func(body []byte, status, msg string, trailers bool) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			h := w.Header()
			h.Set("Content-Type", "application/grpc")
			if !trailers {
				// Trailers-only: the status goes in the headers, and
				// the stream ends with them.
				h.Set("Grpc-Status", status)
				h.Set("Grpc-Message", msg)
				return
			}
			if len(body) > 0 && body[0] == 1 {
				h.Set("Grpc-Encoding", "gzip")
			}
			w.WriteHeader(http.StatusOK)
			_, _ = w.Write(body)
			if status != "" {
				h.Set(http.TrailerPrefix+"Grpc-Status", status)
				h.Set(http.TrailerPrefix+"Grpc-Message", msg)
			}
		}
	}
	httpAnswer := func(code int, ct string) func(http.ResponseWriter) {
		return func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", ct)
			w.WriteHeader(code)
			_, _ = io.WriteString(w, "<html>no</html>")
		}
	}
	for _, c := range []struct {
		name     string
		answer   func(http.ResponseWriter)
		outcome  Outcome
		rejected int64
		err      string
	}{
		{"message and OK trailers", withStatus(frame(t, partial, false), "0", "", true), Accepted, 2, ""},
		{"gzipped message", withStatus(frame(t, partial, true), "0", "", true), Accepted, 2, ""},
		{"empty message", withStatus(frame(t, &coltracepb.ExportTraceServiceResponse{}, false), "0", "", true), Accepted, 0, ""},
		{"trailers-only error", withStatus(nil, "16", "bad token: %C3%A9 100%25", false), Refused, 0,
			"rpc error: code = Unauthenticated desc = bad token: é 100%"},
		{"trailers-only unavailable", withStatus(nil, "14", "shedding load", false), Retry, 0,
			"rpc error: code = Unavailable desc = shedding load"},
		{"error in trailers", withStatus(nil, "3", "span too big", true), Rejected, 0,
			"rpc error: code = InvalidArgument desc = span too big"},
		{"no trailers", withStatus(frame(t, partial, false), "", "", true), Refused, 0,
			"rpc error: code = Internal desc = server closed the stream without sending trailers"},
		{"compressed with an unknown codec", func(w http.ResponseWriter) {
			w.Header().Set("Content-Type", "application/grpc")
			w.Header().Set("Grpc-Encoding", "snappy")
			w.Header().Set(http.TrailerPrefix+"Grpc-Status", "0")
			f := frame(t, partial, false)
			f[0] = 1
			_, _ = w.Write(f)
		}, Refused, 0, `rpc error: code = Internal desc = the answer is compressed with "snappy", which jobtrace does not decompress`},
		{"HTTP 404 page", httpAnswer(http.StatusNotFound, "text/html"), Refused, 0,
			`rpc error: code = Unimplemented desc = unexpected HTTP status code received from server: 404 Not Found; received unexpected content-type "text/html"`},
		{"HTTP 503 page", httpAnswer(http.StatusServiceUnavailable, "text/html"), Retry, 0, ""},
		{"HTTP 200 page", httpAnswer(http.StatusOK, "text/html"), Refused, 0,
			`rpc error: code = Unknown desc = received unexpected content-type "text/html"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			addr, reqs := grpcAnswer(t, c.answer)
			tc, err := NewTraceClient(resolve(t, Settings{Endpoint: "http://" + addr, General: General{
				Protocol: ProtocolGRPC, Timeout: 5 * time.Second,
				Headers: map[string]string{"X-Tenant": "a", "trace-bin": "abc"}}}).Traces)
			if err != nil {
				t.Fatal(err)
			}
			err = upload(t, tc, "s")
			var pe *PartialError
			errors.As(err, &pe)
			switch {
			case Classify(err) != c.outcome:
				t.Errorf("%v, want %v (%v)", Classify(err), c.outcome, err)
			case c.rejected != 0 && (pe == nil || pe.Rejected != c.rejected):
				t.Errorf("partial success %v, want %d rejected", err, c.rejected)
			case c.err != "" && (err == nil || err.Error() != c.err):
				t.Errorf("error\n%v, want\n%s", err, c.err)
			case c.rejected == 0 && c.outcome == Accepted && err != nil:
				t.Errorf("error %v", err)
			}
			r := <-reqs
			h := r.Header
			timeout, terr := parseGRPCTimeout(h.Get("Grpc-Timeout"))
			switch {
			case r.Method != http.MethodPost || r.URL.Path != grpcTraceExport || r.ProtoMajor != 2:
				t.Errorf("request %s %s %s", r.Method, r.URL.Path, r.Proto)
			case h.Get("Content-Type") != "application/grpc" || h.Get("Te") != "trailers" || h.Get("Grpc-Encoding") != "identity":
				t.Errorf("request headers %v", h)
			case terr != nil || timeout <= 0 || timeout > 5*time.Second:
				t.Errorf("grpc-timeout %q: %v", h.Get("Grpc-Timeout"), terr)
			case h.Get("X-Tenant") != "a" || h.Get("Trace-Bin") != base64.RawStdEncoding.EncodeToString([]byte("abc")):
				t.Errorf("metadata %v", h)
			}
		})
	}
}

// parseGRPCTimeout reads a grpc-timeout header, as a server does.
func parseGRPCTimeout(s string) (time.Duration, error) {
	if len(s) < 2 || len(s) > 9 {
		return 0, errors.New("malformed")
	}
	units := map[byte]time.Duration{'n': time.Nanosecond, 'u': time.Microsecond, 'm': time.Millisecond,
		'S': time.Second, 'M': time.Minute, 'H': time.Hour}
	u, ok := units[s[len(s)-1]]
	if !ok {
		return 0, errors.New("no unit")
	}
	var n time.Duration
	for _, c := range []byte(s[:len(s)-1]) {
		if c < '0' || c > '9' {
			return 0, errors.New("not a number")
		}
		n = n*10 + time.Duration(c-'0')
	}
	return n * u, nil
}

func TestGRPCTimeout(t *testing.T) {
	for d, want := range map[time.Duration]string{
		-time.Second:                 "1n",
		0:                            "1n",
		time.Nanosecond:              "1n",
		99_999_999 * time.Nanosecond: "99999999n",
		100 * time.Millisecond:       "100000u",
		100*time.Millisecond + 1:     "100001u",
		10 * time.Second:             "10000000u",
		time.Minute:                  "60000000u",
		1000 * time.Second:           "1000000m",
		100_000 * time.Second:        "100000S",
		2000 * 24 * time.Hour:        "2880000M",
		time.Duration(1<<63 - 1):     "2562048H",
	} {
		got := grpcTimeout(d)
		back, err := parseGRPCTimeout(got)
		if got != want || err != nil || back < d && back > 0 {
			t.Errorf("grpcTimeout(%v) = %q (%v), want %q", d, got, back, want)
		}
	}
}

// The prefix of each message says whether it is compressed and how long
// it is.
func TestGRPCFrame(t *testing.T) {
	f, err := grpcFrame([]byte("abc"), false)
	if err != nil || !bytes.Equal(f, []byte{0, 0, 0, 0, 3, 'a', 'b', 'c'}) {
		t.Errorf("frame %v %v", f, err)
	}
	f, err = grpcFrame([]byte("abc"), true)
	if err != nil || f[0] != 1 || int(binary.BigEndian.Uint32(f[1:])) != len(f)-5 {
		t.Fatalf("gzip frame %v %v", f, err)
	}
	zr, err := gzip.NewReader(bytes.NewReader(f[5:]))
	if err != nil {
		t.Fatal(err)
	}
	if b, err := io.ReadAll(zr); err != nil || string(b) != "abc" {
		t.Errorf("gzip frame holds %q %v", b, err)
	}
	for _, bad := range [][]byte{{0, 0, 0}, {0, 0, 0, 0, 2, 'a'}, {2, 0, 0, 0, 1, 'a'}, {0, 0, 0, 0, 1, 'a', 0, 0, 0, 0, 0}} {
		if _, err := grpcUnframe(bad, ""); err == nil {
			t.Errorf("%v read as a message", bad)
		}
	}
}

// connectProxy is a real HTTP proxy that only tunnels (CONNECT), and
// records the address and the Proxy-Authorization of each tunnel.
func connectProxy(t *testing.T) (*url.URL, func() []string) {
	t.Helper()
	var mu sync.Mutex
	var seen []string
	var wg sync.WaitGroup
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodConnect {
			http.Error(w, "CONNECT only", http.StatusMethodNotAllowed)
			return
		}
		mu.Lock()
		seen = append(seen, r.Host+" "+r.Header.Get("Proxy-Authorization"))
		mu.Unlock()
		up, err := net.Dial("tcp", r.Host)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		conn, brw, err := http.NewResponseController(w).Hijack()
		if err != nil {
			up.Close()
			t.Error(err)
			return
		}
		_, _ = io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n")
		wg.Add(2)
		go func() {
			defer wg.Done()
			_, _ = io.Copy(up, brw)
			up.Close()
		}()
		go func() {
			defer wg.Done()
			_, _ = io.Copy(conn, up)
			conn.Close()
		}()
	}))
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		wg.Wait()
	})
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return u, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// Through a proxy, in plain text and over TLS, the calls go in a CONNECT
// tunnel to the endpoint's host and port, with the proxy's credentials.
func TestGRPCThroughAProxy(t *testing.T) {
	cert, certPEM := otlptest.SelfSigned(t)
	caFile, _ := writePEM(t, cert, certPEM)
	c := &otlptest.Collector{}
	plain := otlptest.StartGRPC(t, "", c)
	secure := otlptest.StartGRPCS(t, c, &tls.Config{Certificates: []tls.Certificate{cert}})
	pu, seen := connectProxy(t)
	pu.User = url.UserPassword("u", "p")
	for _, target := range []struct{ url, ca string }{{"http://" + plain.Addr, ""}, {"https://" + secure.Addr, caFile}} {
		e := resolve(t, Settings{Endpoint: target.url, General: General{Protocol: ProtocolGRPC, Certificate: target.ca}}).Traces
		s := newGRPCSender(e, grpcTraceExport, http.ProxyURL(pu))
		if err := upload(t, &traceClient{s: s}, target.url); err != nil {
			t.Errorf("%s through the proxy: %v", target.url, err)
		}
	}
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte("u:p"))
	if got, want := strings.Join(seen(), ","), plain.Addr+" "+auth+","+secure.Addr+" "+auth; got != want {
		t.Errorf("proxy saw %q, want %q", got, want)
	}
	if got := strings.Join(c.SpanNames(), " "); got != "http://"+plain.Addr+" https://"+secure.Addr {
		t.Errorf("server got %q", got)
	}
}
