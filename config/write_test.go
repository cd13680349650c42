package config

import (
	"github.com/jobtrace/jobtrace/exporters/otlp"

	"bytes"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestWriteYAMLMasksSecrets(t *testing.T) {
	c := mustLoad(t, `
resource_attributes:
  team: infra
  vcs.api_token: s3cret-attr
otlp:
  endpoint: https://user:s3cret-pw@collector.example.com:4318/?api_key=s3cret-q&tenant=ci
  headers:
    Authorization: Bearer s3cret-file
    X-Harmless: s3cret-header-too
`, map[string]string{
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS":  "x-api-key=s3cret-env",
		"OTEL_EXPORTER_OTLP_METRICS_HEADERS": "x=s3cret-metrics",
	}, "--out", "o")

	var buf bytes.Buffer
	if err := c.WriteYAML(&buf); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.Contains(out, "s3cret") {
		t.Errorf("a secret is in the output:\n%s", out)
	}
	for _, want := range []string{
		"team: infra",
		"vcs.api_token: '" + Masked + "'",
		"Authorization: '" + Masked + "'",
		"X-Harmless: '" + Masked + "'", // every header value, whatever its name
		"x-api-key: '" + Masked + "'",
		"tenant=xxxxx", // every query value: which are secret cannot be told
		"collector.example.com:4318",
		"out: o # --out",
		"# OTEL_EXPORTER_OTLP_TRACES_HEADERS",
		"# jobtrace.yaml:3",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Masking works on a copy.
	if c.OTLP.Headers["Authorization"] != "Bearer s3cret-file" {
		t.Errorf("WriteYAML changed the config: %v", c.OTLP.Headers)
	}
}

// TestWriteYAMLRoundTrip checks that `jobtrace config` prints a file that
// loads back to the same configuration (headers aside, as they are masked),
// which also checks that the loader knows every key that Config has.
func TestWriteYAMLRoundTrip(t *testing.T) {
	c, err := Load(func(k string) string {
		if k == "JOBTRACE_CONFIG" {
			return filepath.Join("testdata", "jobtrace.yaml")
		}
		return ""
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range []Config{Default(), c} {
		var buf bytes.Buffer
		if err := in.WriteYAML(&buf); err != nil {
			t.Fatal(err)
		}
		got := Default()
		if err := parseFile("printed.yaml", buf.Bytes(), &got); err != nil {
			t.Fatalf("the printed config does not load: %v\n%s", err, buf.String())
		}
		want := in.masked()
		if !reflect.DeepEqual(normalize(got), normalize(want)) {
			t.Errorf("round trip:\n got %+v\nwant %+v\n%s", got, want, buf.String())
		}
	}
}

func TestMaskURL(t *testing.T) {
	tests := map[string]string{
		"":                                "",
		"collector:4317":                  "collector:4317",
		"http://collector:4318":           "http://collector:4318",
		"https://tok@collector":           "https://xxxxx@collector",
		"https://u:p@collector/v1/traces": "https://xxxxx@collector/v1/traces",
		"https://collector/?token=t&a=b":  "https://collector/?token=xxxxx&a=xxxxx",
		"https://collector/?signature=x":  "https://collector/?signature=xxxxx",
		"http://u:p@bad host:4318/?k=%zz": "http://xxxxx@bad host:4318/?k=xxxxx",
	}
	for in, want := range tests {
		if got := maskURL(in); got != want {
			t.Errorf("maskURL(%q) = %q, want %q", in, got, want)
		}
	}
}

// normalize drops what a YAML round trip cannot keep: origins, the resolved
// export, and the difference between nil and empty maps and lists.
func normalize(c Config) Config {
	c.origins = nil
	c.export = otlp.Export{} // resolved by Load, not printed
	for _, m := range []*map[string]string{&c.ResourceAttributes, &c.OTLP.Headers, &c.OTLP.Traces.Headers, &c.OTLP.Metrics.Headers} {
		if len(*m) == 0 {
			*m = nil
		}
	}
	if len(c.Markers.Patterns) == 0 {
		c.Markers.Patterns = nil
	}
	return c
}
