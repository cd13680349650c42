package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// fileCollectorConfig receives OTLP on two loopback ports and writes what it
// receives with the file exporter, one OTLP/JSON line per export: traces to
// one file, metrics to another. Nothing is forwarded, so a test reads exactly
// what the collector was given. flush_interval is short so a test polling the
// files sees an export soon after it arrived; a graceful stop flushes the
// rest. Self-telemetry is off: it would take the fixed port 8888.
const fileCollectorConfig = `
receivers:
  otlp:
    protocols:
      grpc:
        endpoint: %[1]s%[5]s
      http:
        endpoint: %[2]s%[5]s

exporters:
  file/traces:
    path: %[3]s
    flush_interval: 100ms
  file/metrics:
    path: %[4]s
    flush_interval: 100ms

service:
  telemetry:
    metrics:
      level: none
    logs:
      level: info
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file/traces]
    metrics:
      receivers: [otlp]
      exporters: [file/metrics]
`

// FileCollector is an OpenTelemetry Collector (built from e2e/otelcol) that
// writes the traces and metrics it receives to files as OTLP JSON lines.
type FileCollector struct {
	GRPC string // host:port of the OTLP gRPC receiver
	HTTP string // host:port of the OTLP HTTP receiver

	TracesFile  string // one TracesData per line
	MetricsFile string // one MetricsData per line

	proc *process
}

// StartFileCollector starts a collector that writes what it receives to
// files in a directory of the test, and stops it when the test ends.
func StartFileCollector(t *testing.T) *FileCollector {
	t.Helper()
	return startFileCollector(t, nil)
}

// ServerTLS is the TLS of a collector's receivers: its certificate and key
// files and, for mutual TLS, the CA file that client certificates must be
// signed by (the collector then requires one).
type ServerTLS struct {
	CertFile, KeyFile string
	ClientCAFile      string
}

// yaml is the tls block of a receiver protocol, indented to follow its
// endpoint line.
func (s *ServerTLS) yaml() string {
	if s == nil {
		return ""
	}
	y := fmt.Sprintf("\n        tls:\n          cert_file: %s\n          key_file: %s", s.CertFile, s.KeyFile)
	if s.ClientCAFile != "" {
		y += "\n          client_ca_file: " + s.ClientCAFile
	}
	return y
}

// StartFileCollectorTLS is StartFileCollector with both receivers serving
// TLS as tls says.
func StartFileCollectorTLS(t *testing.T, tls ServerTLS) *FileCollector {
	t.Helper()
	return startFileCollector(t, &tls)
}

func startFileCollector(t *testing.T, tls *ServerTLS) *FileCollector {
	t.Helper()
	ports := freePorts(t, 2)
	dir := t.TempDir()
	c := &FileCollector{
		GRPC:        ports[0],
		HTTP:        ports[1],
		TracesFile:  filepath.Join(dir, "traces.jsonl"),
		MetricsFile: filepath.Join(dir, "metrics.jsonl"),
	}
	cfg := filepath.Join(dir, "otelcol.yaml")
	if err := os.WriteFile(cfg, fmt.Appendf(nil, fileCollectorConfig, c.GRPC, c.HTTP, c.TracesFile, c.MetricsFile, tls.yaml()), 0o644); err != nil {
		t.Fatal(err)
	}
	c.proc = newProcess(t, "otelcol", binaries.otelcol, "--config", "file:"+cfg)
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
	return c
}

// Stop shuts the collector down gracefully: the file exporters write what
// they still buffer before it exits.
func (c *FileCollector) Stop(t *testing.T) {
	t.Helper()
	if err := c.proc.stop(15 * time.Second); err != nil {
		t.Fatal(err)
	}
}

// GRPCEndpoint and HTTPEndpoint are values for OTEL_EXPORTER_OTLP_ENDPOINT.
func (c *FileCollector) GRPCEndpoint() string { return "http://" + c.GRPC }
func (c *FileCollector) HTTPEndpoint() string { return "http://" + c.HTTP }

// Endpoint is the OTEL_EXPORTER_OTLP_ENDPOINT for protocol ("grpc" or
// "http/protobuf"), with scheme ("http" or "https").
func (c *FileCollector) Endpoint(scheme, protocol string) string {
	if protocol == "grpc" {
		return scheme + "://" + c.GRPC
	}
	return scheme + "://" + c.HTTP
}

// Spans reads the spans the collector has written so far.
func (c *FileCollector) Spans() ([]span, error) {
	spans, err := readSpansFile(c.TracesFile)
	if os.IsNotExist(err) {
		return nil, nil
	}
	return spans, err
}

// WaitForSpans waits until the collector has written at least n spans, or
// timeout, and returns what it has written.
func (c *FileCollector) WaitForSpans(t *testing.T, n int, timeout time.Duration) []span {
	t.Helper()
	var got []span
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	err := poll(ctx, 200*time.Millisecond, func() error {
		spans, err := c.Spans()
		if err != nil {
			return err // a line being written
		}
		got = spans
		if len(got) < n {
			return fmt.Errorf("%d of %d spans written", len(got), n)
		}
		return nil
	})
	if err != nil {
		t.Errorf("waiting for the collector: %v", err)
	}
	return got
}

// SettledSpans waits for at least n spans (for a minute at most), then a
// few flush intervals more so that a span written twice shows, and returns
// what the collector has written.
func (c *FileCollector) SettledSpans(t *testing.T, n int) []span {
	t.Helper()
	c.WaitForSpans(t, n, time.Minute)
	time.Sleep(500 * time.Millisecond)
	spans, err := c.Spans()
	if err != nil {
		t.Fatal(err)
	}
	return spans
}
