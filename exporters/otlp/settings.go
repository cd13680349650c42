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

	"github.com/jobtrace/jobtrace/config"
)

// ErrNoEndpoint is returned for a nil endpoint.
var ErrNoEndpoint = errors.New("otlp: no endpoint")

// ownedEnv reports whether the OpenTelemetry clients would read the
// variable name for a setting that config.Endpoint already holds.
// OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE and
// OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION are not such
// settings: the metric exporter still reads them.
func ownedEnv(name string) bool {
	if !strings.HasPrefix(name, "OTEL_EXPORTER_OTLP_") {
		return false
	}
	switch name {
	case "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION":
		return false
	}
	return true
}

var envMu sync.Mutex

// withoutOTLPEnv runs build with the OTEL_EXPORTER_OTLP_* variables that
// config owns removed from the process environment, and puts them back
// after. The OpenTelemetry clients read those variables when they are built
// and act on them before any option can override them: they read the
// certificate files the variables name (a FIFO would block, /dev/zero would
// fill memory) and report what they cannot parse. Every value has already
// been resolved and checked by package config, once; the clients must see
// only the options built from it. Clients are built at start, before the
// job is, so nothing else reads the environment meanwhile.
func withoutOTLPEnv[T any](build func() (T, error)) (T, error) {
	envMu.Lock()
	defer envMu.Unlock()
	var saved []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if ownedEnv(name) {
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
// sends goes to e.URL exactly: the OpenTelemetry clients build their
// request URL from the host and path alone and would drop the query. It
// follows no redirect: a redirect would carry the headers (API keys) to
// another address, and a POST turned into a GET would lose the data.
func newHTTPClient(e *config.Endpoint) (*http.Client, *http.Transport) {
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
	e    *config.Endpoint
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
func baseURL(e *config.Endpoint) string {
	u := *e.URL
	u.RawQuery, u.ForceQuery, u.User = "", false, nil
	return u.String()
}
