package telemetry

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// TestPromReader serves a counter and checks what the endpoint answers:
// the series with the chosen resource attributes as labels, nothing but
// GET and HEAD, nothing but /metrics.
func TestPromReader(t *testing.T) {
	var warnings []string
	r, srv, err := newPromReader("127.0.0.1:0", func(s string) { warnings = append(warnings, s) })
	if err != nil {
		t.Fatal(err)
	}
	res := sdkresource.NewSchemaless(
		semconv.ServiceName("proj"), semconv.HostName("m1"),
		semconv.CICDWorkerName("runner-1"), semconv.CICDPipelineTaskRunID("99"),
	)
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithResource(res), sdkmetric.WithReader(r))
	c, err := mp.Meter("jobtrace").Float64Counter("system.cpu.time", metricUnit("s"))
	if err != nil {
		t.Fatal(err)
	}
	c.Add(context.Background(), 1.5, metricAttrs(attribute.String("cpu.mode", "user")))

	base := "http://" + srv.addr
	var contentType string
	get := func(method, path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		contentType = resp.Header.Get("Content-Type")
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get("GET", "/metrics")
	if code != 200 {
		t.Fatalf("GET /metrics: %d", code)
	}
	if ct := contentType; ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("Content-Type %q", ct)
	}
	want := `system_cpu_time_seconds_total{cicd_worker_name="runner-1",cpu_mode="user",host_name="m1",otel_scope_name="jobtrace",otel_scope_schema_url="",otel_scope_version="",service_name="proj"} 1.5`
	if !strings.Contains(body, want) {
		t.Errorf("no %s in\n%s", want, body)
	}
	if !strings.Contains(body, `target_info{`) || !strings.Contains(body, `cicd_pipeline_task_run_id="99"`) {
		t.Errorf("target_info with every resource attribute missing:\n%s", body)
	}
	if code, _ := get("POST", "/metrics"); code != http.StatusMethodNotAllowed {
		t.Errorf("POST /metrics: %d", code)
	}
	if code, _ := get("GET", "/"); code != http.StatusNotFound {
		t.Errorf("GET /: %d", code)
	}
	if srv.srv.ReadHeaderTimeout <= 0 {
		t.Error("no ReadHeaderTimeout")
	}
	c.Add(context.Background(), 2, metricAttrs(attribute.String("cpu.mode", "user")))
	if err := mp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Between the meter provider's shutdown (its last export) and the
	// endpoint's, a scrape sees the last values.
	code, body = get("GET", "/metrics")
	if last := strings.Replace(want, "} 1.5", "} 3.5", 1); code != 200 || !strings.Contains(body, last) {
		t.Errorf("GET /metrics after the meter provider's shutdown: %d, no %s in\n%s", code, last, body)
	}
	srv.stop()
	if _, err := http.Get(base + "/metrics"); err == nil {
		t.Error("still served after stop")
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %v", warnings)
	}
}

func metricUnit(u string) metric.Float64CounterOption { return metric.WithUnit(u) }

func metricAttrs(kv ...attribute.KeyValue) metric.AddOption { return metric.WithAttributes(kv...) }

// TestPromReaderBeforeItsProvider scrapes the endpoint in the moment it
// listens but its reader is not yet part of a meter provider: an empty
// scrape, not an error a scraper would count as the target being down.
func TestPromReaderBeforeItsProvider(t *testing.T) {
	var warnings []string
	_, srv, err := newPromReader("127.0.0.1:0", func(s string) { warnings = append(warnings, s) })
	if err != nil {
		t.Fatal(err)
	}
	defer srv.stop()
	resp, err := http.Get("http://" + srv.addr + PrometheusPath)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scrape before the meter provider: %s\n%s", resp.Status, body)
	}
	if strings.TrimSpace(string(body)) != "" {
		t.Errorf("scrape before the meter provider has metrics:\n%s", body)
	}
	if len(warnings) != 0 {
		t.Errorf("warnings: %q", warnings)
	}
}
