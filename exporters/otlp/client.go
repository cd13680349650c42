package otlp

import (
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"time"
)

// ErrNoEndpoint is returned for a nil endpoint.
var ErrNoEndpoint = errors.New("otlp: no endpoint")

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
