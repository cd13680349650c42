package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// ErrNoEndpoint is returned for a nil endpoint.
var ErrNoEndpoint = errors.New("otlp: no endpoint")

// MaxResponseBytes bounds what is read of a collector's answer. An OTLP
// answer is a partial success or an error status of a few hundred bytes;
// a server that is not a collector may answer with a page, of which the
// first bytes say enough.
const MaxResponseBytes = 64 << 10

// sender sends the protobuf of one OTLP export request, within the
// endpoint's timeout, and returns the partial success of the answer.
type sender interface {
	send(ctx context.Context, body []byte) (rejected int64, msg string, err error)
	// close closes the idle connections; a later send opens new ones.
	close()
}

// newSender returns the sender of e's protocol; grpcMethod is the path of
// the signal's gRPC Export method.
func newSender(e *Endpoint, grpcMethod string) sender {
	if e.Protocol == ProtocolGRPC {
		return newGRPCSender(e, grpcMethod, http.ProxyFromEnvironment)
	}
	hc, tr := newHTTPClient(e)
	return &httpSender{e: e, hc: hc, tr: tr}
}

// newHTTPClient returns a client with a transport of its own, so that its
// idle connections can be closed when the exporter stops. It follows no
// redirect: a redirect would carry the headers (API keys) to another
// address, and a POST turned into a GET would lose the data. Proxies are
// taken from HTTPS_PROXY, HTTP_PROXY and NO_PROXY, as every Go client does.
func newHTTPClient(e *Endpoint) (*http.Client, *http.Transport) {
	tr := &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: e.Timeout, KeepAlive: 30 * time.Second}).DialContext,
		TLSClientConfig:       cloneTLS(e.TLS),
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          4,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   e.Timeout,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Transport: tr,
		Timeout:   e.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}, tr
}

func cloneTLS(c *tls.Config) *tls.Config {
	if c == nil {
		return nil
	}
	return c.Clone()
}

// httpSender posts OTLP/HTTP protobuf requests to the endpoint's URL.
type httpSender struct {
	e  *Endpoint
	hc *http.Client
	tr *http.Transport
}

func (s *httpSender) close() { s.tr.CloseIdleConnections() }

// send posts body to e's URL. A failed answer is a *statusError with the
// collector's status and the start of its body.
func (s *httpSender) send(ctx context.Context, body []byte) (rejected int64, msg string, err error) {
	e := s.e
	ctx, cancel := context.WithTimeout(ctx, e.Timeout)
	defer cancel()
	if e.Gzip {
		if body, err = gzipped(body); err != nil {
			return 0, "", err
		}
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
	r, err := s.hc.Do(req)
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

// gzipped is b compressed with gzip.
func gzipped(b []byte) ([]byte, error) {
	var out bytes.Buffer
	zw := gzip.NewWriter(&out)
	if _, err := zw.Write(b); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}
