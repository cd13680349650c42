package otlp

import (
	"context"
	"crypto/tls"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/jobtrace/jobtrace/internal/otlptest"
	"github.com/jobtrace/jobtrace/internal/timingtest"
)

var (
	warnMu sync.Mutex
	warns  []string
)

func TestMain(m *testing.M) {
	RouteErrors(func(s string) {
		warnMu.Lock()
		warns = append(warns, s)
		warnMu.Unlock()
	})
	timingtest.VerifyTestMain(m)
}

func oneSpan(name string) ptrace.Traces {
	td := ptrace.NewTraces()
	s := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	s.SetName(name)
	s.SetTraceID(pcommon.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	s.SetSpanID(pcommon.SpanID{1, 2, 3, 4, 5, 6, 7, 8})
	return td
}

// resolve resolves o with both signals on, its zero general settings
// taken from DefaultSettings.
func resolve(t *testing.T, o Settings) Export {
	t.Helper()
	d := DefaultSettings()
	for _, f := range []struct {
		v *string
		d string
	}{
		{&o.Protocol, d.Protocol}, {&o.Compression, d.Compression},
		{&o.MetricsTemporalityPreference, d.MetricsTemporalityPreference},
		{&o.MetricsDefaultHistogramAggregation, d.MetricsDefaultHistogramAggregation},
	} {
		if *f.v == "" {
			*f.v = f.d
		}
	}
	if o.Timeout == 0 {
		o.Timeout = d.Timeout
	}
	exp, err := Resolve(o, both)
	if err != nil {
		t.Fatal(err)
	}
	return exp
}

func upload(t *testing.T, c TraceClient, name string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	defer func() {
		if err := c.Stop(ctx); err != nil {
			t.Errorf("Stop: %v", err)
		}
	}()
	return c.Upload(ctx, oneSpan(name))
}

// The environment points elsewhere and asks for other headers and gzip; the
// settings must win.
func setConflictingEnv(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://127.0.0.1:1/v1/traces")
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-env=1")
	t.Setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")
	t.Setenv("OTEL_EXPORTER_OTLP_CERTIFICATE", filepath.Join(t.TempDir(), "absent.pem"))
}

func TestTraceClientGRPC(t *testing.T) {
	setConflictingEnv(t)
	for _, gz := range []string{"", "gzip"} {
		srv := otlptest.StartGRPC(t, "", nil)
		c, err := NewTraceClient(resolve(t, Settings{Endpoint: "http://" + srv.Addr, General: General{
			Protocol:    "grpc",
			Headers:     map[string]string{"x-ours": "yes"},
			Compression: gz,
		}}).Traces)
		if err != nil {
			t.Fatal(err)
		}
		if err := upload(t, c, "grpc-"+gz); err != nil {
			t.Fatalf("upload: %v", err)
		}
		if got := srv.SpanNames(); len(got) != 1 || got[0] != "grpc-"+gz {
			t.Errorf("server got %v", got)
		}
		if srv.Header("x-ours") != "yes" || srv.Header("x-env") != "" {
			t.Errorf("headers: x-ours %q, x-env %q", srv.Header("x-ours"), srv.Header("x-env"))
		}
		wantEnc := "identity"
		if gz != "" {
			wantEnc = "gzip"
		}
		if srv.Encoding() != wantEnc {
			t.Errorf("compression %q: request encoding %q, want %q", gz, srv.Encoding(), wantEnc)
		}
	}
}

func TestTraceClientHTTP(t *testing.T) {
	setConflictingEnv(t)
	for _, gz := range []string{"none", "gzip"} {
		srv := otlptest.StartHTTP(t, "", nil)
		c, err := NewTraceClient(resolve(t, Settings{Endpoint: "http://" + srv.Addr, General: General{
			Headers:     map[string]string{"x-ours": "yes"},
			Compression: gz,
		}}).Traces)
		if err != nil {
			t.Fatal(err)
		}
		if err := upload(t, c, "http-"+gz); err != nil {
			t.Fatalf("upload: %v", err)
		}
		if got := srv.SpanNames(); len(got) != 1 || got[0] != "http-"+gz {
			t.Errorf("server got %v", got)
		}
		if srv.Header("x-ours") != "yes" || srv.Header("x-env") != "" {
			t.Errorf("headers: x-ours %q, x-env %q", srv.Header("x-ours"), srv.Header("x-env"))
		}
		wantEnc := ""
		if gz == "gzip" {
			wantEnc = "gzip"
		}
		if srv.Encoding() != wantEnc {
			t.Errorf("compression %q: request encoding %q", gz, srv.Encoding())
		}
	}
}

func TestTraceClientTLS(t *testing.T) {
	cert, pemBytes := otlptest.SelfSigned(t)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := otlptest.StartHTTPS(t, nil, &tls.Config{Certificates: []tls.Certificate{cert}})

	c, err := NewTraceClient(resolve(t, Settings{Endpoint: "https://" + srv.Addr, General: General{Certificate: caFile}}).Traces)
	if err != nil {
		t.Fatal(err)
	}
	if err := upload(t, c, "tls"); err != nil {
		t.Fatalf("upload with the CA: %v", err)
	}

	// Without the CA the collector is not trusted.
	c, err = NewTraceClient(resolve(t, Settings{Endpoint: "https://" + srv.Addr}).Traces)
	if err != nil {
		t.Fatal(err)
	}
	if err := upload(t, c, "untrusted"); err == nil {
		t.Error("upload to an untrusted collector succeeded")
	}
	if got := srv.SpanNames(); len(got) != 1 {
		t.Errorf("server got %v, want only the trusted upload", got)
	}
}

func TestMetricExporter(t *testing.T) {
	setConflictingEnv(t)
	c := &otlptest.Collector{}
	g := otlptest.StartGRPC(t, "", c)
	h := otlptest.StartHTTP(t, "", c)
	rm := &metricdata.ResourceMetrics{
		Resource: resource.Empty(),
		ScopeMetrics: []metricdata.ScopeMetrics{{Metrics: []metricdata.Metrics{{
			Name: "cicd.pipeline.run.duration",
			Unit: "s",
			Data: metricdata.Gauge[float64]{DataPoints: []metricdata.DataPoint[float64]{{Value: 1.5, Time: time.Now()}}},
		}}}},
	}
	for _, o := range []Settings{
		{MetricsEndpoint: "http://" + g.Addr, General: General{Protocol: "grpc"}},
		{Endpoint: "http://" + h.Addr},
	} {
		s := resolve(t, o).Metrics
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		exp, err := NewMetricExporter(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if err := exp.Export(ctx, rm); err != nil {
			t.Errorf("%+v: export: %v", s, err)
		}
		if err := exp.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		cancel()
	}
	if n := c.MetricRequests(); n != 2 {
		t.Errorf("metric requests = %d, want 2", n)
	}
}

func TestRouteErrors(t *testing.T) {
	warnMu.Lock()
	before := len(warns)
	warnMu.Unlock()
	otel.Handle(errors.New("boom"))
	warnMu.Lock()
	defer warnMu.Unlock()
	if len(warns) != before+1 || !strings.Contains(warns[before], "boom") {
		t.Errorf("warnings = %q", warns[before:])
	}
}
