package otlp

import (
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"strings"
	"time"

	"github.com/jobtrace/jobtrace/internal/redact"
)

// ErrSetting is wrapped by every error of Resolve and Check.
var ErrSetting = errors.New("otlp setting")

// SettingError is a setting that Resolve or Check refuses. Key is its key
// in Settings' YAML form ("endpoint", "traces.headers"); Entry, when set,
// is the map entry at fault ("traces.headers[x-api-key]"). Msg never
// quotes a secret.
type SettingError struct {
	Key, Entry, Msg string
}

func (e *SettingError) Error() string { return e.Key + ": " + e.Msg }
func (e *SettingError) Unwrap() error { return ErrSetting }

func bad(key, format string, args ...any) *SettingError {
	return &SettingError{Key: key, Msg: fmt.Sprintf(format, args...)}
}

// Signals says which signals are exported: OTEL_SDK_DISABLED, and
// OTEL_TRACES_EXPORTER or OTEL_METRICS_EXPORTER set to none, turn one off.
type Signals struct {
	Traces, Metrics bool
}

// Export is where telemetry goes besides the local artifacts. A nil signal
// is not exported: it has no endpoint, or it is turned off.
type Export struct {
	Traces, Metrics *Endpoint
}

// Endpoint is the resolved, checked configuration of one signal: what its
// exporter is built from, and nothing else. Every value in it is one that
// the exporter accepts.
type Endpoint struct {
	// Signal is SignalTraces or SignalMetrics.
	Signal string
	// Protocol is ProtocolGRPC or ProtocolHTTPProtobuf.
	Protocol string
	// URL, for http/protobuf, is where requests are posted: scheme, host,
	// path and query, without user info (that goes into Headers). For
	// gRPC it is scheme://host:port; the scheme says whether TLS is used.
	URL *url.URL
	// Insecure is plain text; TLS is then nil.
	Insecure bool
	// TLS is the client's TLS configuration: the CA and client certificate
	// files already read and checked.
	TLS *tls.Config
	// Headers go with every request; user info in the endpoint URL is
	// here as an Authorization: Basic header.
	Headers map[string]string
	// Timeout bounds one request; it is always positive.
	Timeout time.Duration
	// Gzip compresses requests.
	Gzip bool
	// Temporality and Histogram, for metrics, are the temporality
	// preference and the default histogram aggregation.
	Temporality, Histogram string
}

// HostPort is the endpoint's host and port, for gRPC.
func (e *Endpoint) HostPort() string { return e.URL.Host }

// String is the endpoint for messages, its secrets masked.
func (e *Endpoint) String() string { return redact.URL(e.URL.String()) }

// Resolve checks s (see Check) and resolves each signal that on turns on
// and that has an endpoint, reading its TLS files. It is the one place
// where settings become what the exporters use: jobtrace's configuration
// is validated by it, so `jobtrace run`, `config` and `replay` accept and
// refuse the same settings. It also tells package redact what to mask in
// every message: header values and the credentials of the endpoints. The
// error is a *SettingError.
func Resolve(s Settings, on Signals) (Export, error) {
	if err := s.Check(); err != nil {
		return Export{}, err
	}
	registerSecrets(s)
	r := resolver{s: s, pem: map[string][]byte{}}
	var exp Export
	var err *SettingError
	if on.Traces {
		if exp.Traces, err = r.signal(SignalTraces); err != nil {
			return Export{}, err
		}
	}
	if on.Metrics {
		if exp.Metrics, err = r.signal(SignalMetrics); err != nil {
			return Export{}, err
		}
	}
	return exp, nil
}

type resolver struct {
	s   Settings
	pem map[string][]byte // files read, by path: a CA shared by both signals is read once
}

// setting is one value in effect for a signal, and the key it came from.
type setting struct{ value, key string }

// pick returns the signal's override when it is set, else the general
// value.
func pick(signal, name, override, general string) setting {
	if override != "" {
		return setting{override, signal + "." + name}
	}
	return setting{general, name}
}

// overrides returns the signal's own settings, its endpoint and the path
// http/protobuf appends to the general endpoint.
func (s Settings) overrides(signal string) (Overrides, setting, string) {
	if signal == SignalMetrics {
		return s.Metrics, setting{s.MetricsEndpoint, "metrics_endpoint"}, MetricsPath
	}
	return s.Traces, setting{s.TracesEndpoint, "traces_endpoint"}, TracesPath
}

