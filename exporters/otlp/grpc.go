package otlp

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// The paths of the Export methods of the OTLP collector services
// (opentelemetry/proto/collector/{trace,metrics}/v1/*_service.proto).
const (
	grpcTraceExport   = "/opentelemetry.proto.collector.trace.v1.TraceService/Export"
	grpcMetricsExport = "/opentelemetry.proto.collector.metrics.v1.MetricsService/Export"
)

// grpcFrameHeader is the prefix of each gRPC message: a compressed flag and
// the message's length, 4 bytes big-endian.
const grpcFrameHeader = 5

// grpcTimeoutMax is the largest number a grpc-timeout header holds: the
// protocol allows at most 8 digits, before the unit.
const grpcTimeoutMax = 99_999_999

// grpcSender makes unary gRPC calls as gRPC over HTTP/2 defines them
// (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md), with
// net/http's HTTP/2 client: over TLS, HTTP/2 negotiated by ALPN, when the
// endpoint has TLS; in plain text with prior knowledge (h2c) otherwise.
// The request's context sets its grpc-timeout; its status is read from the
// grpc-status and grpc-message trailers, or from the headers of a
// trailers-only answer; the headers go as metadata, the values of -bin
// ones in base64. The connection goes through the proxy that HTTPS_PROXY
// and NO_PROXY name for the endpoint, in a CONNECT tunnel, over TLS or in
// plain text alike, as grpc-go's does.
type grpcSender struct {
	e   *Endpoint
	url string
	hc  *http.Client
	tr  *http.Transport
}

// newGRPCSender returns a sender of calls of method (a path) to e, through
// the proxy that proxy names for an https:// URL of e's host and port.
func newGRPCSender(e *Endpoint, method string, proxy func(*http.Request) (*url.URL, error)) *grpcSender {
	hc, tr := newHTTPClient(e)
	tr.Protocols = new(http.Protocols)
	tr.Protocols.SetHTTP2(true)
	tr.Protocols.SetUnencryptedHTTP2(true)
	tr.Proxy = proxy
	scheme := "https"
	if e.TLS == nil {
		// net/http would send a plain-text request to an HTTP proxy as a
		// proxy request, which HTTP/2 with prior knowledge cannot be: the
		// dialler makes the tunnel itself.
		scheme, tr.Proxy = "http", nil
		tr.DialContext = tunnel(proxy, tr.DialContext)
	}
	// The call's context bounds it, so that running out of time is
	// DeadlineExceeded, as the grpc-timeout header says.
	hc.Timeout = 0
	return &grpcSender{e: e, url: scheme + "://" + e.HostPort() + method, hc: hc, tr: tr}
}

func (s *grpcSender) close() { s.tr.CloseIdleConnections() }

// send calls the method with body as its request message. A failed call
// is an *rpcError.
func (s *grpcSender) send(ctx context.Context, body []byte) (rejected int64, msg string, err error) {
	ctx, cancel := context.WithTimeout(ctx, s.e.Timeout)
	defer cancel()
	frame, err := grpcFrame(body, s.e.Gzip)
	if err != nil {
		return 0, "", err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(frame))
	if err != nil {
		return 0, "", err
	}
	h := req.Header
	for k, v := range s.e.Headers {
		if strings.HasSuffix(strings.ToLower(k), "-bin") {
			v = base64.RawStdEncoding.EncodeToString([]byte(v))
		}
		h.Set(k, v)
	}
	h.Set("Content-Type", "application/grpc")
	h.Set("Te", "trailers")
	h.Set("Grpc-Accept-Encoding", "gzip")
	// Every call says whether it is compressed, as grpc-go's client does
	// when told its compressor.
	h.Set("Grpc-Encoding", "identity")
	if s.e.Gzip {
		h.Set("Grpc-Encoding", "gzip")
	}
	if dl, ok := ctx.Deadline(); ok {
		h.Set("Grpc-Timeout", grpcTimeout(time.Until(dl)))
	}
	r, err := s.hc.Do(req)
	if err != nil {
		return 0, "", transportError(ctx, err)
	}
	defer r.Body.Close()
	if st := r.Header.Get("Grpc-Status"); st != "" {
		// A trailers-only answer: the status is in the headers.
		if err := grpcStatus(st, r.Header.Get("Grpc-Message")); err != nil {
			return 0, "", err
		}
		return 0, "", nil
	}
	if err := grpcHeaders(r); err != nil {
		return 0, "", err
	}
	data, err := io.ReadAll(io.LimitReader(r.Body, grpcFrameHeader+MaxResponseBytes+1))
	if err != nil {
		return 0, "", transportError(ctx, err)
	}
	if len(data) > grpcFrameHeader+MaxResponseBytes {
		return 0, "", &rpcError{code: codeResourceExhausted, msg: fmt.Sprintf("the answer is longer than %d bytes", MaxResponseBytes)}
	}
	st := r.Trailer.Get("Grpc-Status")
	if st == "" {
		return 0, "", &rpcError{code: codeInternal, msg: "server closed the stream without sending trailers"}
	}
	if err := grpcStatus(st, r.Trailer.Get("Grpc-Message")); err != nil {
		return 0, "", err
	}
	payload, err := grpcUnframe(data, r.Header.Get("Grpc-Encoding"))
	if err != nil {
		return 0, "", err
	}
	return partialSuccess(payload)
}

