package config

import (
	"crypto/tls"
	"encoding/base64"
	"fmt"
	"maps"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/jobtrace/jobtrace/internal/redact"
)

// Signals that jobtrace exports over OTLP.
const (
	SignalTraces  = "traces"
	SignalMetrics = "metrics"
)

// DefaultOTLPTimeout bounds one export request when no timeout is set: the
// specification's default for OTEL_EXPORTER_OTLP_TIMEOUT. The end of a job
// is bounded by export_timeout whatever this is.
const DefaultOTLPTimeout = 10 * time.Second

// Paths that http/protobuf appends to the general endpoint, as the OTLP
// exporter specification says.
const (
	TracesPath  = "/v1/traces"
	MetricsPath = "/v1/metrics"
)

// Export is where telemetry goes besides the local artifacts. A nil signal
// is not exported: it has no endpoint, or OTEL_SDK_DISABLED or
// OTEL_<SIGNAL>_EXPORTER=none turned it off.
type Export struct {
	Traces, Metrics *Endpoint
}

// Endpoint is the resolved, checked OTLP configuration of one signal: what
// the exporters are built from, and nothing else. Every value in it is one
// that the exporter accepts.
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
}

// HostPort is the endpoint's host and port, for gRPC.
func (e *Endpoint) HostPort() string { return e.URL.Host }

// String is the endpoint for messages, its secrets masked.
func (e *Endpoint) String() string { return redact.URL(e.URL.String()) }

// Export returns the OTLP export that Load resolved.
func (c Config) Export() Export { return c.export }

// ResolveOTLP resolves o the way Load does, with every signal that has an
// endpoint turned on; zero values take the defaults. It is for settings
// built in code rather than loaded. The error wraps ErrConfig.
func ResolveOTLP(o OTLP) (Export, error) {
	c := Config{OTLP: o}
	if c.OTLP.Protocol == "" {
		c.OTLP.Protocol = ProtocolHTTPProtobuf
	}
	if c.OTLP.Compression == "" {
		c.OTLP.Compression = CompressionNone
	}
	if c.OTLP.Timeout == 0 {
		c.OTLP.Timeout = DefaultOTLPTimeout
	}
	if fe := validateOTLP(c.OTLP); fe != nil {
		return Export{}, errorf("%s", fe.Error())
	}
	if fe := c.resolveExport(); fe != nil {
		return Export{}, errorf("%s", fe.Error())
	}
	return c.export, nil
}

// resolveExport resolves c.OTLP into c.export, reading the TLS files of the
// signals that are exported. It is the one place where endpoints, TLS files
// and headers become what the exporters use; Load calls it after
// validateOTLP, so `jobtrace run`, `config` and `replay` refuse the same
// settings with the same line.
func (c *Config) resolveExport() *fieldError {
	c.export = Export{}
	if c.SDKDisabled {
		return nil
	}
	registerSecrets(c.OTLP)
	r := resolver{o: c.OTLP, pem: map[string][]byte{}}
	var fe *fieldError
	if !c.tracesOff {
		if c.export.Traces, fe = r.signal(SignalTraces); fe != nil {
			return fe
		}
	}
	if !c.metricsOff {
		if c.export.Metrics, fe = r.signal(SignalMetrics); fe != nil {
			return fe
		}
	}
	return nil
}

type resolver struct {
	o   OTLP
	pem map[string][]byte // files read, by path: a CA shared by both signals is read once
}

// setting is one value in effect for a signal, and the key it came from.
type setting struct{ value, key string }

// pick returns the signal's override when it is set, else the general
// value.
func pick(signal, name, override, general string) setting {
	if override != "" {
		return setting{override, "otlp." + signal + "." + name}
	}
	return setting{general, "otlp." + name}
}

