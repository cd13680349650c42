//go:build unix

package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/internal/otlptest"
)

func sortedNames(names []string) string {
	sort.Strings(names)
	return strings.Join(names, ",")
}

func TestExportsOverBothProtocols(t *testing.T) {
	for _, proto := range []string{"grpc", "http/protobuf"} {
		t.Run(proto, func(t *testing.T) {
			c := &otlptest.Collector{}
			var endpoint string
			if proto == "grpc" {
				endpoint = "http://" + otlptest.StartGRPC(t, "127.0.0.1:0", c).Addr
			} else {
				endpoint = "http://" + otlptest.StartHTTP(t, "127.0.0.1:0", c).Addr
			}
			r := jt(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL=" + proto,
				"OTEL_EXPORTER_OTLP_HEADERS=x-team=ci"},
				"run", "--name", "job", "--", "sh", "-c", "jobtrace phase begin p; jobtrace counter n; jobtrace phase end p")
			if r.code != 0 {
				t.Fatal(r.stderr)
			}
			if got := sortedNames(c.SpanNames()); got != "job,jobtrace shutdown,jobtrace startup,p" {
				t.Errorf("collector got %q", got)
			}
			if c.Header("x-team") != "ci" {
				t.Errorf("header not sent")
			}
			if c.MetricRequests() == 0 {
				t.Errorf("no metrics exported")
			}
			if !strings.Contains(r.stderr, "exported to") {
				t.Errorf("no export line: %q", r.stderr)
			}
			sent, err := spool.ReadSent(filepath.Join(r.out, spool.TracesFile))
			fi, _ := os.Stat(filepath.Join(r.out, spool.TracesFile))
			if err != nil || fi == nil || sent != fi.Size() {
				t.Errorf(".sent = %d (%v), spool size %v", sent, err, fi)
			}
		})
	}
}

func TestNotSampledParentExportsNothing(t *testing.T) {
	c := &otlptest.Collector{}
	g := otlptest.StartGRPC(t, "127.0.0.1:0", c)
	r := jt(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + g.Addr, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc",
		"TRACEPARENT=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"},
		"run", "--name", "job", "--", "true")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	if n := len(c.SpanNames()); n != 0 {
		t.Errorf("%d spans exported under a not-sampled parent", n)
	}
	spans, _ := spansOf(t, r.out)
	if spans["job"] == nil {
		t.Errorf("local artifacts lost")
	}
}

// TestDeadCollectorsDelayTheEndByAtMostTheTimeout checks the budget: a
// refused port adds little; a collector that never answers adds at most
// --export-timeout. Bounds are generous; the measured values are logged
// and recorded in docs/performance.md by the benchmarks.
func TestDeadCollectorsDelayTheEndByAtMostTheTimeout(t *testing.T) {
	cases := []struct {
		name, endpoint string
		max            time.Duration
	}{
		{"refused", "http://" + otlptest.Refused(t), 2 * time.Second},
		{"hanging", "http://" + otlptest.Hanging(t), 1500*time.Millisecond + 2*time.Second},
	}
	for _, c := range cases {
		for _, proto := range []string{"grpc", "http/protobuf"} {
			t.Run(c.name+"/"+proto, func(t *testing.T) {
				start := time.Now()
				r := jt(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + c.endpoint, "OTEL_EXPORTER_OTLP_PROTOCOL=" + proto},
					"run", "--export-timeout", "1500ms", "--", "sh", "-c", "exit 5")
				took := time.Since(start)
				t.Logf("%s %s: %v", c.name, proto, took)
				if r.code != 5 {
					t.Errorf("exit %d, want the job's 5", r.code)
				}
				if took > c.max {
					t.Errorf("took %v, more than %v", took, c.max)
				}
				if !strings.Contains(r.stderr, "jobtrace replay") {
					t.Errorf("no replay hint: %q", r.stderr)
				}
				if strings.Contains(r.stdout, "rpc error") || strings.Contains(r.stdout, "connection refused") {
					t.Errorf("SDK errors reached stdout: %q", r.stdout)
				}
			})
		}
	}
}

func TestReplayDeliversWhatWasPendingOnce(t *testing.T) {
	r := jt(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + otlptest.Refused(t)},
		"run", "--name", "job", "--", "sh", "-c", "echo BEGIN_PHASE a; echo END_PHASE a")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	c := &otlptest.Collector{}
	h := otlptest.StartHTTP(t, "127.0.0.1:0", c)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + h.Addr}
	rep := jt(t, env, "replay", r.out)
	if rep.code != 0 || !strings.Contains(rep.stderr, "sent 4 spans") {
		t.Fatalf("replay: code %d, %q", rep.code, rep.stderr)
	}
	if got := sortedNames(c.SpanNames()); got != "a,job,jobtrace shutdown,jobtrace startup" {
		t.Errorf("collector got %q", got)
	}
	again := jt(t, env, "replay", r.out)
	if again.code != 0 || !strings.Contains(again.stderr, "sent 0 spans") || len(c.SpanNames()) != 4 {
		t.Errorf("second replay: code %d %q; collector has %d spans", again.code, again.stderr, len(c.SpanNames()))
	}
	all := jt(t, env, "replay", "--all", r.out)
	if all.code != 0 || len(c.SpanNames()) != 8 {
		t.Errorf("replay --all: code %d; collector has %d spans", all.code, len(c.SpanNames()))
	}
	h.Stop()
	down := jt(t, env, "replay", "--all", r.out)
	if down.code != 1 {
		t.Errorf("replay to a dead collector: exit %d, want 1 (%q)", down.code, down.stderr)
	}
	none := jt(t, nil, "replay", r.out)
	if none.code != 2 || !strings.Contains(none.stderr, "no collector configured") {
		t.Errorf("replay without endpoint: %d %q", none.code, none.stderr)
	}
}

func TestSignalExporterNoneTurnsASignalOff(t *testing.T) {
	c := &otlptest.Collector{}
	h := otlptest.StartHTTP(t, "127.0.0.1:0", c)
	r := jt(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + h.Addr, "OTEL_METRICS_EXPORTER=none"},
		"run", "--", "sh", "-c", "jobtrace counter n")
	if r.code != 0 || len(c.SpanNames()) == 0 || c.MetricRequests() != 0 {
		t.Errorf("code %d, %d spans, %d metric requests; want spans and no metrics", r.code, len(c.SpanNames()), c.MetricRequests())
	}
	r = jt(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + h.Addr, "OTEL_TRACES_EXPORTER=none"}, "run", "--", "true")
	if n := len(c.SpanNames()); r.code != 0 || n != 3 {
		t.Errorf("OTEL_TRACES_EXPORTER=none: %d spans at the collector, want the 3 from before", n)
	}
}
