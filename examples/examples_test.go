// Package examples holds example jobs and CI configurations; its test keeps
// them well-formed.
package examples

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
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
	if len(dash.Panels) == 0 {
		t.Fatal("the dashboard has no panels")
	}
	for _, p := range dash.Panels {
		for _, tg := range p.Targets {
			if !strings.Contains(tg.Expr, "jobtrace_") && !strings.Contains(tg.Expr, "system_") && !strings.Contains(tg.Expr, "process_") {
				t.Errorf("a panel queries %q, none of jobtrace's metrics", tg.Expr)
			}
		}
	}
}
