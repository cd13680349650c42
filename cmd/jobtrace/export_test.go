//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/internal/otlptest"
	"github.com/jobtrace/jobtrace/internal/timingtest"
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
// --export-timeout. Bounds are generous and checked in the timing suite;
// the measured values are logged and recorded in docs/performance.md by the
// benchmarks.
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
				if r.code != 5 {
					t.Errorf("exit %d, want the job's 5", r.code)
				}
				timingtest.Within(t, c.name+" "+proto+": the run", took, c.max)
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

// Replays started together on one directory never send a line twice: one
// holds the directory's lock (between processes), the others are refused.
func TestConcurrentReplaysOfOneDirectorySendEachSpanOnce(t *testing.T) {
	r := jt(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + otlptest.Refused(t)},
		"run", "--name", "job", "--", "sh", "-c", `for i in 1 2 3 4 5 6 7 8 9 10; do echo "BEGIN_PHASE p$i"; echo "END_PHASE p$i"; done`)
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	want := len(spanNames(t, r.out))
	c := &otlptest.Collector{}
	// The replay that gets the lock is held in its upload until the others
	// have ended.
	release := c.Hold()
	defer release()
	h := otlptest.StartHTTP(t, "", c)
	env := []string{"PATH=" + os.Getenv("PATH"), "OTEL_EXPORTER_OTLP_ENDPOINT=http://" + h.Addr, "OTEL_EXPORTER_OTLP_TIMEOUT=60000"}
	const n = 4
	type done struct {
		code   int
		stderr string
	}
	results := make(chan done, n)
	for range n {
		go func() {
			cmd := exec.Command(bin, "replay", r.out)
			cmd.Env = env
			var se bytes.Buffer
			cmd.Stderr = &se
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				code = -1
			}
			results <- done{code, se.String()}
		}()
	}
	for range n - 1 {
		select {
		case d := <-results:
			if d.code != 1 || !strings.Contains(d.stderr, "replay it when that has ended") {
				t.Errorf("a concurrent replay: exit %d, %q", d.code, d.stderr)
			}
		case <-time.After(60 * time.Second):
			t.Fatal("the concurrent replays did not end: the lock did not keep them out")
		}
	}
	release()
	d := <-results
	if d.code != 0 || !strings.Contains(d.stderr, fmt.Sprintf("sent %d spans", want)) {
		t.Errorf("the replay with the lock: exit %d, %q", d.code, d.stderr)
	}
	if total, unique := c.SpanCount(); total != want || unique != want {
		t.Errorf("collector got %d spans, %d distinct; the spool holds %d", total, unique, want)
	}
}

// A collector's HTTP 400 for one line does not stop the replay of the
// others; that line is kept in spans.otlp.jsonl.rejected and reported.
func TestReplaySetsRejectedLinesAside(t *testing.T) {
	// Each phase is in the spool before the next begins, so that "bad" is
	// alone on its line however late a loaded machine writes it.
	r := jt(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + otlptest.Refused(t)},
		"run", "--name", "job", "--", "sh", "-c", `spooled() {
	i=0; until grep -qs "\"name\":\"$1\"" jobtrace-out/spans.otlp.jsonl || [ $i -ge 1200 ]; do sleep 0.05; i=$((i+1)); done
}
echo BEGIN_PHASE a; echo END_PHASE a; spooled a
echo BEGIN_PHASE bad; echo END_PHASE bad; spooled bad
echo BEGIN_PHASE b; echo END_PHASE b`)
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	c := &otlptest.Collector{}
	c.RejectSpans("bad")
	h := otlptest.StartHTTP(t, "", c)
	env := []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + h.Addr}
	rep := jt(t, env, "replay", r.out)
	kept := filepath.Join(r.out, spool.TracesFile+spool.RejectedSuffix)
	if rep.code != 1 || !strings.Contains(rep.stderr, "1 spans rejected by the collector as invalid, not sent again: kept in "+kept) {
		t.Errorf("replay: exit %d, %q", rep.code, rep.stderr)
	}
	if got := sortedNames(c.SpanNames()); got != "a,b,job,jobtrace shutdown,jobtrace startup" {
		t.Errorf("collector got %q", got)
	}
	if names := spanNames(t, kept); len(names) != 1 || names[0] != "bad" {
		t.Errorf("%s holds %v", kept, names)
	}
	// The request holding it, then the line alone.
	refused := c.Rejected()
	again := jt(t, env, "replay", r.out)
	if again.code != 0 || !strings.Contains(again.stderr, "sent 0 spans") || c.Rejected() != refused {
		t.Errorf("second replay: exit %d, %q; %d rejections, then %d", again.code, again.stderr, refused, c.Rejected())
	}
}

