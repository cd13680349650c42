//go:build unix

package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/internal/otlptest"
)

// freePort returns a local address that nothing listens on.
func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// scrapeUntil scrapes url every 100 ms until a scrape is done(), or ended
// is closed, and sends the last scrape (or what went wrong) on the channel
// it returns. Once it has a scrape that is done, or has given up, it
// creates the file flag: the job waits for it (waitForFlag) rather than
// for a time that a loaded machine may overrun.
func scrapeUntil(url, flag string, ended <-chan struct{}, done func(string) bool) <-chan string {
	scraped := make(chan string, 1)
	go func() {
		client := &http.Client{Timeout: 10 * time.Second}
		last := ""
		defer func() {
			os.WriteFile(flag, nil, 0o600)
			scraped <- last
		}()
		for {
			select {
			case <-ended:
				return
			case <-time.After(100 * time.Millisecond):
			}
			resp, err := client.Get(url)
			if err != nil {
				continue // not listening yet
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				last = fmt.Sprintf("GET %s: %s\n%s", url, resp.Status, body)
				return
			}
			if last = string(body); done(last) {
				return
			}
		}
	}()
	return scraped
}

// waitForFlag is a job's script that waits for the file $1, at most a
// minute.
const waitForFlag = `i=0; until [ -e "$1" ] || [ $i -ge 1200 ]; do sleep 0.05; i=$((i+1)); done`

// TestPrometheusEndpoint scrapes a running job: resource usage while it
// runs, a phase's histogram once the phase has ended, the resource labels
// on every series, and promtool's verdict on the whole scrape.
func TestPrometheusEndpoint(t *testing.T) {
	addr := freePort(t)
	env := []string{
		"OTEL_SERVICE_NAME=myproject",
		"GITLAB_CI=true",
		"CI_RUNNER_ID=42",
		"CI_RUNNER_DESCRIPTION=runner-7",
		"CI_PIPELINE_NAME=nightly",
		"CI_JOB_ID=123456",
	}
	flag := filepath.Join(t.TempDir(), "scraped")
	job := `echo "::group::compile"; sleep 0.3; echo "::endgroup::"; ` + waitForFlag

	url := "http://" + addr + "/metrics"
	ended := make(chan struct{})
	scraped := scrapeUntil(url, flag, ended, func(s string) bool {
		return strings.Contains(s, `jobtrace_phase_duration_seconds_bucket{`) && strings.Contains(s, "system_cpu_time_seconds_total{")
	})
	r := jt(t, env, "run", "--interval", "100ms", "--prometheus-listen", addr, "--", "sh", "-c", job, "sh", flag)
	close(ended)
	scrape := <-scraped
	if r.code != 0 {
		t.Fatalf("exit code %d\n%s", r.code, r.stderr)
	}
	if strings.HasPrefix(scrape, "GET ") {
		t.Fatal(scrape)
	}
	if scrape == "" {
		t.Fatalf("no scrape during the job had the phase's histogram and the CPU time\nstderr:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "http://"+addr+"/metrics") {
		t.Errorf("stderr does not say where the metrics are served:\n%s", r.stderr)
	}

	for _, want := range []string{
		"# TYPE system_cpu_time_seconds_total counter",
		"# TYPE jobtrace_phase_duration_seconds histogram",
		`jobtrace_phase_name="compile"`,
		`cicd_pipeline_task_run_result="success"`,
		"# TYPE jobtrace_phase_verdicts_total counter",
		`jobtrace_phase_verdict="`,
		"target_info{",
	} {
		if !strings.Contains(scrape, want) {
			t.Errorf("scrape has no %s", want)
		}
	}
	labels := []string{`service_name="myproject"`, `host_name="`, `cicd_worker_name="runner-7"`, `cicd_worker_id="42"`, `cicd_pipeline_name="nightly"`}
	series := 0
	for _, line := range strings.Split(scrape, "\n") {
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, "target_info") {
			continue
		}
		series++
		for _, l := range labels {
			if !strings.Contains(line, l) {
				t.Errorf("series without %s: %s", l, line)
			}
		}
		// A run id would make a new series per run: only target_info has it.
		if strings.Contains(line, "cicd_pipeline_task_run_id=") {
			t.Errorf("series with the run id as a label: %s", line)
		}
	}
	if series < 10 {
		t.Errorf("only %d series", series)
	}
	if t.Failed() {
		t.Logf("scrape:\n%s", scrape)
	}

	promtoolClean(t, scrape)
}

