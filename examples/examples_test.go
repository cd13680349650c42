// Package examples holds example jobs and CI configurations; its test keeps
// them well-formed.
package examples

import (
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