// grpcFrame is msg with its gRPC prefix, compressed with gzip when gz.
func grpcFrame(msg []byte, gz bool) ([]byte, error) {
	flag := byte(0)
	if gz {
		var err error
		if msg, err = gzipped(msg); err != nil {
			return nil, err
		}
		flag = 1
	}
	out := make([]byte, grpcFrameHeader, grpcFrameHeader+len(msg))
	out[0] = flag
	binary.BigEndian.PutUint32(out[1:], uint32(len(msg)))
	return append(out, msg...), nil
}

// grpcUnframe is the one message of a unary answer, decompressed. An
// empty body is an empty message.
func grpcUnframe(data []byte, encoding string) ([]byte, error) {
	if len(data) == 0 {
		return nil, nil
	}
	if len(data) < grpcFrameHeader || uint64(binary.BigEndian.Uint32(data[1:])) != uint64(len(data)-grpcFrameHeader) {
		return nil, &rpcError{code: codeInternal, msg: fmt.Sprintf("the answer is not one gRPC message (%d bytes)", len(data))}
	}
	msg := data[grpcFrameHeader:]
	switch data[0] {
	case 0:
		return msg, nil
	case 1:
		if encoding != "gzip" {
			return nil, &rpcError{code: codeInternal, msg: fmt.Sprintf("the answer is compressed with %q, which jobtrace does not decompress", encoding)}
		}
		zr, err := gzip.NewReader(bytes.NewReader(msg))
		if err != nil {
			return nil, &rpcError{code: codeInternal, msg: "the answer's gzip: " + err.Error()}
		}
		out, err := io.ReadAll(io.LimitReader(zr, MaxResponseBytes+1))
		if err == nil && len(out) > MaxResponseBytes {
			err = fmt.Errorf("longer than %d bytes", MaxResponseBytes)
		}
		if err != nil {
			return nil, &rpcError{code: codeInternal, msg: "the answer's gzip: " + err.Error()}
		}
		return out, nil
	}
	return nil, &rpcError{code: codeInternal, msg: fmt.Sprintf("the answer's compressed flag is %d", data[0])}
}

// grpcHeaders checks that r is a gRPC answer. One that is not (a proxy's
// error page, an HTTP server) fails with the code gRPC gives its HTTP
// status (https://github.com/grpc/grpc/blob/master/doc/http-grpc-status-mapping.md).
func grpcHeaders(r *http.Response) error {
	ct := r.Header.Get("Content-Type")
	isGRPC := ct == "application/grpc" || strings.HasPrefix(ct, "application/grpc+") || strings.HasPrefix(ct, "application/grpc;")
	if r.StatusCode == http.StatusOK && isGRPC {
		return nil
	}
	code := codeUnknown
	switch r.StatusCode {
	case http.StatusBadRequest:
		code = codeInternal
	case http.StatusUnauthorized:
		code = codeUnauthenticated
	case http.StatusForbidden:
		code = codePermissionDenied
	case http.StatusNotFound:
		code = codeUnimplemented
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		code = codeUnavailable
	}
	var why []string
	if r.StatusCode != http.StatusOK {
		why = append(why, "unexpected HTTP status code received from server: "+r.Status)
	}
	if !isGRPC {
		why = append(why, fmt.Sprintf("received unexpected content-type %q", ct))
	}
	return &rpcError{code: code, msg: strings.Join(why, "; ")}
}