// promtoolClean has promtool check a scrape: no parse error (exit 1) and
// no lint finding (exit 3, such as a gauge ending in _count) either.
func promtoolClean(t *testing.T, scrape string) {
	t.Helper()
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool is not on PATH (Debian package prometheus): the scrape is not checked by it")
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = strings.NewReader(scrape)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil || strings.TrimSpace(out.String()) != "" {
		t.Fatalf("promtool check metrics: %v\n%s", err, out.String())
	}
}

// TestPrometheusAndOTLP: scraping and pushing at once, from one meter
// provider.
func TestPrometheusAndOTLP(t *testing.T) {
	c := &otlptest.Collector{}
	endpoint := "http://" + otlptest.StartHTTP(t, "127.0.0.1:0", c).Addr
	addr := freePort(t)
	flag := filepath.Join(t.TempDir(), "scraped")
	ended := make(chan struct{})
	scraped := scrapeUntil("http://"+addr+"/metrics", flag, ended, func(s string) bool {
		return strings.Contains(s, "system_cpu_time_seconds_total{")
	})
	r := jt(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint}, "run", "--interval", "100ms", "--prometheus-listen", addr, "--",
		"sh", "-c", waitForFlag, "sh", flag)
	close(ended)
	scrape := <-scraped
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	if !strings.Contains(scrape, "system_cpu_time_seconds_total{") {
		t.Errorf("no CPU time in the scrape:\n%s", scrape)
	}
	if c.MetricRequests() == 0 {
		t.Errorf("no metrics pushed over OTLP")
	}
}

// TestPrometheusBusyAddress: an address already in use costs the
// endpoint, with a warning, and the job runs and keeps its exit code.
func TestPrometheusBusyAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	for _, addr := range []string{ln.Addr().String(), "not an address"} {
		r := jt(t, nil, "run", "--prometheus-listen", addr, "--", "sh", "-c", "echo ran; exit 3")
		if r.code != 3 || r.stdout != "ran\n" {
			t.Errorf("%q: exit code %d, stdout %q; want 3 and the job's output\n%s", addr, r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stderr, "prometheus endpoint "+addr) || !strings.Contains(r.stderr, "not served") {
			t.Errorf("%q: no warning about the endpoint:\n%s", addr, r.stderr)
		}
	}
}

// TestPrometheusJobHistograms: once a job without phases has ended, and
// while its last export is under way (held by the collector), a scrape has
// the job's three histograms with its result, and promtool finds nothing
// to say about it.
func TestPrometheusJobHistograms(t *testing.T) {
	c := &otlptest.Collector{}
	endpoint := "http://" + otlptest.StartHTTP(t, "127.0.0.1:0", c).Addr
	release := c.Hold()
	t.Cleanup(release)
	addr := freePort(t)
	ended := make(chan struct{})
	scraped := scrapeUntil("http://"+addr+"/metrics", filepath.Join(t.TempDir(), "scraped"), ended, func(s string) bool {
		return strings.Contains(s, "jobtrace_job_duration_seconds_bucket{")
	})
	got := make(chan string, 1)
	go func() {
		s := <-scraped
		release()
		got <- s
	}()
	r := jt(t, []string{"OTEL_SERVICE_NAME=myproject", "OTEL_EXPORTER_OTLP_ENDPOINT=" + endpoint}, "run", "--interval", "100ms", "--prometheus-listen", addr, "--",
		"sh", "-c", "sleep 0.3; exit 3")
	close(ended)
	scrape := <-got
	if r.code != 3 {
		t.Fatalf("exit code %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{
		"# TYPE jobtrace_job_duration_seconds histogram",
		"# TYPE jobtrace_job_cpu_time_seconds histogram",
		"# TYPE jobtrace_job_memory_peak_bytes histogram",
		`jobtrace_job_duration_seconds_count{cicd_pipeline_task_run_result="failure",`,
		`jobtrace_job_duration_seconds_bucket{cicd_pipeline_task_run_result="failure",`,
	} {
		if !strings.Contains(scrape, want) {
			t.Errorf("scrape has no %s", want)
		}
	}
	for _, line := range strings.Split(scrape, "\n") {
		if strings.HasPrefix(line, "jobtrace_job_duration_seconds_count{") && !strings.HasSuffix(line, " 1") {
			t.Errorf("not one job: %s", line)
		}
		if strings.HasPrefix(line, "jobtrace_job_") && !strings.Contains(line, `service_name="myproject"`) {
			t.Errorf("no project: %s", line)
		}
	}
	if t.Failed() {
		t.Logf("scrape:\n%s", scrape)
	}
	promtoolClean(t, scrape)
}
