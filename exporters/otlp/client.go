package otlp

import (
	"crypto/tls"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
)

// ErrNoEndpoint is returned for a nil endpoint.
var ErrNoEndpoint = errors.New("otlp: no endpoint")

var envMu sync.Mutex

// withoutOTLPEnv runs build with every OTEL_EXPORTER_OTLP_* variable
// removed from the process environment, and puts them back after. The
// OpenTelemetry metric exporter reads those variables when it is built,
// with no option to stop it, and act on them before any option overrides them:
// they read the certificate files the variables name (a FIFO would block,
// /dev/zero would fill memory) and report what they cannot parse. Every
// value has been resolved and checked by Resolve, once, and every setting
// the exporter has is given to it as an option built from the Endpoint,
// so what it would read is only ever overridden. It is built at start,
// before the job is, so nothing else reads the environment meanwhile.
func withoutOTLPEnv[T any](build func() (T, error)) (T, error) {
	envMu.Lock()
	defer envMu.Unlock()
	var saved []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "OTEL_EXPORTER_OTLP_") {
			saved = append(saved, kv)
			os.Unsetenv(name)
		}
	}
	defer func() {
		for _, kv := range saved {
			name, value, _ := strings.Cut(kv, "=")
			os.Setenv(name, value)
		}
	}()
	return build()
}

// newHTTPClient returns a client with a transport of its own, so that its
// idle connections can be closed when the exporter stops. Every request it
// sends goes to e.URL exactly: the OpenTelemetry metric exporter builds
// its request URL from the host and path alone and would drop the query. It
// follows no redirect: a redirect would carry the headers (API keys) to
// another address, and a POST turned into a GET would lose the data.
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
		Transport: &toEndpoint{next: tr, e: e},
		Timeout:   e.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}, tr
}

// toEndpoint sends every request to the endpoint's URL, query included.
type toEndpoint struct {
	next http.RoundTripper
	e    *Endpoint
}

func (t *toEndpoint) RoundTrip(r *http.Request) (*http.Response, error) {
	r2 := r.Clone(r.Context())
	u := *t.e.URL
	r2.URL, r2.Host = &u, ""
	return t.next.RoundTrip(r2)
}

func cloneTLS(c *tls.Config) *tls.Config {
	if c == nil {
		return nil
	}
	return c.Clone()
}

// baseURL is what the OpenTelemetry HTTP clients are told: scheme, host and
// path, nothing that toEndpoint does not put back.
func baseURL(e *Endpoint) string {
	u := *e.URL
	u.RawQuery, u.ForceQuery, u.User = "", false, nil
	return u.String()
}
