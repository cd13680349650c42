package otlp

import (
	"fmt"
	"strings"
	"time"
)

// Signals that jobtrace exports over OTLP.
const (
	SignalTraces  = "traces"
	SignalMetrics = "metrics"
)

// Protocols and compressions the exporters speak.
const (
	ProtocolGRPC         = "grpc"
	ProtocolHTTPProtobuf = "http/protobuf"

	CompressionGzip = "gzip"
	CompressionNone = "none"
)

// Values of OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER that jobtrace
// takes: OTLP, or nothing (a trace backend such as Jaeger takes no
// metrics). "console" and the others are refused: the spans are written as
// OTLP JSON lines to the spool and the samples to the usage CSV whatever
// these say, and the job's stdout and stderr belong to the job.
const (
	ExporterOTLP = "otlp"
	ExporterNone = "none"
)

// Temporalities and histogram aggregations of the metric exporter, the
// values of OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE and
// OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION.
const (
	TemporalityCumulative = "cumulative"
	TemporalityDelta      = "delta"
	TemporalityLowMemory  = "lowmemory"

	HistogramExplicit    = "explicit_bucket_histogram"
	HistogramExponential = "base2_exponential_bucket_histogram"
)

// The defaults, written here once: DefaultSettings holds them, and
// jobtrace's configuration starts from it.
const (
	// DefaultProtocol: the OpenTelemetry specification says the default
	// transport SHOULD be http/protobuf; it also crosses the HTTP proxies
	// and load balancers that gRPC does not.
	DefaultProtocol = ProtocolHTTPProtobuf
	// DefaultTimeout bounds one export request: the specification's
	// default for OTEL_EXPORTER_OTLP_TIMEOUT. The end of a job is bounded
	// by jobtrace's export timeout whatever this is.
	DefaultTimeout     = 10 * time.Second
	DefaultCompression = CompressionNone
	// DefaultTemporality and DefaultHistogram are the specification's
	// defaults for the metric exporter.
	DefaultTemporality = TemporalityCumulative
	DefaultHistogram   = HistogramExplicit
)

// Paths that http/protobuf appends to the general endpoint, as the OTLP
// exporter specification says.
const (
	TracesPath  = "/v1/traces"
	MetricsPath = "/v1/metrics"
)

// Settings mirror the OTEL_EXPORTER_OTLP_* variables: what the exporters
// are built from once Resolve has checked them. The general settings apply
// to traces and metrics; Traces and Metrics hold the values of the
// signal-specific variables, which win for their signal. The yaml tags are
// the keys of the otlp section of jobtrace.yaml.
type Settings struct {
	// Endpoint is the base endpoint for all signals. With http/protobuf the
	// signal's path (/v1/traces, /v1/metrics) is appended to it. Empty
	// means that only a signal with an endpoint of its own is exported.
	Endpoint string `yaml:"endpoint"`
	// TracesEndpoint and MetricsEndpoint are used as they are.
	TracesEndpoint  string `yaml:"traces_endpoint"`
	MetricsEndpoint string `yaml:"metrics_endpoint"`

	General `yaml:",inline"`

	// MetricsTemporalityPreference is cumulative, delta or lowmemory, as
	// the specification defines them.
	MetricsTemporalityPreference string `yaml:"metrics_temporality_preference"`
	// MetricsDefaultHistogramAggregation is explicit_bucket_histogram or
	// base2_exponential_bucket_histogram.
	MetricsDefaultHistogramAggregation string `yaml:"metrics_default_histogram_aggregation"`

	Traces  Overrides `yaml:"traces,omitempty"`
	Metrics Overrides `yaml:"metrics,omitempty"`
}

// General are the settings that apply to every signal.
type General struct {
	// Protocol is ProtocolGRPC or ProtocolHTTPProtobuf.
	Protocol string `yaml:"protocol"`
	// Headers are sent with every export request.
	Headers map[string]string `yaml:"headers"`
	// Insecure allows a gRPC connection without TLS when the endpoint has
	// no scheme; an http:// or https:// scheme decides by itself.
	Insecure bool `yaml:"insecure"`
	// Certificate, ClientKey and ClientCertificate are PEM file paths: the
	// CA to trust, and the client's key and certificate for mutual TLS.
	Certificate       string `yaml:"certificate"`
	ClientKey         string `yaml:"client_key"`
	ClientCertificate string `yaml:"client_certificate"`
	// Timeout bounds one export request.
	Timeout time.Duration `yaml:"timeout"`
	// Compression is CompressionGzip or CompressionNone.
	Compression string `yaml:"compression"`
}