// signal resolves one signal, or returns nil when it has no endpoint. The
// OTLP exporter specification's rules:
//   - the signal's endpoint (traces_endpoint) is used as it is; an
//     http/protobuf URL without a path gets "/";
//   - else the general endpoint, to whose path http/protobuf appends
//     /v1/traces or /v1/metrics;
//   - the query of an http/protobuf URL is kept;
//   - an http:// URL is plain text and https:// is TLS, whatever insecure
//     says; a bare host:port (gRPC only) uses TLS unless insecure is true.
//
// Check has checked every value on its own, so only what depends on the
// signal is checked here.
func (r *resolver) signal(name string) (*Endpoint, *SettingError) {
	s := r.s
	ov, raw, path := s.overrides(name)
	base := false
	if raw.value == "" {
		raw, base = setting{s.Endpoint, "endpoint"}, true
	}
	if raw.value == "" {
		return nil, nil
	}
	proto := pick(name, "protocol", ov.Protocol, s.Protocol)
	p, why := parseEndpoint(raw.value, proto.value)
	if why != "" {
		return nil, endpointError(raw.key, raw.value, why)
	}
	e := &Endpoint{Signal: name, Protocol: proto.value, URL: p.u}
	if e.Protocol == ProtocolHTTPProtobuf {
		switch {
		case base:
			e.URL.Path = strings.TrimSuffix(e.URL.Path, "/") + path
			if e.URL.RawPath != "" {
				e.URL.RawPath = strings.TrimSuffix(e.URL.RawPath, "/") + path
			}
		case e.URL.Path == "":
			e.URL.Path = "/"
		}
	}

	e.Insecure = s.Insecure
	if ov.Insecure != nil {
		e.Insecure = *ov.Insecure
	}
	if p.scheme {
		e.Insecure = e.URL.Scheme == "http"
	} else {
		e.URL.Scheme = "https"
		if e.Insecure {
			e.URL.Scheme = "http"
		}
	}

	headersKey := "headers"
	e.Headers = maps.Clone(s.Headers)
	if ov.Headers != nil {
		e.Headers, headersKey = maps.Clone(ov.Headers), name+".headers"
	}
	if e.Headers == nil {
		e.Headers = map[string]string{}
	}
	if e.Protocol == ProtocolGRPC {
		if err := checkGRPCHeaders(headersKey, e.Headers); err != nil {
			return nil, err
		}
	}
	if p.user != nil && !hasHeader(e.Headers, "authorization") {
		pw, _ := p.user.Password()
		e.Headers["Authorization"] = "Basic " + base64.StdEncoding.EncodeToString([]byte(p.user.Username()+":"+pw))
		redact.Add(e.Headers["Authorization"])
	}

	e.Timeout = s.Timeout
	if ov.Timeout != 0 {
		e.Timeout = ov.Timeout
	}
	e.Gzip = pick(name, "compression", ov.Compression, s.Compression).value == CompressionGzip
	if name == SignalMetrics {
		e.Temporality, e.Histogram = s.MetricsTemporalityPreference, s.MetricsDefaultHistogramAggregation
	}

	if !e.Insecure {
		tlsCfg, err := r.tlsConfig(
			pick(name, "certificate", ov.Certificate, s.Certificate),
			pick(name, "client_certificate", ov.ClientCertificate, s.ClientCertificate),
			pick(name, "client_key", ov.ClientKey, s.ClientKey))
		if err != nil {
			return nil, err
		}
		e.TLS = tlsCfg
	}
	return e, nil
}

func endpointError(key, raw, why string) *SettingError {
	return bad(key, "%q %s", redact.URL(raw), why)
}

// Check checks every value of s on its own, whether or not its signal is
// exported: protocols, compressions, timeouts, the metric exporter's
// temporality and histogram aggregation, header names and values, and
// endpoints for the protocol each signal would use. The general protocol,
// compression, timeout, temporality and aggregation must be set (see
// DefaultSettings); a signal's own may be left zero. Resolve then checks
// what depends on the signal (gRPC's header rules) and reads the TLS
// files. The error is a *SettingError.
func (s Settings) Check() error {
	if err := s.check(); err != nil {
		return err
	}
	return nil
}

func (s Settings) check() *SettingError {
	if err := checkGeneral("", s.Protocol, s.Compression, s.Headers, s.Timeout, true); err != nil {
		return err
	}
	if why := checkTemporality(s.MetricsTemporalityPreference); why != "" {
		return bad("metrics_temporality_preference", "%q %s", s.MetricsTemporalityPreference, why)
	}
	if why := checkHistogram(s.MetricsDefaultHistogramAggregation); why != "" {
		return bad("metrics_default_histogram_aggregation", "%q %s", s.MetricsDefaultHistogramAggregation, why)
	}
	for _, name := range []string{SignalTraces, SignalMetrics} {
		ov, own, _ := s.overrides(name)
		if err := checkGeneral(name+".", ov.Protocol, ov.Compression, ov.Headers, ov.Timeout, false); err != nil {
			return err
		}
		if own.value != "" {
			if _, why := parseEndpoint(own.value, pick(name, "protocol", ov.Protocol, s.Protocol).value); why != "" {
				return endpointError(own.key, own.value, why)
			}
		}
	}
	if s.Endpoint == "" {
		return nil
	}
	if _, why := parseEndpoint(s.Endpoint, s.Protocol); why != "" {
		return endpointError("endpoint", s.Endpoint, why)
	}
	// The general endpoint is also used for a signal whose own protocol
	// differs from the general one.
	for _, name := range []string{SignalTraces, SignalMetrics} {
		ov, own, _ := s.overrides(name)
		if own.value != "" || ov.Protocol == "" {
			continue
		}
		if _, why := parseEndpoint(s.Endpoint, ov.Protocol); why != "" {
			return endpointError("endpoint", s.Endpoint, why+" (the protocol of "+name+")")
		}
	}
	return nil
}

func checkGeneral(prefix, protocol, compression string, headers map[string]string, timeout time.Duration, required bool) *SettingError {
	if required || protocol != "" {
		if why := checkProtocol(protocol); why != "" {
			return bad(prefix+"protocol", "%q %s", protocol, why)
		}
	}
	if required || compression != "" {
		if why := checkCompression(compression); why != "" {
			return bad(prefix+"compression", "%q %s", compression, why)
		}
	}
	if timeout < 0 || (required && timeout == 0) {
		return bad(prefix+"timeout", "must be positive, not %v", timeout)
	}
	return checkHeaders(prefix+"headers", headers)
}