// spanNames reads the names of the spans in a spool file, or in the spool
// of a directory.
func spanNames(t *testing.T, path string) []string {
	t.Helper()
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, spool.TracesFile)
	}
	var names []string
	err := spool.ReadLines(path, 0, func(td ptrace.Traces, _ int, _ int64) error {
		req := otlptest.Proto(t, td)
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, s := range ss.Spans {
					names = append(names, s.Name)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// Outside a run, a span the collector rejects is kept beside the spool in
// --out, not lost with the private spool.
func TestStandaloneKeepsRejectedSpans(t *testing.T) {
	c := &otlptest.Collector{}
	c.RejectSpans("bad")
	h := otlptest.StartHTTP(t, "", c)
	r := jt(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + h.Addr}, "exec", "bad", "--", "true")
	kept := filepath.Join(r.out, spool.TracesFile+spool.RejectedSuffix)
	if r.code != 0 || !strings.Contains(r.stderr, "1 spans rejected by the collector as invalid: kept in "+filepath.Join("jobtrace-out", spool.TracesFile+spool.RejectedSuffix)) {
		t.Errorf("exit %d, %q", r.code, r.stderr)
	}
	if names := spanNames(t, kept); len(names) != 1 || names[0] != "bad" {
		t.Errorf("%s holds %v", kept, names)
	}
}

// TestSignalAfterTheJobCutsTheExportShort: a signal that comes once the
// job has ended, while jobtrace waits for a collector that never answers,
// stops that wait long before the export timeout; jobtrace still exits
// with the job's code, says what is pending and how to send it, and leaves
// its artifacts whole.
func TestSignalAfterTheJobCutsTheExportShort(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			wd := t.TempDir()
			cmd := exec.Command(bin, "run", "--export-timeout", "3m", "--", "sh", "-c", "echo BEGIN_PHASE a; echo END_PHASE a; exit 3")
			cmd.Dir = wd
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + wd, "TMPDIR=" + os.TempDir(),
				"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + otlptest.Hanging(t)}
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = io.Discard, &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill() })
			out := filepath.Join(wd, "jobtrace-out")
			// The shutdown span is in the spool once the run's end has
			// begun: the job has ended, the export has not.
			timingtest.Eventually(t, "the run's end", func() bool {
				data, _ := os.ReadFile(filepath.Join(out, spool.TracesFile))
				return bytes.Contains(data, []byte(`"jobtrace shutdown"`))
			})
			sent := time.Now()
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			err := cmd.Wait()
			took := time.Since(sent)
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 3 {
				t.Errorf("jobtrace ended with %v, want the job's exit code 3; stderr:\n%s", err, stderr.String())
			}
			if took > 2*time.Minute {
				t.Errorf("jobtrace ended %v after the signal: the export was not cut short", took)
			}
			for _, want := range []string{"stopped by a signal (" + sig.String() + ")", "jobtrace replay", `job "sh" exited with code 3`} {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr does not say %q:\n%s", want, stderr.String())
				}
			}
			for _, not := range []string{"are retried", "metrics were not accepted"} {
				if strings.Contains(stderr.String(), not) {
					t.Errorf("stderr says %q, of an export the signal stopped:\n%s", not, stderr.String())
				}
			}
			entries, err := os.ReadDir(out)
			if err != nil {
				t.Fatal(err)
			}
			names := map[string]bool{}
			for _, e := range entries {
				names[e.Name()] = true
				if strings.Contains(e.Name(), ".tmp") {
					t.Errorf("a temporary file is left: %s", e.Name())
				}
			}
			for _, want := range []string{"report.html", "profile.json", "resource-usage.csv", spool.TracesFile} {
				if !names[want] {
					t.Errorf("%s is missing from %v", want, entries)
				}
			}
			spans, _ := spansOf(t, out)
			if spans["a"] == nil || spans["sh"] == nil {
				t.Errorf("the spool lacks the phase or the job span: %v", spans)
			}
		})
	}
}