// Overrides are signal-specific settings; a zero field (nil for Headers
// and Insecure) means "use the general setting".
type Overrides struct {
	Protocol          string            `yaml:"protocol,omitempty"`
	Headers           map[string]string `yaml:"headers,omitempty"`
	Insecure          *bool             `yaml:"insecure,omitempty"`
	Certificate       string            `yaml:"certificate,omitempty"`
	ClientKey         string            `yaml:"client_key,omitempty"`
	ClientCertificate string            `yaml:"client_certificate,omitempty"`
	Timeout           time.Duration     `yaml:"timeout,omitempty"`
	Compression       string            `yaml:"compression,omitempty"`
}

// DefaultSettings returns the settings in effect when nothing is set: no
// endpoint (nothing is exported), http/protobuf, a timeout of 10 s per
// request, no compression, cumulative temporality and explicit bucket
// histograms.
func DefaultSettings() Settings {
	return Settings{
		General: General{
			Protocol:    DefaultProtocol,
			Timeout:     DefaultTimeout,
			Compression: DefaultCompression,
		},
		MetricsTemporalityPreference:       DefaultTemporality,
		MetricsDefaultHistogramAggregation: DefaultHistogram,
	}
}

// ParseProtocol returns the protocol that s (an OTEL_* value) names, or why
// it is not one.
func ParseProtocol(s string) (string, error) {
	p := strings.TrimSpace(s)
	if why := checkProtocol(p); why != "" {
		return "", fmt.Errorf("%q %s", s, why)
	}
	return p, nil
}

// ParseCompression returns the compression that s names, or why it is not
// one.
func ParseCompression(s string) (string, error) {
	c := strings.TrimSpace(s)
	if why := checkCompression(c); why != "" {
		return "", fmt.Errorf("%q %s", s, why)
	}
	return c, nil
}

// ParseTemporality returns the temporality preference s names (in any
// case, as the specification says of its enumerations), or why it is not
// one.
func ParseTemporality(s string) (string, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if why := checkTemporality(t); why != "" {
		return "", fmt.Errorf("%q %s", s, why)
	}
	return t, nil
}

// ParseHistogram returns the histogram aggregation s names (in any case),
// or why it is not one.
func ParseHistogram(s string) (string, error) {
	h := strings.ToLower(strings.TrimSpace(s))
	if why := checkHistogram(h); why != "" {
		return "", fmt.Errorf("%q %s", s, why)
	}
	return h, nil
}

// ParseExporter returns the exporter that s, the value of
// OTEL_TRACES_EXPORTER or OTEL_METRICS_EXPORTER, names (in any case), or
// why jobtrace does not take it.
func ParseExporter(s string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(s))
	if why := CheckExporter(e); why != "" {
		return "", fmt.Errorf("%q %s", s, why)
	}
	return e, nil
}

// CheckExporter returns why e is not an exporter jobtrace takes, or "".
func CheckExporter(e string) string {
	switch e {
	case ExporterOTLP, ExporterNone:
		return ""
	}
	return "is not supported: otlp or none (the spool and the usage CSV are written whatever this says)"
}

func checkProtocol(p string) string {
	switch p {
	case ProtocolGRPC, ProtocolHTTPProtobuf:
		return ""
	}
	return "is not a supported protocol (grpc or http/protobuf)"
}

func checkCompression(c string) string {
	switch c {
	case CompressionGzip, CompressionNone:
		return ""
	}
	return "is not a supported compression (gzip or none)"
}

func checkTemporality(t string) string {
	switch t {
	case TemporalityCumulative, TemporalityDelta, TemporalityLowMemory:
		return ""
	}
	return "is not a temporality preference (cumulative, delta or lowmemory)"
}

func checkHistogram(h string) string {
	switch h {
	case HistogramExplicit, HistogramExponential:
		return ""
	}
	return "is not a histogram aggregation (explicit_bucket_histogram or base2_exponential_bucket_histogram)"
}