// signal resolves one signal, or returns nil when it has no endpoint. The
// OTLP exporter specification's rules:
//   - the signal's endpoint (otlp.traces_endpoint) is used as it is; an
//     http/protobuf URL without a path gets "/";
//   - else the general endpoint, to whose path http/protobuf appends
//     /v1/traces or /v1/metrics;
//   - the query of an http/protobuf URL is kept;
//   - an http:// URL is plain text and https:// is TLS, whatever insecure
//     says; a bare host:port (gRPC only) uses TLS unless insecure is true.
func (r *resolver) signal(name string) (*Endpoint, *fieldError) {
	o := r.o
	ov, raw, path := o.Traces, setting{o.TracesEndpoint, "otlp.traces_endpoint"}, TracesPath
	if name == SignalMetrics {
		ov, raw, path = o.Metrics, setting{o.MetricsEndpoint, "otlp.metrics_endpoint"}, MetricsPath
	}
	base := false
	if raw.value == "" {
		raw, base = setting{o.Endpoint, "otlp.endpoint"}, true
	}
	if raw.value == "" {
		return nil, nil
	}
	proto := pick(name, "protocol", ov.Protocol, o.Protocol)
	if proto.value == "" {
		proto.value = ProtocolHTTPProtobuf
	}
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

	e.Insecure = o.Insecure
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

	headers := setting{key: "otlp.headers"}
	e.Headers = maps.Clone(o.Headers)
	if ov.Headers != nil {
		e.Headers, headers.key = maps.Clone(ov.Headers), "otlp."+name+".headers"
	}
	if e.Headers == nil {
		e.Headers = map[string]string{}
	}
	if e.Protocol == ProtocolGRPC {
		if fe := checkGRPCHeaders(headers.key, e.Headers); fe != nil {
			return nil, fe
		}
	}
	if p.user != nil && !hasHeader(e.Headers, "authorization") {
		pw, _ := p.user.Password()
		e.Headers["Authorization"] = "Basic " + base64.StdEncoding.EncodeToString([]byte(p.user.Username()+":"+pw))
		redact.Add(e.Headers["Authorization"])
	}

	e.Timeout = o.Timeout
	if ov.Timeout != 0 {
		e.Timeout = ov.Timeout
	}
	if e.Timeout <= 0 {
		e.Timeout = DefaultOTLPTimeout
	}
	e.Gzip = pick(name, "compression", ov.Compression, o.Compression).value == CompressionGzip

	if !e.Insecure {
		tlsCfg, fe := r.tlsConfig(
			pick(name, "certificate", ov.Certificate, o.Certificate),
			pick(name, "client_certificate", ov.ClientCertificate, o.ClientCertificate),
			pick(name, "client_key", ov.ClientKey, o.ClientKey))
		if fe != nil {
			return nil, fe
		}
		e.TLS = tlsCfg
	}
	return e, nil
}

func endpointError(key, raw, why string) *fieldError {
	return bad(key, "%q %s", redact.URL(raw), why)
}

// endpoint is a parsed endpoint.
type endpoint struct {
	u      *url.URL      // without user info
	user   *url.Userinfo // from the URL, or nil
	scheme bool          // the URL had a scheme, which decides TLS
}

// parseEndpoint checks raw for protocol and returns it parsed, or why it
// cannot be used. http/protobuf needs an http:// or https:// URL; gRPC
// takes such a URL without a path or query (gRPC sends to host:port only),
// or a bare host:port.
func parseEndpoint(raw, protocol string) (endpoint, string) {
	if !strings.Contains(raw, "://") {
		if protocol == ProtocolHTTPProtobuf {
			return endpoint{}, "is not an http:// or https:// URL, as http/protobuf needs"
		}
		host, port, err := net.SplitHostPort(raw)
		if err != nil || host == "" || strings.ContainsAny(raw, " /?#@") {
			return endpoint{}, "is neither a URL nor host:port"
		}
		if why := checkPort(port); why != "" {
			return endpoint{}, why
		}
		if !isHost(host) {
			return endpoint{}, fmt.Sprintf("has %q for a host, neither a name nor an IP address", host)
		}
		return endpoint{u: &url.URL{Host: raw}}, ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return endpoint{}, "is not a URL" + urlReason(err)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return endpoint{}, fmt.Sprintf("has scheme %q, not http or https", u.Scheme)
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return endpoint{}, "has no host"
	}
	if !isHost(u.Hostname()) {
		return endpoint{}, fmt.Sprintf("has %q for a host, neither a name nor an IP address", u.Hostname())
	}
	if why := checkPort(u.Port()); u.Port() != "" && why != "" {
		return endpoint{}, why
	}
	if u.Fragment != "" {
		return endpoint{}, "has a fragment (#...), which is never sent"
	}
	if protocol == ProtocolGRPC {
		if u.RawQuery != "" || u.ForceQuery {
			return endpoint{}, "has a query, which gRPC cannot send (it sends to host:port only)"
		}
		if u.Path != "" && u.Path != "/" {
			return endpoint{}, "has a path, which gRPC cannot use (it sends to host:port only)"
		}
		if u.Port() == "" {
			// gRPC needs the port, which an http(s) URL implies.
			port := "443"
			if u.Scheme == "http" {
				port = "80"
			}
			u.Host = net.JoinHostPort(u.Hostname(), port)
		}
		u.Path, u.RawPath = "", ""
	}
	p := endpoint{u: u, user: u.User, scheme: true}
	u.User = nil
	return p, ""
}