// grpcStatus is the error of a grpc-status and grpc-message, nil for OK.
// The message is percent-encoded; one that does not decode is kept as it
// came.
func grpcStatus(status, msg string) error {
	n, err := strconv.ParseUint(status, 10, 32)
	if err != nil {
		return &rpcError{code: codeInternal, msg: fmt.Sprintf("malformed grpc-status %q", status)}
	}
	if n == 0 {
		return nil
	}
	if m, err := url.PathUnescape(msg); err == nil {
		msg = m
	}
	return &rpcError{code: rpcCode(n), msg: msg}
}

// transportError is the error of a call that got no answer: the deadline
// passed (DeadlineExceeded), the caller gave up (Canceled), or the server
// could not be reached or the connection broke (Unavailable).
func transportError(ctx context.Context, err error) error {
	cause := ctx.Err()
	if cause == nil {
		cause = err
	}
	// A server resets the call at the deadline the grpc-timeout header
	// gave it, which may reach the client before its own timer fires: a
	// call that failed once its deadline passed ran out of time, as
	// grpc-go's client says too.
	dl, ok := ctx.Deadline()
	switch {
	case errors.Is(cause, context.DeadlineExceeded), ok && !time.Now().Before(dl):
		return &rpcError{code: codeDeadlineExceeded, msg: context.DeadlineExceeded.Error(), cause: fmt.Errorf("%w: %w", context.DeadlineExceeded, err)}
	case errors.Is(cause, context.Canceled):
		return &rpcError{code: codeCanceled, msg: context.Canceled.Error(), cause: err}
	}
	inner := err
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		inner = ue.Err
	}
	return &rpcError{code: codeUnavailable, msg: "connection error: " + inner.Error(), cause: err}
}

// grpcTimeout is d as a grpc-timeout value, rounded up to the finest unit
// that holds it.
func grpcTimeout(d time.Duration) string {
	d = max(d, 1)
	for _, u := range []struct {
		unit time.Duration
		name string
	}{{time.Nanosecond, "n"}, {time.Microsecond, "u"}, {time.Millisecond, "m"}, {time.Second, "S"}, {time.Minute, "M"}, {time.Hour, "H"}} {
		n := d / u.unit
		if d%u.unit != 0 {
			n++
		}
		if n <= grpcTimeoutMax || u.name == "H" {
			return strconv.FormatInt(int64(min(n, grpcTimeoutMax)), 10) + u.name
		}
	}
	panic("unreachable")
}

// tunnel returns a dialler of addr through the HTTP proxy that proxy
// names for an https:// URL of addr, in a CONNECT tunnel, or straight to
// addr when it names none.
func tunnel(proxy func(*http.Request) (*url.URL, error), dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		pu, err := proxy(&http.Request{URL: &url.URL{Scheme: "https", Host: addr}})
		if err != nil {
			return nil, err
		}
		if pu == nil {
			return dial(ctx, network, addr)
		}
		if pu.Scheme != "http" {
			return nil, fmt.Errorf("proxy %s: a plain-text gRPC endpoint is reached through an http:// proxy only", pu.Host)
		}
		proxyAddr := pu.Host
		if pu.Port() == "" {
			proxyAddr = net.JoinHostPort(pu.Hostname(), "80")
		}
		conn, err := dial(ctx, network, proxyAddr)
		if err != nil {
			return nil, err
		}
		br, err := connect(ctx, conn, pu, addr)
		if err != nil {
			conn.Close()
			return nil, err
		}
		if br.Buffered() > 0 {
			// The server's first bytes came with the proxy's answer.
			return &bufferedConn{Conn: conn, r: br}, nil
		}
		return conn, nil
	}
}

// connect asks the proxy pu, at the other end of conn, for a tunnel to
// addr, within ctx's deadline.
func connect(ctx context.Context, conn net.Conn, pu *url.URL, addr string) (*bufio.Reader, error) {
	if dl, ok := ctx.Deadline(); ok {
		if err := conn.SetDeadline(dl); err != nil {
			return nil, err
		}
		defer conn.SetDeadline(time.Time{})
	}
	req := &http.Request{Method: http.MethodConnect, URL: &url.URL{Opaque: addr}, Host: addr, Header: http.Header{}}
	if u := pu.User; u != nil {
		pass, _ := u.Password()
		req.Header.Set("Proxy-Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pass)))
	}
	if err := req.Write(conn); err != nil {
		return nil, err
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("proxy %s answered CONNECT with %s", pu.Host, resp.Status)
	}
	return br, nil
}

// bufferedConn reads what its reader holds before the connection.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
