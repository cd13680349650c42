package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// collectorConfig receives OTLP on two loopback ports and forwards traces to
// Jaeger's OTLP gRPC receiver. Metrics (jobtrace exports its counters) are
// accepted and only logged: Jaeger takes none, and a collector without a
// metrics pipeline answers jobtrace's metric export with Unimplemented. The exporter's retries are short so a span that
// reached the collector is either in Jaeger or logged as dropped within
// seconds. Self-telemetry is off: it would take the fixed port 8888.
const collectorConfig = `
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: %[1]s
      http:
        endpoint: %[2]s

exporters:
  otlp_grpc:
    endpoint: %[3]s
    tls:
      insecure: true
    retry_on_failure:
      initial_interval: 100ms
      max_interval: 1s
      max_elapsed_time: 10s
  debug:
    verbosity: basic

service:
  telemetry:
    metrics:
      level: none
    logs:
      level: info
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [otlp_grpc, debug]
    metrics:
      receivers: [otlp]
      exporters: [debug]
`

// Collector is an OpenTelemetry Collector (built from e2e/otelcol) between
// the code under test and Jaeger. Stop and Start simulate an outage; the
// ports stay the same across a restart.
type Collector struct {
	GRPC string // host:port of the OTLP gRPC receiver
	HTTP string // host:port of the OTLP HTTP receiver

	proc *process
}

// StartCollector starts a collector that exports to the OTLP gRPC endpoint
// jaegerOTLP and stops it when the test ends.
func StartCollector(t *testing.T, jaegerOTLP string) *Collector {
	t.Helper()
	ports := freePorts(t, 2)
	c := &Collector{GRPC: ports[0], HTTP: ports[1]}
	cfg := filepath.Join(t.TempDir(), "otelcol.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, collectorConfig, c.GRPC, c.HTTP, jaegerOTLP), 0o644); err != nil {
		t.Fatal(err)
	}
	c.proc = newProcess(t, "otelcol", binaries.otelcol, "--config", "file:"+cfg)
	c.Start(t)
	return c
}

// Start (re)starts the collector and waits until both receivers accept
// connections.
func (c *Collector) Start(t *testing.T) {
	t.Helper()
	if err := c.proc.start(); err != nil {
		t.Fatal(err)
	}
	err := c.proc.waitUntil(30*time.Second, "accepting OTLP", func() error {
		if err := dialable(c.GRPC); err != nil {
			return err
		}
		return dialable(c.HTTP)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Stop shuts the collector down gracefully (it forwards what it holds) and
// checks that its ports refuse connections afterwards.
func (c *Collector) Stop(t *testing.T) {
	t.Helper()
	if err := c.proc.stop(15 * time.Second); err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{c.GRPC, c.HTTP} {
		if dialable(addr) == nil {
			t.Fatalf("collector stopped but %s still accepts connections", addr)
		}
	}
}

// GRPCEndpoint and HTTPEndpoint are values for OTEL_EXPORTER_OTLP_ENDPOINT.
func (c *Collector) GRPCEndpoint() string { return "http://" + c.GRPC }
func (c *Collector) HTTPEndpoint() string { return "http://" + c.HTTP }