// isHost reports whether h is an IP address or a host name (letters,
// digits, "-", "_" and "."; international names too, which HTTP converts),
// which is what can be dialled: anything else would fail every request.
func isHost(h string) bool {
	if ip, _, _ := strings.Cut(h, "%"); net.ParseIP(ip) != nil {
		return true
	}
	if h == "" || len(h) > 253 {
		return false
	}
	for _, r := range h {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' ||
			r >= 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r))) {
			return false
		}
	}
	return true
}

func checkPort(port string) string {
	n, err := strconv.Atoi(port)
	if err != nil || n < 1 || n > 65535 {
		return "has no valid port (1 to 65535)"
	}
	return ""
}

// urlReason is what url.Parse found wrong, without the URL it quotes.
func urlReason(err error) string {
	var ue *url.Error
	if e, ok := err.(*url.Error); ok {
		ue = e
	}
	if ue == nil {
		return ""
	}
	return ": " + ue.Err.Error()
}

// validateOTLP checks every OTLP value on its own: protocols,
// compressions, timeouts, header names and values, and endpoints for the
// protocol each signal would use. resolveExport then checks what depends
// on the signal (gRPC's header rules) and reads the TLS files.
func validateOTLP(o OTLP) *fieldError {
	if err := validateSettings("otlp.", o.Protocol, o.Compression, o.Headers, o.Timeout, true); err != nil {
		return err
	}
	for _, sig := range []struct {
		name string
		ov   OTLPOverrides
	}{{"traces", o.Traces}, {"metrics", o.Metrics}} {
		ov := sig.ov
		if err := validateSettings("otlp."+sig.name+".", ov.Protocol, ov.Compression, ov.Headers, ov.Timeout, false); err != nil {
			return err
		}
	}
	for _, e := range []struct {
		key, v, protocol string
	}{
		{"otlp.endpoint", o.Endpoint, o.Protocol},
		{"otlp.traces_endpoint", o.TracesEndpoint, pick("traces", "protocol", o.Traces.Protocol, o.Protocol).value},
		{"otlp.metrics_endpoint", o.MetricsEndpoint, pick("metrics", "protocol", o.Metrics.Protocol, o.Protocol).value},
	} {
		if e.v == "" {
			continue
		}
		if _, why := parseEndpoint(e.v, e.protocol); why != "" {
			return endpointError(e.key, e.v, why)
		}
	}
	// The general endpoint is also used for a signal whose own protocol
	// differs from the general one.
	if o.Endpoint != "" {
		for _, sig := range []struct {
			name, specific string
			ov             OTLPOverrides
		}{{"traces", o.TracesEndpoint, o.Traces}, {"metrics", o.MetricsEndpoint, o.Metrics}} {
			if sig.specific != "" || sig.ov.Protocol == "" {
				continue
			}
			if _, why := parseEndpoint(o.Endpoint, sig.ov.Protocol); why != "" {
				return endpointError("otlp.endpoint", o.Endpoint, why+" (the protocol of otlp."+sig.name+")")
			}
		}
	}
	return nil
}

func validateSettings(prefix, protocol, compression string, headers map[string]string, timeout time.Duration, required bool) *fieldError {
	if (required || protocol != "") && protocol != ProtocolGRPC && protocol != ProtocolHTTPProtobuf {
		return bad(prefix+"protocol", "%q is not a supported protocol (grpc or http/protobuf)", protocol)
	}
	if (required || compression != "") && compression != CompressionGzip && compression != CompressionNone {
		return bad(prefix+"compression", "%q is not a supported compression (gzip or none)", compression)
	}
	if timeout < 0 || (required && timeout == 0) {
		return bad(prefix+"timeout", "must be positive, not %v", timeout)
	}
	return checkHeaders(prefix+"headers", headers)
}
