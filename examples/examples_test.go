// Package examples holds example jobs and CI configurations; its test keeps
// them well-formed.
package examples

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"gopkg.in/yaml.v3"

	"github.com/jobtrace/jobtrace/exporters/promtext"
	"github.com/jobtrace/jobtrace/exporters/usagemetrics"
	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/verdict"
)

// Every YAML file parses, and every CI example runs its job under
// `jobtrace run` and keeps the out directory.
func TestCIExamples(t *testing.T) {
	files := map[string]bool{
		"github-actions/build.yml": true,
		"gitlab-ci/.gitlab-ci.yml": true,
		"buildkite/pipeline.yml":   true,
		"taskcluster/task.yml":     true,
		"buildomat/build.sh":       false,
	}
	for path, isYAML := range files {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		if isYAML {
			var doc map[string]any
			if err := yaml.Unmarshal(data, &doc); err != nil {
				t.Errorf("%s: %v", path, err)
			} else if len(doc) == 0 {
				t.Errorf("%s: empty", path)
			}
		}
		flat := strings.Join(strings.Fields(strings.NewReplacer("- ", " ", "\n", " ").Replace(text)), " ")
		if !strings.Contains(flat, "jobtrace run") {
			t.Errorf("%s does not run its job under jobtrace run", path)
		}
		if !strings.Contains(text, "jobtrace-out") {
			t.Errorf("%s does not keep jobtrace-out", path)
		}
		if _, err := os.Stat(filepath.Join(filepath.Dir(path), "README.md")); err != nil {
			t.Errorf("%s has no README: %v", path, err)
		}
	}
}

// The Buildomat job's header is the TOML Buildomat reads between "#:" lines.
func TestBuildomatHeader(t *testing.T) {
	data, err := os.ReadFile("buildomat/build.sh")
	if err != nil {
		t.Fatal(err)
	}
	var header []string
	for _, line := range strings.Split(string(data), "\n") {
		if rest, ok := strings.CutPrefix(line, "#:"); ok {
			header = append(header, rest)
		}
	}
	h := strings.Join(header, "\n")
	for _, key := range []string{"name =", "variety =", "target =", "output_rules ="} {
		if !strings.Contains(h, key) {
			t.Errorf("buildomat header has no %s", key)
		}
	}
}

// The compose stack runs the repository's collector configuration, and its
// Prometheus, Grafana and dashboard files parse.
func TestComposeStack(t *testing.T) {
	data, err := os.ReadFile("compose/compose.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var compose struct {
		Services map[string]struct {
			Image   string   `yaml:"image"`
			Volumes []string `yaml:"volumes"`
		} `yaml:"services"`
	}
	if err := yaml.Unmarshal(data, &compose); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{"collector", "jaeger", "prometheus", "grafana"} {
		if compose.Services[s].Image == "" {
			t.Errorf("compose has no %s service", s)
		}
	}
	mounted := false
	for _, v := range compose.Services["collector"].Volumes {
		src, _, _ := strings.Cut(v, ":")
		if filepath.Clean(filepath.Join("compose", src)) == filepath.Join("..", "otel-collector.yaml") {
			mounted = true
		}
	}
	if !mounted {
		t.Errorf("the collector does not mount the repository's otel-collector.yaml: %v", compose.Services["collector"].Volumes)
	}
	for _, f := range []string{"compose/prometheus.yml", "compose/grafana/provisioning/datasources/prometheus.yml", "compose/grafana/provisioning/dashboards/jobtrace.yml"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := yaml.Unmarshal(b, &doc); err != nil || len(doc) == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	for _, expr := range dashboardQueries(t) {
		if !strings.Contains(expr, "jobtrace_") && !strings.Contains(expr, "system_") && !strings.Contains(expr, "process_") {
			t.Errorf("a panel queries %q, none of jobtrace's metrics", expr)
		}
	}
}

// dashboardQueries are the queries of the Grafana dashboard's panels, at
// least one.
func dashboardQueries(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("compose/grafana/dashboards/jobtrace.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		Panels []struct {
			Targets []struct{ Expr string } `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(b, &dash); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			out = append(out, tg.Expr)
		}
	}
	if len(out) == 0 {
		t.Fatal("the dashboard has no queries")
	}
	return out
}

// TestDashboardQueriesExposedNames: every metric the Grafana dashboard
// queries is one jobtrace exposes, as the Prometheus text of what it
// records (real samples of this process, a phase and a job) names it.
func TestDashboardQueriesExposedNames(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { _ = mp.Shutdown(context.Background()) })
	rec, err := usagemetrics.New(mp.Meter("jobtrace"), usagemetrics.Options{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := hostmetrics.NewSource(hostmetrics.Config{})
	if err != nil || src == nil {
		t.Skipf("no resource source here: %v", err)
	}
	defer src.Close()
	src.SetJob(os.Getpid())
	for range 2 {
		var smp hostmetrics.Sample
		_ = src.Read(&smp) // a figure this system lacks is left out
		rec.Sample(&smp)
	}
	u := usage.Usage{Duration: time.Minute, HasCPU: true, CPUUser: time.Second, HasMemory: true, MemoryPeak: 1 << 30, HasIO: true}
	rec.Phase(context.Background(), "compile", "success", &u, verdict.Judge(u))
	rec.Job(context.Background(), "success", &u)
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	text, err := promtext.Append(nil, &rm, promtext.Options{})
	if err != nil {
		t.Fatal(err)
	}
	families := map[string]string{} // name: type
	for _, line := range strings.Split(string(text), "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[1] == "TYPE" {
			families[f[2]] = f[3]
		}
	}

	selector := regexp.MustCompile(`([a-zA-Z_:][a-zA-Z0-9_:]*)\{`)
	for _, expr := range dashboardQueries(t) {
		for _, m := range selector.FindAllStringSubmatch(expr, -1) {
			if !exposed(families, m[1]) {
				t.Errorf("the dashboard queries %s, which jobtrace does not expose (query %q)", m[1], expr)
			}
		}
	}
}

// exposed says whether name is a family, or a series of a histogram family.
func exposed(families map[string]string, name string) bool {
	if _, ok := families[name]; ok {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(name, suffix); ok && families[base] == "histogram" {
			return true
		}
	}
	return false
}
