package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// jaegerConfig is a Jaeger v2 configuration (the collector's format; see
// cmd/jaeger/internal/all-in-one.yaml in Jaeger's repository) with in-memory
// storage, OTLP receivers and the query service, every listener on a loopback
// port of our choice. Jaeger's own telemetry is off: its default Prometheus
// endpoint would take a fixed port.
const jaegerConfig = `
service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: info

extensions:
  jaeger_storage:
    backends:
      memstore:
        memory:
          max_traces: 10000
  jaeger_query:
    storage:
      traces: memstore
    enable_tracing: false
    http:
      endpoint: %[3]s
    grpc:
      endpoint: %[4]s

receivers:
  otlp:
    protocols:
      grpc:
        endpoint: %[1]s
      http:
        endpoint: %[2]s

exporters:
  jaeger_storage_exporter:
    trace_storage: memstore
`

// Jaeger is a running Jaeger v2 (all-in-one binary, memory storage).
type Jaeger struct {
	OTLPGRPC string // host:port of the OTLP gRPC receiver
	OTLPHTTP string // host:port of the OTLP HTTP receiver
	Query    string // host:port of the query service's HTTP API and UI

	proc *process
}

// StartJaeger starts Jaeger, waits until its receivers and query API answer,
// and stops it when the test ends.
func StartJaeger(t *testing.T) *Jaeger {
	t.Helper()
	ports := freePorts(t, 4)
	j := &Jaeger{OTLPGRPC: ports[0], OTLPHTTP: ports[1], Query: ports[2]}
	queryGRPC := ports[3]
	cfg := filepath.Join(t.TempDir(), "jaeger.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, jaegerConfig, j.OTLPGRPC, j.OTLPHTTP, j.Query, queryGRPC), 0o644); err != nil {
		t.Fatal(err)
	}
	j.proc = newProcess(t, "jaeger", binaries.jaeger, "--config", "file:"+cfg)
	if err := j.proc.start(); err != nil {
		t.Fatal(err)
	}
	err := j.proc.waitUntil(60*time.Second, "ready", func() error {
		for _, addr := range []string{j.OTLPGRPC, j.OTLPHTTP} {
			if err := dialable(addr); err != nil {
				return err
			}
		}
		resp, err := queryClient.Get("http://" + j.Query + "/api/v3/services")
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("query API: %s", resp.Status)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return j
}

var errTraceNotFound = errors.New("trace not found")

var queryClient = &http.Client{Timeout: 10 * time.Second}

// get GETs url from Jaeger's query service and returns the status and
// the body.
func (j *Jaeger) get(ctx context.Context, url string) (status int, body []byte, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, nil, err
	}
	resp, err := queryClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, err
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusNotFound {
		return resp.StatusCode, nil, fmt.Errorf("GET %s: %s: %s", url, resp.Status, body)
	}
	return resp.StatusCode, body, nil
}

// Trace fetches one trace from the api_v3 HTTP gateway
// (GET /api/v3/traces/{id}), which answers in OTLP/JSON. raw_traces=true
// turns off the query service's adjusters, one of which folds identical
// duplicate spans into one: the tests want to see duplicates.
func (j *Jaeger) Trace(ctx context.Context, traceID string) ([]span, error) {
	url := "http://" + j.Query + "/api/v3/traces/" + traceID + "?raw_traces=true"
	status, body, err := j.get(ctx, url)
	if err != nil {
		return nil, err
	}
	if status == http.StatusNotFound {
		return nil, errTraceNotFound
	}
	var wrapper struct {
		Result tracesData `json:"result"`
	}
	if err := json.Unmarshal(body, &wrapper); err != nil {
		return nil, fmt.Errorf("GET %s: decoding: %w", url, err)
	}
	return wrapper.Result.spans()
}

// WaitForSpans polls Jaeger until the trace has at least n spans and returns
// them; it fails the test after timeout.
func (j *Jaeger) WaitForSpans(t *testing.T, traceID string, n int, timeout time.Duration) []span {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	var spans []span
	err := poll(ctx, 200*time.Millisecond, func() error {
		var err error
		spans, err = j.Trace(ctx, traceID)
		if err != nil {
			return err
		}
		if len(spans) < n {
			return fmt.Errorf("trace %s has %d spans, want %d", traceID, len(spans), n)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("waiting for %d spans of trace %s in Jaeger: %v\nspans so far:\n%s",
			n, traceID, err, renderTree(spans, func(span) bool { return true }))
	}
	return spans
}
