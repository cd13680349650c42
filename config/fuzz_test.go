package config

import (
	"github.com/jobtrace/jobtrace/exporters/otlp"

	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
)

// public is what of c a file can say: its exported fields, secrets masked
// as WriteYAML masks them.
func public(c Config) Config {
	m := c.masked()
	m.origins, m.export = nil, otlp.Export{}
	// Empty and absent are the same in a file.
	for _, mp := range []*map[string]string{&m.ResourceAttributes, &m.OTLP.Headers, &m.OTLP.Traces.Headers, &m.OTLP.Metrics.Headers} {
		if len(*mp) == 0 {
			*mp = nil
		}
	}
	if len(m.Markers.Patterns) == 0 {
		m.Markers.Patterns = nil
	}
	return m
}

// loadFuzzed loads the configuration from the file data (none when nil) and
// the environment env, and checks what every load must give: a result, or
// an error that wraps ErrConfig and is one line.
func loadFuzzed(t *testing.T, data []byte, env map[string]string) (Config, bool) {
	t.Helper()
	if data != nil {
		path := filepath.Join(t.TempDir(), DefaultFile)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		env["JOBTRACE_CONFIG"] = path
	}
	c, err := Load(func(k string) string { return env[k] }, nil)
	if err != nil {
		if !errors.Is(err, ErrConfig) {
			t.Fatalf("error %v does not wrap ErrConfig", err)
		}
		if strings.ContainsAny(err.Error(), "\n\r") {
			t.Fatalf("error of more than one line: %q", err)
		}
		return Config{}, false
	}
	return c, true
}

// allUTF8 reports whether every string in v (a struct, map, slice or
// string) is valid UTF-8.
func allUTF8(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		return utf8.ValidString(v.String())
	case reflect.Pointer:
		return v.IsNil() || allUTF8(v.Elem())
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() && !allUTF8(v.Field(i)) {
				return false
			}
		}
	case reflect.Slice:
		for i := range v.Len() {
			if !allUTF8(v.Index(i)) {
				return false
			}
		}
	case reflect.Map:
		for it := v.MapRange(); it.Next(); {
			if !allUTF8(it.Key()) || !allUTF8(it.Value()) {
				return false
			}
		}
	}
	return true
}

// checkRoundTrip checks that what `jobtrace config` prints of c is a file
// that Load takes, and gives c again. A configuration holding invalid UTF-8
// (taken as it is from the environment) is printed as YAML binary, which
// the file does not take back: it is not checked.
func checkRoundTrip(t *testing.T, c Config) {
	t.Helper()
	if !allUTF8(reflect.ValueOf(c)) {
		return
	}
	var out bytes.Buffer
	if err := c.WriteYAML(&out); err != nil {
		t.Fatalf("WriteYAML: %v", err)
	}
	again, ok := loadFuzzed(t, out.Bytes(), map[string]string{})
	if !ok {
		_, err := Load(func(k string) string {
			if k == "JOBTRACE_CONFIG" {
				p := filepath.Join(t.TempDir(), "again.yaml")
				os.WriteFile(p, out.Bytes(), 0o600)
				return p
			}
			return ""
		}, nil)
		t.Fatalf("the printed configuration is refused: %v\n%s", err, out.Bytes())
	}
	if a, b := public(c), public(again); !reflect.DeepEqual(a, b) {
		t.Fatalf("the printed configuration loads as another:\n%s\n%#v\n%#v", out.Bytes(), a, b)
	}
}

// FuzzFile feeds any bytes as jobtrace.yaml: Load never panics, refuses
// with one line wrapping ErrConfig, or gives a configuration that
// `jobtrace config` prints as a file giving the same configuration.
// Seeds: below (the documented full file among them) and in
// testdata/fuzz/FuzzFile.
func FuzzFile(f *testing.F) {
	full, err := os.ReadFile(filepath.Join("testdata", "jobtrace.yaml"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(full)
	for _, s := range []string{
		"", "# only a comment\n", "out: x\n", "---\nout: a\n---\nout: b\n", "[1, 2]\n", "out: &a x\nlog: *a\n",
		"markers:\n  patterns:\n    - regex: 'HTTP 5\\d\\d'\n      event: http-5xx\n      counter: http_5xx\n",
		"resource_attributes:\n  a: \"\\xff\"\n  \"\": x\n", "sampling:\n  interval: -1s\n", "export_timeout: 1e9h\n",
		"otlp:\n  endpoint: http://u:p@h:1/?k=v\n  headers: {a: b}\n  traces: {insecure: true}\n",
		"limits: {max_line_bytes: 99999999999999999999}\n", "summary: !!binary aGk=\n", "out: !!int 3\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzcheck.NoHang(data)()
		if c, ok := loadFuzzed(t, data, map[string]string{}); ok {
			checkRoundTrip(t, c)
		}
	})
}

// fuzzVars are the variables FuzzEnv sets, by index.
var fuzzVars = []string{
	"OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "OTEL_SDK_DISABLED", "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER",
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_HEADERS", "OTEL_EXPORTER_OTLP_INSECURE",
	"OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_COMPRESSION", "OTEL_EXPORTER_OTLP_CERTIFICATE",
	"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_HEADERS",
	"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_INSECURE",
	"OTEL_EXPORTER_OTLP_METRICS_COMPRESSION", "JOBTRACE_OUT", "JOBTRACE_NAME", "JOBTRACE_EXPORT_TIMEOUT",
	"JOBTRACE_INTERVAL", "JOBTRACE_CGROUP", "JOBTRACE_SUMMARY", "JOBTRACE_RECORD_ARGS", "JOBTRACE_MARKERS",
	"JOBTRACE_PROMETHEUS_LISTEN", "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE",
	"OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION",
}

// FuzzEnv sets OTEL_* and JOBTRACE_* variables to any values (the input is
// variable index, value, separated by NUL bytes): Load never panics,
// refuses with one line wrapping ErrConfig, or gives a configuration that
// `jobtrace config` prints as a file giving the same configuration.
// Seeds: below and in testdata/fuzz/FuzzEnv.
func FuzzEnv(f *testing.F) {
	for _, s := range []string{
		"\x01a=%ff%fe,b=x\x00\x00svc",
		"\x07authorization=Bearer%20s3cret,x=\x00\x05http://u:p@collector:4318/base?api_key=K",
		"\x06grpc\x00\x05collector\x00\x09-5",
		"\x0chttp://[::1\x00\x0fabc\x00\x131e400s",
		"\x1aphase,github,nope\x00\x02maybe\x00\x03none\x00\x04NONE",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzcheck.NoHang(data)()
		env := map[string]string{}
		for _, item := range bytes.Split(data, []byte{0}) {
			if len(item) == 0 {
				continue
			}
			env[fuzzVars[int(item[0])%len(fuzzVars)]] = string(item[1:])
		}
		if c, ok := loadFuzzed(t, nil, env); ok {
			checkRoundTrip(t, c)
		}
	})
}
