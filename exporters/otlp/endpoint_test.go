package otlp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
)

// recorder is a real HTTP server that records the path, query and
// authorization of each request and answers 200 with an empty body.
type recorder struct {
	mu   sync.Mutex
	reqs []string // "POST /path?query auth"
	srv  *httptest.Server
}

func newRecorder(t *testing.T) *recorder {
	r := &recorder{}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.reqs = append(r.reqs, req.Method+" "+req.URL.RequestURI()+" "+req.Header.Get("Authorization"))
		r.mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *recorder) requests() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.reqs...)
}

func exportMetrics(t *testing.T, e *Endpoint) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	exp, err := NewMetricExporter(ctx, e)
	if err != nil {
		t.Fatal(err)
	}
	defer exp.Shutdown(ctx)
	return exp.Export(ctx, &metricdata.ResourceMetrics{
		Resource: resource.Empty(),
		ScopeMetrics: []metricdata.ScopeMetrics{{Metrics: []metricdata.Metrics{{
			Name: "m", Data: metricdata.Gauge[int64]{DataPoints: []metricdata.DataPoint[int64]{{Value: 1, Time: time.Now()}}},
		}}}},
	})
}

// The OTLP exporter specification's paths, with the query kept: the
// general endpoint gets /v1/traces or /v1/metrics appended to its path,
// a signal's endpoint is used as it is ("/" when it has no path).
func TestHTTPPathAndQuery(t *testing.T) {
	r := newRecorder(t)
	base := r.srv.URL
	for _, tc := range []struct {
		o           Settings
		traces, mts string
	}{
		{Settings{Endpoint: base + "/base?x=1"}, "/base/v1/traces?x=1", "/base/v1/metrics?x=1"},
		{Settings{Endpoint: base + "/base/?x=1&y=a%2Fb"}, "/base/v1/traces?x=1&y=a%2Fb", "/base/v1/metrics?x=1&y=a%2Fb"},
		{Settings{Endpoint: base}, "/v1/traces", "/v1/metrics"},
		{Settings{Endpoint: base + "?k=v"}, "/v1/traces?k=v", "/v1/metrics?k=v"},
		{Settings{TracesEndpoint: base + "/custom/t?x=1", MetricsEndpoint: base + "?m=2"}, "/custom/t?x=1", "/?m=2"},
		{Settings{TracesEndpoint: base + "/a%2Fb/t"}, "/a%2Fb/t", ""},
	} {
		before := len(r.requests())
		exp := resolve(t, tc.o)
		c, err := NewTraceClient(exp.Traces)
		if err != nil {
			t.Fatal(err)
		}
		if err := upload(t, c, "q"); err != nil {
			t.Errorf("%+v: traces: %v", tc.o, err)
		}
		if tc.mts != "" {
			if err := exportMetrics(t, exp.Metrics); err != nil {
				t.Errorf("%+v: metrics: %v", tc.o, err)
			}
		}
		got := r.requests()[before:]
		want := []string{"POST " + tc.traces + " "}
		if tc.mts != "" {
			want = append(want, "POST "+tc.mts+" ")
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%+v:\n got %q\nwant %q", tc.o, got, want)
		}
	}
}

