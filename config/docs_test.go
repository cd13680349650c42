package config

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsCoverEverything keeps docs/configuration.md in step with the code:
// every YAML key of Config, every variable and every flag must appear in it.
func TestDocsCoverEverything(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	check := func(what, s string) {
		t.Helper()
		if !strings.Contains(doc, "`"+s+"`") && !strings.Contains(doc, "`"+s+" ") {
			t.Errorf("docs/configuration.md does not mention %s `%s`", what, s)
		}
	}
	for _, k := range yamlKeys() {
		check("the key", k)
	}

	vars := []string{
		"OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_SDK_DISABLED",
		"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
		"JOBTRACE_MARKERS", "JOBTRACE_CONFIG",
	}
	for _, s := range otlpSettings {
		for _, p := range []string{"OTEL_EXPORTER_OTLP_", "OTEL_EXPORTER_OTLP_TRACES_", "OTEL_EXPORTER_OTLP_METRICS_"} {
			vars = append(vars, p+s.env)
		}
	}
	for _, s := range jobtraceSettings {
		vars = append(vars, s.env)
	}
	for _, v := range vars {
		if !strings.Contains(doc, v) {
			t.Errorf("docs/configuration.md does not mention %s", v)
		}
	}

	fs := flag.NewFlagSet("jobtrace", flag.ContinueOnError)
	BindFlags(fs)
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		check("the flag", "--"+f.Name)
	})
	if n < 14 {
		t.Errorf("BindFlags registered %d flags, want at least 14", n)
	}
}

// TestEveryKeyLoads checks that the file loader accepts every key that
// Config declares, by loading the full example, which sets them all.
func TestEveryKeyLoads(t *testing.T) {
	var c Config
	data, err := os.ReadFile(filepath.Join("testdata", "jobtrace.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	c = Default()
	if err := parseFile("jobtrace.yaml", data, &c); err != nil {
		t.Fatal(err)
	}
	for _, k := range yamlKeys() {
		k = strings.Replace(k, "markers.patterns.", "markers.patterns[0].", 1)
		if c.Source(k) != "file" {
			t.Errorf("testdata/jobtrace.yaml does not set %s", k)
		}
	}
}
