package otlp

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
)

// Protocols accepted in Settings.Protocol.
const (
	ProtocolGRPC         = "grpc"
	ProtocolHTTPProtobuf = "http/protobuf"
)

// DefaultTimeout is the per-request timeout when Settings.Timeout is zero. It
// matches jobtrace's default export timeout, so one request can never take
// longer than the whole end-of-job budget.
const DefaultTimeout = 3 * time.Second

var (
	// ErrNoEndpoint is returned when a client is asked for a signal that has
	// no endpoint configured.
	ErrNoEndpoint = errors.New("otlp: no endpoint configured")
	// ErrSettings wraps every other problem with the settings.
	ErrSettings = errors.New("otlp: bad settings")
)

// Settings are the OTLP exporter settings, named after the
// OTEL_EXPORTER_OTLP_* variables they usually come from.
type Settings struct {
	// Endpoint is OTEL_EXPORTER_OTLP_ENDPOINT: the base URL for every signal.
	// For http/protobuf, /v1/traces and /v1/metrics are appended to its path.
	Endpoint string
	// TracesEndpoint and MetricsEndpoint are the signal-specific variables;
	// when set they are used as they are and win over Endpoint.
	TracesEndpoint, MetricsEndpoint string
	// Protocol is "grpc" or "http/protobuf"; empty means http/protobuf, the
	// specification's default.
	Protocol string
	// Headers are sent with every request.
	Headers map[string]string
	// Insecure selects plain text for an endpoint given without a scheme.
	// A scheme, when present, decides.
	Insecure bool
	// Certificate is a PEM file of CA certificates to verify the collector
	// with, instead of the system's. ClientCertificate and ClientKey are PEM
	// files for mutual TLS; both or neither.
	Certificate, ClientCertificate, ClientKey string
	// Timeout bounds each request; zero means DefaultTimeout.
	Timeout time.Duration
	// Compression is "gzip", "none" or empty (none).
	Compression string
}

// Enabled reports whether any endpoint is configured. When it is false
// nothing should touch the network.
func (s Settings) Enabled() bool {
	return s.Endpoint != "" || s.TracesEndpoint != "" || s.MetricsEndpoint != ""
}

// TracesEnabled reports whether traces have an endpoint.
func (s Settings) TracesEnabled() bool { return s.TracesEndpoint != "" || s.Endpoint != "" }

// MetricsEnabled reports whether metrics have an endpoint.
func (s Settings) MetricsEnabled() bool { return s.MetricsEndpoint != "" || s.Endpoint != "" }

func (s Settings) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultTimeout
}

func (s Settings) protocol() (string, error) {
	switch s.Protocol {
	case "", ProtocolHTTPProtobuf:
		return ProtocolHTTPProtobuf, nil
	case ProtocolGRPC:
		return ProtocolGRPC, nil
	}
	return "", fmt.Errorf("%w: protocol %q (want %q or %q)", ErrSettings, s.Protocol, ProtocolGRPC, ProtocolHTTPProtobuf)
}

func (s Settings) gzip() (bool, error) {
	switch strings.ToLower(s.Compression) {
	case "", "none":
		return false, nil
	case "gzip":
		return true, nil
	}
	return false, fmt.Errorf("%w: compression %q (want gzip or none)", ErrSettings, s.Compression)
}

// target is where one signal goes.
type target struct {
	grpc     bool
	hostport string // host:port, for gRPC
	url      string // full URL with path, for HTTP
	insecure bool
}

// signal paths appended to a base endpoint for http/protobuf.
const (
	tracesPath  = "/v1/traces"
	metricsPath = "/v1/metrics"
)

// resolve works out the target for one signal from the signal-specific
// endpoint (used as is) or else the base endpoint (with signalPath appended
// for HTTP).
func (s Settings) resolve(specific, signalPath string) (target, error) {
	proto, err := s.protocol()
	if err != nil {
		return target{}, err
	}
	raw, base := strings.TrimSpace(specific), false
	if raw == "" {
		raw, base = strings.TrimSpace(s.Endpoint), true
	}
	if raw == "" {
		return target{}, ErrNoEndpoint
	}
	t := target{grpc: proto == ProtocolGRPC, insecure: s.Insecure}

	var path string
	if strings.Contains(raw, "://") {
		u, err := url.Parse(raw)
		if err != nil {
			return target{}, fmt.Errorf("%w: endpoint %q: %v", ErrSettings, raw, err)
		}
		switch u.Scheme {
		case "http":
			t.insecure = true
		case "https":
			t.insecure = false
		default:
			return target{}, fmt.Errorf("%w: endpoint %q: scheme %q (want http or https)", ErrSettings, raw, u.Scheme)
		}
		if u.Host == "" {
			return target{}, fmt.Errorf("%w: endpoint %q has no host", ErrSettings, raw)
		}
		t.hostport, path = u.Host, u.Path
		if base {
			path = strings.TrimSuffix(path, "/") + signalPath
		} else if path == "" {
			path = "/"
		}
	} else {
		// A bare host:port has no path to keep: HTTP gets the signal's.
		if _, _, err := net.SplitHostPort(raw); err != nil || strings.ContainsAny(raw, "/?#") {
			return target{}, fmt.Errorf("%w: endpoint %q is neither a URL nor host:port", ErrSettings, raw)
		}
		t.hostport, path = raw, signalPath
	}
	if !t.grpc {
		scheme := "https"
		if t.insecure {
			scheme = "http"
		}
		t.url = (&url.URL{Scheme: scheme, Host: t.hostport, Path: path}).String()
	}
	return t, nil
}

// prepare resolves what both signals' exporters need: the target for the
// signal's endpoint (specific, else the general one with signalPath), the
// TLS configuration (nil for plain text) and whether to gzip.
func (s Settings) prepare(specific, signalPath string) (t target, tlsCfg *tls.Config, gz bool, err error) {
	if t, err = s.resolve(specific, signalPath); err != nil {
		return
	}
	if gz, err = s.gzip(); err != nil {
		return
	}
	if !t.insecure {
		tlsCfg, err = s.tlsConfig()
	}
	return
}