// User info in the endpoint URL is sent as Basic authorization, never in
// the URL; a configured Authorization header wins.
func TestHTTPUserInfo(t *testing.T) {
	r := newRecorder(t)
	withUser := strings.Replace(r.srv.URL, "http://", "http://user:p%40ss@", 1)
	c, err := NewTraceClient(resolve(t, Settings{Endpoint: withUser}).Traces)
	if err != nil {
		t.Fatal(err)
	}
	if err := upload(t, c, "u"); err != nil {
		t.Fatal(err)
	}
	c, err = NewTraceClient(resolve(t, Settings{Endpoint: withUser, General: General{
		Headers: map[string]string{"authorization": "Bearer tok"}}}).Traces)
	if err != nil {
		t.Fatal(err)
	}
	if err := upload(t, c, "u"); err != nil {
		t.Fatal(err)
	}
	want := []string{"POST /v1/traces Basic dXNlcjpwQHNz", "POST /v1/traces Bearer tok"} // user:p@ss
	if got := r.requests(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A redirect is an error, not followed: it would carry the headers to
// another address.
func TestHTTPNoRedirect(t *testing.T) {
	other := newRecorder(t)
	srv := httptest.NewServer(http.RedirectHandler(other.srv.URL+"/v1/traces", http.StatusTemporaryRedirect))
	t.Cleanup(srv.Close)
	c, err := NewTraceClient(resolve(t, Settings{Endpoint: srv.URL, General: General{
		Headers: map[string]string{"x-api-key": "k"}}}).Traces)
	if err != nil {
		t.Fatal(err)
	}
	if err := upload(t, c, "r"); err == nil {
		t.Error("a redirect was taken for a delivery")
	}
	if got := other.requests(); len(got) != 0 {
		t.Errorf("the redirect was followed: %q", got)
	}
}

// OpenTelemetry's OTLP exporters read OTEL_EXPORTER_OTLP_* when they are
// built, before any option overrides them: a certificate named there is
// read (a FIFO blocks, /dev/zero fills memory) and what cannot be used is
// reported. Built from an Endpoint, jobtrace's must not look at those
// variables, nor change them.
func TestClientsDoNotReadOTLPEnv(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"CERTIFICATE", "TRACES_CERTIFICATE", "METRICS_CERTIFICATE", "CLIENT_CERTIFICATE", "CLIENT_KEY"} {
		t.Setenv("OTEL_EXPORTER_OTLP_"+v, garbage)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://%zz")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "::not a url::")
	t.Setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "soon")
	warnMu.Lock()
	before := len(warns)
	warnMu.Unlock()
	r := newRecorder(t)
	for _, proto := range []string{ProtocolHTTPProtobuf, ProtocolGRPC} {
		exp := resolve(t, Settings{Endpoint: r.srv.URL, General: General{Protocol: proto}})
		c, err := NewTraceClient(exp.Traces)
		if err != nil {
			t.Fatal(err)
		}
		if proto == ProtocolHTTPProtobuf {
			if err := upload(t, c, "env"); err != nil {
				t.Errorf("upload: %v", err)
			}
		}
		m, err := NewMetricExporter(context.Background(), exp.Metrics)
		if err != nil {
			t.Fatal(err)
		}
		m.Shutdown(context.Background())
	}
	warnMu.Lock()
	got := warns[before:]
	warnMu.Unlock()
	if len(got) > 0 {
		t.Errorf("the clients read the environment: %q", got)
	}
	if os.Getenv("OTEL_EXPORTER_OTLP_CERTIFICATE") != garbage || os.Getenv("OTEL_EXPORTER_OTLP_TIMEOUT") != "soon" {
		t.Error("the environment was not put back")
	}
}

// The metric exporter's temporality and histogram aggregation are what
// Resolve gave it: the OTEL_EXPORTER_OTLP_METRICS_* variables that
// OpenTelemetry's exporter would read itself change nothing, whether the
// settings leave them at their defaults or set them otherwise.
func TestMetricExporterTakesOnlyTheResolvedTemporality(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "delta")
	t.Setenv("OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION", "base2_exponential_bucket_histogram")
	r := newRecorder(t)
	for _, tc := range []struct {
		temporality, histogram string
		counter                metricdata.Temporality
		upDown                 metricdata.Temporality
		exponential            bool
	}{
		{TemporalityCumulative, HistogramExplicit, metricdata.CumulativeTemporality, metricdata.CumulativeTemporality, false},
		{TemporalityDelta, HistogramExponential, metricdata.DeltaTemporality, metricdata.CumulativeTemporality, true},
		{TemporalityLowMemory, HistogramExplicit, metricdata.DeltaTemporality, metricdata.CumulativeTemporality, false},
	} {
		if tc.temporality == TemporalityCumulative {
			t.Setenv("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "delta")
		} else {
			t.Setenv("OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE", "cumulative")
		}
		for _, proto := range []string{ProtocolHTTPProtobuf, ProtocolGRPC} {
			exp := resolve(t, Settings{Endpoint: r.srv.URL, General: General{Protocol: proto},
				MetricsTemporalityPreference: tc.temporality, MetricsDefaultHistogramAggregation: tc.histogram})
			m, err := NewMetricExporter(context.Background(), exp.Metrics)
			if err != nil {
				t.Fatal(err)
			}
			got := []metricdata.Temporality{m.Temporality(sdkmetric.InstrumentKindCounter), m.Temporality(sdkmetric.InstrumentKindUpDownCounter)}
			if got[0] != tc.counter || got[1] != tc.upDown {
				t.Errorf("%s %s: counter %v, up-down counter %v; want %v, %v", proto, tc.temporality, got[0], got[1], tc.counter, tc.upDown)
			}
			_, exponential := m.Aggregation(sdkmetric.InstrumentKindHistogram).(sdkmetric.AggregationBase2ExponentialHistogram)
			if exponential != tc.exponential {
				t.Errorf("%s %s: histogram %T", proto, tc.histogram, m.Aggregation(sdkmetric.InstrumentKindHistogram))
			}
			m.Shutdown(context.Background())
		}
	}
}
