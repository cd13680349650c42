package e2e

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// rootConfig is the repository's otel-collector.yaml.
var rootConfig = filepath.Join("..", "otel-collector.yaml")

// The collector built from the same components validates the repository's
// configuration.
func TestRootCollectorConfigValidates(t *testing.T) {
	out, err := exec.Command(binaries.otelcol, "validate", "--config", "file:"+rootConfig).CombinedOutput()
	if err != nil {
		t.Fatalf("otelcol validate %s: %v\n%s", rootConfig, err, out)
	}
}

// jobtrace through the repository's collector configuration: the trace
// reaches Jaeger, and the metrics are served for Prometheus with the
// resource as labels.
func TestRootCollectorConfigEndToEnd(t *testing.T) {
	requireJobtrace(t)
	jaeger := StartJaeger(t)
	ports := freePorts(t, 3)
	grpcAddr, httpAddr, promAddr := ports[0], ports[1], ports[2]
	abs, err := filepath.Abs(rootConfig)
	if err != nil {
		t.Fatal(err)
	}
	col := newProcess(t, "otelcol-root", binaries.otelcol, "--config", "file:"+abs)
	col.env = []string{
		"OTLP_GRPC_LISTEN=" + grpcAddr, "OTLP_HTTP_LISTEN=" + httpAddr,
		"PROMETHEUS_LISTEN=" + promAddr, "TRACES_OTLP_ENDPOINT=" + jaeger.OTLPGRPC,
	}
	if err := col.start(); err != nil {
		t.Fatal(err)
	}
	if err := col.waitUntil(30*time.Second, "accepting OTLP", func() error { return dialable(httpAddr) }); err != nil {
		t.Fatal(err)
	}

	out := filepath.Join(t.TempDir(), "out")
	res := runJobtrace(t, append(jobEnv("http://"+httpAddr, "http/protobuf"), "OTEL_SERVICE_NAME=root-config"),
		"run", "--out", out, "--name", "rootcfg", "--interval", "200ms", "--export-timeout", "10s", "--",
		"sh", "-c", `echo "BEGIN_PHASE work"; sleep 0.5; echo "END_PHASE work"`)
	if res.ExitCode != 0 {
		t.Fatalf("jobtrace run exited %d\nstderr:\n%s", res.ExitCode, res.Stderr)
	}
	fileSpans, traceID := jobSpans(t, out, "rootcfg")
	spans := jaeger.WaitForSpans(t, traceID, len(fileSpans), 30*time.Second)
	checkExactlyOnce(t, spans, fileSpans, nil)

	// The batch processor holds metrics for up to 2 s.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var scrape string
	err = poll(ctx, 500*time.Millisecond, func() error {
		resp, err := http.Get("http://" + promAddr + "/metrics")
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		scrape = string(b)
		if !strings.Contains(scrape, "jobtrace_phase_duration") {
			return fmt.Errorf("no per-phase metrics yet")
		}
		return nil
	})
	if err != nil {
		t.Fatalf("scrape of %s: %v\n%s", promAddr, err, scrape)
	}
	for _, want := range []string{`service_name="root-config"`, `jobtrace_phase_name="work"`, "system_cpu_time"} {
		if !strings.Contains(scrape, want) {
			t.Errorf("the scrape has no %s", want)
		}
	}
	// Every series the compose stack's Grafana dashboard queries is there.
	dash, err := os.ReadFile(filepath.Join("..", "examples", "compose", "grafana", "dashboards", "jobtrace.json"))
	if err != nil {
		t.Fatal(err)
	}
	// In its PromQL a metric name is followed by its label matchers.
	found := regexp.MustCompile(`\b((?:jobtrace|system|process)_[a-z_]+)\{`).FindAllStringSubmatch(string(dash), -1)
	if len(found) == 0 {
		t.Error("no metric names found in the dashboard")
	}
	for _, m := range found {
		n := m[1]
		if !regexp.MustCompile(`(?m)^` + n + `[{ ]`).MatchString(scrape) {
			t.Errorf("the dashboard queries %s, which the scrape does not have", n)
		}
	}
	if t.Failed() {
		os.WriteFile(filepath.Join(t.TempDir(), "scrape.txt"), []byte(scrape), 0o644)
		t.Logf("scrape:\n%.3000s", scrape)
	}
}
