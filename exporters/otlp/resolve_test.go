package otlp

import (
	"errors"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
)

var both = Signals{Traces: true, Metrics: true}

// BenchmarkResolveExportTLS is what resolving costs at start with a CA and
// a client certificate: reading three files and parsing them.
func BenchmarkResolveExportTLS(b *testing.B) {
	abs, err := filepath.Abs(filepath.Join("..", "..", "config", "testdata", "tls"))
	if err != nil {
		b.Fatal(err)
	}
	o := DefaultSettings()
	o.Endpoint = "https://c:4318"
	o.Certificate = filepath.Join(abs, "ca.pem")
	o.ClientCertificate = filepath.Join(abs, "client.pem")
	o.ClientKey = filepath.Join(abs, "client-key.pem")
	for b.Loop() {
		if _, err := Resolve(o, both); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzResolveEndpoint: any endpoint is either refused or resolved into one
// the exporters take: gRPC gets a host and a port, HTTP a URL that prints
// and parses back to itself with an absolute path, and the resolver never
// panics.
func FuzzResolveEndpoint(f *testing.F) {
	for _, s := range []string{
		"http://c:4318", "https://u:p@c/base?x=1", "c:4317", "[::1]:4317", "http://c:4318/#f",
		"HTTP://C:4318/a%2Fb?x", "collector", "http://:4318", "https://c:0", "http://c:4318?",
	} {
		f.Add(s, false, false)
		f.Add(s, true, true)
	}
	f.Fuzz(func(t *testing.T, endpoint string, grpc, signal bool) {
		o := DefaultSettings()
		if grpc {
			o.Protocol = ProtocolGRPC
		}
		if signal {
			o.TracesEndpoint = endpoint
		} else {
			o.Endpoint = endpoint
		}
		exp, err := Resolve(o, both)
		if err != nil || exp.Traces == nil {
			return
		}
		e := exp.Traces
		if e.URL.User != nil || e.URL.Fragment != "" {
			t.Errorf("%q: URL %v keeps user info or a fragment", endpoint, e.URL)
		}
		if grpc {
			if _, _, err := net.SplitHostPort(e.HostPort()); err != nil {
				t.Errorf("%q: gRPC host:port %q: %v", endpoint, e.HostPort(), err)
			}
			return
		}
		back, err := url.Parse(e.URL.String())
		if err != nil || back.String() != e.URL.String() || !strings.HasPrefix(back.Path, "/") {
			t.Errorf("%q: URL %q does not parse back (%v, %v)", endpoint, e.URL, back, err)
		}
	})
}

// There is no default address: with no endpoint nothing is exported, and
// a signal with an endpoint of its own is exported alone. The defaults are
// the ones the resolved endpoint gets.
func TestNoEndpointExportsNothing(t *testing.T) {
	exp, err := Resolve(DefaultSettings(), both)
	if err != nil || exp.Traces != nil || exp.Metrics != nil {
		t.Fatalf("defaults resolve to %+v, %v; want nothing exported", exp, err)
	}
	s := DefaultSettings()
	s.TracesEndpoint = "http://c:4318/v1/traces"
	exp, err = Resolve(s, both)
	if err != nil || exp.Traces == nil || exp.Metrics != nil {
		t.Fatalf("traces endpoint only: %+v, %v", exp, err)
	}
	if e := exp.Traces; e.Protocol != DefaultProtocol || e.Timeout != DefaultTimeout || e.Gzip || e.URL.String() != "http://c:4318/v1/traces" {
		t.Errorf("traces endpoint %+v", e)
	}
	s.MetricsEndpoint = "http://c:4318/v1/metrics"
	exp, err = Resolve(s, Signals{Metrics: true})
	if err != nil || exp.Traces != nil || exp.Metrics == nil || exp.Metrics.Temporality != DefaultTemporality || exp.Metrics.Histogram != DefaultHistogram {
		t.Errorf("metrics only: %+v, %v", exp, err)
	}
}

// Settings that leave a general value empty are refused: the defaults are
// in DefaultSettings, nowhere else.
func TestCheckWantsTheGeneralSettings(t *testing.T) {
	for name, edit := range map[string]func(*Settings){
		"protocol":                              func(s *Settings) { s.Protocol = "" },
		"compression":                           func(s *Settings) { s.Compression = "" },
		"timeout":                               func(s *Settings) { s.Timeout = 0 },
		"metrics_temporality_preference":        func(s *Settings) { s.MetricsTemporalityPreference = "" },
		"metrics_default_histogram_aggregation": func(s *Settings) { s.MetricsDefaultHistogramAggregation = "" },
	} {
		s := DefaultSettings()
		edit(&s)
		var se *SettingError
		if err := s.Check(); !errors.As(err, &se) || se.Key != name || !errors.Is(err, ErrSetting) {
			t.Errorf("%s left empty: %v", name, err)
		}
	}
	if err := DefaultSettings().Check(); err != nil {
		t.Errorf("the defaults are refused: %v", err)
	}
}
