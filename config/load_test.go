package config

import (
	"github.com/jobtrace/jobtrace/exporters/otlp"

	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// load runs Load in a fresh working directory holding file as
// ./jobtrace.yaml (none if file is ""), with env as the whole environment
// and args as the command line.
func load(t *testing.T, file string, env map[string]string, args ...string) (Config, error) {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	if file != "" {
		if err := os.WriteFile(filepath.Join(dir, DefaultFile), []byte(file), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fs := flag.NewFlagSet("jobtrace", flag.ContinueOnError)
	fl := BindFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("parsing %q: %v", args, err)
	}
	return Load(func(k string) string { return env[k] }, fl)
}

func mustLoad(t *testing.T, file string, env map[string]string, args ...string) Config {
	t.Helper()
	c, err := load(t, file, env, args...)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

func TestPrecedence(t *testing.T) {
	type env = map[string]string
	tests := []struct {
		name       string
		file       string
		env        env
		args       []string
		key        string
		get        func(Config) any
		want       any
		wantSource string
	}{
		// out: defaults < file < JOBTRACE_OUT < --out
		{"out default", "", nil, nil, "out", func(c Config) any { return c.Out }, "jobtrace-out", "default"},
		{"out file", "out: f\n", nil, nil, "out", func(c Config) any { return c.Out }, "f", "file"},
		{"out env beats file", "out: f\n", env{"JOBTRACE_OUT": "e"}, nil, "out", func(c Config) any { return c.Out }, "e", "env"},
		{"out flag beats env", "out: f\n", env{"JOBTRACE_OUT": "e"}, []string{"--out", "x"}, "out", func(c Config) any { return c.Out }, "x", "flag"},

		// export_timeout
		{"timeout default", "", nil, nil, "export_timeout", func(c Config) any { return c.ExportTimeout }, 3 * time.Second, "default"},
		{"timeout file", "export_timeout: 5s\n", nil, nil, "export_timeout", func(c Config) any { return c.ExportTimeout }, 5 * time.Second, "file"},
		{"timeout env beats file", "export_timeout: 5s\n", env{"JOBTRACE_EXPORT_TIMEOUT": "500ms"}, nil, "export_timeout", func(c Config) any { return c.ExportTimeout }, 500 * time.Millisecond, "env"},
		{"timeout flag beats env", "export_timeout: 5s\n", env{"JOBTRACE_EXPORT_TIMEOUT": "500ms"}, []string{"--export-timeout=1m"}, "export_timeout", func(c Config) any { return c.ExportTimeout }, time.Minute, "flag"},

		// otlp.endpoint: defaults < file < OTEL_EXPORTER_OTLP_ENDPOINT < --endpoint
		{"endpoint default", "", nil, nil, "otlp.endpoint", func(c Config) any { return c.OTLP.Endpoint }, "", "default"},
		{"endpoint file", "otlp:\n  endpoint: http://file:4318\n", nil, nil, "otlp.endpoint", func(c Config) any { return c.OTLP.Endpoint }, "http://file:4318", "file"},
		{"endpoint env beats file", "otlp:\n  endpoint: http://file:4318\n", env{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://env:4318"}, nil, "otlp.endpoint", func(c Config) any { return c.OTLP.Endpoint }, "http://env:4318", "env"},
		{"endpoint flag beats env", "otlp:\n  endpoint: http://file:4318\n", env{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://env:4318"}, []string{"--endpoint", "http://flag:4318"}, "otlp.endpoint", func(c Config) any { return c.OTLP.Endpoint }, "http://flag:4318", "flag"},

		// otlp.headers: merged key by key, the higher layer winning a key.
		{"headers file", "otlp:\n  headers:\n    a: file\n    b: file\n", nil, nil, "otlp.headers", func(c Config) any { return c.OTLP.Headers["a"] + "," + c.OTLP.Headers["b"] }, "file,file", "file"},
		{"headers env beats file", "otlp:\n  headers:\n    a: file\n    b: file\n", env{"OTEL_EXPORTER_OTLP_HEADERS": "a=env"}, nil, "otlp.headers", func(c Config) any { return c.OTLP.Headers["a"] + "," + c.OTLP.Headers["b"] }, "env,file", "env"},
		{"headers flag beats env", "otlp:\n  headers:\n    a: file\n    b: file\n", env{"OTEL_EXPORTER_OTLP_HEADERS": "a=env"}, []string{"--header", "a=flag", "--header=c=x=y"}, "otlp.headers", func(c Config) any { return c.OTLP.Headers["a"] + "," + c.OTLP.Headers["b"] + "," + c.OTLP.Headers["c"] }, "flag,file,x=y", "flag"},

		// the other OTEL_* variables beat the file
		{"service name env beats file", "service_name: f\n", env{"OTEL_SERVICE_NAME": "e"}, nil, "service_name", func(c Config) any { return c.ServiceName }, "e", "env"},
		{"sdk disabled env beats file", "sdk_disabled: false\n", env{"OTEL_SDK_DISABLED": "TRUE"}, nil, "sdk_disabled", func(c Config) any { return c.SDKDisabled }, true, "env"},
		{"resource attributes merge", "resource_attributes:\n  a: file\n  b: file\n", env{"OTEL_RESOURCE_ATTRIBUTES": "a=env"}, nil, "resource_attributes", func(c Config) any { return c.ResourceAttributes["a"] + "," + c.ResourceAttributes["b"] }, "env,file", "env"},
		{"protocol flag beats env", "", env{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, []string{"--protocol", "http/protobuf"}, "otlp.protocol", func(c Config) any { return c.OTLP.Protocol }, "http/protobuf", "flag"},
		{"otlp timeout env in milliseconds", "otlp:\n  timeout: 20s\n", env{"OTEL_EXPORTER_OTLP_TIMEOUT": "1500"}, nil, "otlp.timeout", func(c Config) any { return c.OTLP.Timeout }, 1500 * time.Millisecond, "env"},
		{"insecure flag beats env", "", env{"OTEL_EXPORTER_OTLP_INSECURE": "true"}, []string{"--insecure=false"}, "otlp.insecure", func(c Config) any { return c.OTLP.Insecure }, false, "flag"},

		// booleans and strings of JOBTRACE_* and flags
		{"record args env", "record_args: false\n", env{"JOBTRACE_RECORD_ARGS": "1"}, nil, "record_args", func(c Config) any { return c.RecordArgs }, true, "env"},
		{"record args flag false beats env", "", env{"JOBTRACE_RECORD_ARGS": "true"}, []string{"--record-args=false"}, "record_args", func(c Config) any { return c.RecordArgs }, false, "flag"},
		{"unset flags do not override", "", env{"JOBTRACE_RECORD_ARGS": "true", "JOBTRACE_NAME": "n"}, []string{"--out", "o"}, "name", func(c Config) any { return c.Name }, "n", "env"},
		{"grace period flag", "grace_period: 1s\n", env{"JOBTRACE_GRACE_PERIOD": "2s"}, []string{"--grace-period", "0s"}, "grace_period", func(c Config) any { return c.GracePeriod }, time.Duration(0), "flag"},
		{"host type", "host_type: a\n", env{"JOBTRACE_HOST_TYPE": "b"}, nil, "host_type", func(c Config) any { return c.HostType }, "b", "env"},
		{"trace id from ci flag", "", nil, []string{"--trace-id-from-ci"}, "trace_id_from_ci", func(c Config) any { return c.TraceIDFromCI }, true, "flag"},
		{"log", "log: a\n", nil, []string{"--log", "b"}, "log", func(c Config) any { return c.Log }, "b", "flag"},

		// markers: the list replaces the three syntax bools
		{"markers env beats file", "markers:\n  gitlab: false\n", env{"JOBTRACE_MARKERS": "gitlab"}, nil, "markers.gitlab", func(c Config) any { return [3]bool{c.Markers.Phase, c.Markers.GitHub, c.Markers.GitLab} }, [3]bool{false, false, true}, "env"},
		{"markers flag beats env", "", env{"JOBTRACE_MARKERS": "gitlab"}, []string{"--markers", "phase"}, "markers.phase", func(c Config) any { return [3]bool{c.Markers.Phase, c.Markers.GitHub, c.Markers.GitLab} }, [3]bool{true, false, false}, "flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustLoad(t, tt.file, tt.env, tt.args...)
			if got := tt.get(c); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
			if got := c.Source(tt.key); got != tt.wantSource {
				t.Errorf("Source(%q) = %q, want %q", tt.key, got, tt.wantSource)
			}
		})
	}
}

// TestSignalPrecedence checks the signal-specific OTLP variables: they win
// over the general ones of the same layer, and a general setting of a higher
// layer wins over the signal-specific ones of the lower layers.
func TestSignalPrecedence(t *testing.T) {
	type env = map[string]string
	tests := []struct {
		name         string
		file         string
		env          env
		args         []string
		wantTraces   string // endpoint for traces
		wantMetrics  string
		wantProtocol string // for traces
		wantHeaders  string // traces header "a"
	}{
		{
			name: "no endpoint: nothing exported",
		},
		{
			name:        "general endpoint gets the signal path",
			env:         env{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/"},
			wantTraces:  "http://c:4318/v1/traces",
			wantMetrics: "http://c:4318/v1/metrics", wantProtocol: "http/protobuf",
		},
		{
			name: "traces variables beat general ones",
			env: env{
				"OTEL_EXPORTER_OTLP_ENDPOINT":        "http://c:4318",
				"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t:9999/custom",
				"OTEL_EXPORTER_OTLP_PROTOCOL":        "grpc",
				"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf",
				"OTEL_EXPORTER_OTLP_HEADERS":         "a=general",
				"OTEL_EXPORTER_OTLP_TRACES_HEADERS":  "a=traces",
			},
			wantTraces:  "http://t:9999/custom",
			wantMetrics: "http://c:4318", wantProtocol: "http/protobuf", wantHeaders: "traces",
		},
		{
			name: "env general beats file specific",
			file: "otlp:\n  traces_endpoint: http://file/v1/traces\n  traces:\n    protocol: grpc\n    headers:\n      a: file\n",
			env: env{
				"OTEL_EXPORTER_OTLP_ENDPOINT": "http://env:4318",
				"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
				"OTEL_EXPORTER_OTLP_HEADERS":  "a=env",
			},
			wantTraces:  "http://env:4318/v1/traces",
			wantMetrics: "http://env:4318/v1/metrics", wantProtocol: "http/protobuf", wantHeaders: "env",
		},
		{
			name: "file specific stays when env sets nothing",
			file: "otlp:\n  traces_endpoint: http://file:4317\n  traces:\n    protocol: grpc\n    headers:\n      a: file\n",
			env:  env{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://m/v1/metrics"},
			// grpc for traces: host and port
			wantTraces:  "http://file:4317",
			wantMetrics: "http://m/v1/metrics", wantProtocol: "grpc", wantHeaders: "file",
		},
		{
			name: "flags beat signal variables",
			env: env{
				"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://t/v1/traces",
				"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "grpc",
				"OTEL_EXPORTER_OTLP_TRACES_HEADERS":  "a=traces",
			},
			args:        []string{"--endpoint", "c:4317", "--protocol", "grpc", "--header", "a=flag"},
			wantTraces:  "https://c:4317",
			wantMetrics: "https://c:4317", wantProtocol: "grpc", wantHeaders: "flag",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustLoad(t, tt.file, tt.env, tt.args...)
			tr, mr := c.Export().Traces, c.Export().Metrics
			if got := endpointURL(tr); got != tt.wantTraces {
				t.Errorf("traces endpoint %q, want %q", got, tt.wantTraces)
			}
			if got := endpointURL(mr); got != tt.wantMetrics {
				t.Errorf("metrics endpoint %q, want %q", got, tt.wantMetrics)
			}
			if tr == nil {
				return
			}
			if tr.Protocol != tt.wantProtocol {
				t.Errorf("traces protocol %q, want %q", tr.Protocol, tt.wantProtocol)
			}
			if tr.Headers["a"] != tt.wantHeaders {
				t.Errorf("traces header a = %q, want %q", tr.Headers["a"], tt.wantHeaders)
			}
		})
	}
}

func endpointURL(e *otlp.Endpoint) string {
	if e == nil {
		return ""
	}
	return e.URL.String()
}

func TestExportInsecureAndTimeouts(t *testing.T) {
	c := mustLoad(t, "", map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":         "collector:4317",
		"OTEL_EXPORTER_OTLP_PROTOCOL":         "grpc",
		"OTEL_EXPORTER_OTLP_INSECURE":         "true",
		"OTEL_EXPORTER_OTLP_METRICS_INSECURE": "false",
		"OTEL_EXPORTER_OTLP_TIMEOUT":          "2000",
		"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT":   "250",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT":  "https://secure:4317",
	})
	tr, mr := c.Export().Traces, c.Export().Metrics
	if tr.Insecure || tr.TLS == nil {
		t.Error("traces to https:// are insecure")
	}
	if mr.Insecure || mr.TLS == nil || mr.URL.String() != "https://collector:4317" {
		t.Errorf("metrics: OTEL_EXPORTER_OTLP_METRICS_INSECURE=false ignored: %v", mr.URL)
	}
	if tr.Timeout != 250*time.Millisecond || mr.Timeout != 2*time.Second {
		t.Errorf("timeouts %v, %v; want 250ms, 2s", tr.Timeout, mr.Timeout)
	}
	o := c.OTLP
	o.Metrics.Insecure = nil
	if exp, err := otlp.Resolve(o, otlp.Signals{Traces: true, Metrics: true}); err != nil || !exp.Metrics.Insecure || exp.Metrics.TLS != nil || exp.Metrics.URL.String() != "http://collector:4317" {
		t.Errorf("metrics to a bare host:port do not take the general insecure: %+v, %v", exp.Metrics, err)
	}
	o.MetricsEndpoint = "http://plain:4317"
	o.Insecure = false
	if exp, err := otlp.Resolve(o, otlp.Signals{Traces: true, Metrics: true}); err != nil || !exp.Metrics.Insecure {
		t.Errorf("an http:// endpoint is not insecure: %v", err)
	}
}

func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.yaml")
	if err := os.WriteFile(other, []byte("out: other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.yaml")
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		wantOut string
		wantErr string
	}{
		{name: "./jobtrace.yaml", wantOut: "cwd"},
		{name: "JOBTRACE_CONFIG", env: map[string]string{"JOBTRACE_CONFIG": other}, wantOut: "other"},
		{name: "--config beats JOBTRACE_CONFIG", env: map[string]string{"JOBTRACE_CONFIG": missing}, args: []string{"--config", other}, wantOut: "other"},
		{name: "--config empty means none", args: []string{"--config="}, wantOut: "jobtrace-out"},
		{name: "--config missing", args: []string{"--config", missing}, wantErr: "config file " + missing + ": no such file or directory"},
		{name: "JOBTRACE_CONFIG missing", env: map[string]string{"JOBTRACE_CONFIG": missing}, wantErr: "config file " + missing + ": no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := load(t, "out: cwd\n", tt.env, tt.args...)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !errors.Is(err, ErrConfig) {
					t.Fatalf("err = %v, want %q wrapping ErrConfig", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.Out != tt.wantOut {
				t.Errorf("out = %q, want %q", c.Out, tt.wantOut)
			}
		})
	}
	for name, file := range map[string]string{
		"empty file":          "\n",
		"only comments":       "# nothing here\n",
		"empty sections":      "otlp:\nmarkers:\nlimits:\n",
		"anchors and aliases": "out: &o shared\nlog: *o\n",
	} {
		t.Run(name, func(t *testing.T) {
			c := mustLoad(t, file, nil)
			want := Default()
			if strings.Contains(file, "&o") {
				want.Out, want.Log = "shared", "shared"
			}
			if c.Out != want.Out || c.Log != want.Log || !reflect.DeepEqual(c.Markers, want.Markers) || c.Limits != want.Limits || c.OTLP.Protocol != want.OTLP.Protocol {
				t.Errorf("got %+v", c)
			}
		})
	}
	t.Run("a directory", func(t *testing.T) {
		_, err := load(t, "", map[string]string{"JOBTRACE_CONFIG": dir})
		if want := "config file " + dir + ": not a regular file (a directory)"; err == nil || err.Error() != want {
			t.Errorf("err = %v, want %s", err, want)
		}
	})
	t.Run("no file anywhere", func(t *testing.T) {
		c := mustLoad(t, "", nil)
		if c.Out != "jobtrace-out" {
			t.Errorf("out = %q", c.Out)
		}
	})
	t.Run("nil flags", func(t *testing.T) {
		t.Chdir(t.TempDir())
		c, err := Load(func(k string) string {
			if k == "JOBTRACE_CONFIG" {
				return other
			}
			return ""
		}, nil)
		if err != nil || c.Out != "other" {
			t.Fatalf("Load(nil flags) = %q, %v", c.Out, err)
		}
	})
}

// TestBadInput checks that every kind of bad input is refused with one line
// that names the file and line, the variable or the flag.
func TestBadInput(t *testing.T) {
	type env = map[string]string
	tests := []struct {
		name string
		file string
		env  env
		args []string
		want string // the whole message
	}{
		// the file: keys and types
		{name: "unknown top-level key", file: "out: x\nfoo: 1\n", want: `jobtrace.yaml:2: unknown key "foo"`},
		{name: "unknown key in a section", file: "markers:\n  phase: true\n  foo: 1\n", want: `jobtrace.yaml:3: unknown key "foo" in markers`},
		{name: "unknown key in a pattern", file: "markers:\n  patterns:\n    - regex: x\n      name: y\n", want: `jobtrace.yaml:4: unknown key "name" in markers.patterns[0]`},
		{name: "duplicate key", file: "out: a\nout: b\n", want: `jobtrace.yaml:2: duplicate key "out"`},
		{name: "bool of the wrong type", file: "record_args: yes\n", want: `jobtrace.yaml:1: record_args: "yes" is not true or false`},
		{name: "integer of the wrong type", file: "limits:\n  max_line_bytes: lots\n", want: `jobtrace.yaml:2: limits.max_line_bytes: "lots" is not an integer`},
		{name: "duration without a unit", file: "export_timeout: 10\n", want: `jobtrace.yaml:1: export_timeout: "10" is not a duration (like 3s or 500ms)`},
		{name: "bad duration", file: "otlp:\n  timeout: soon\n", want: `jobtrace.yaml:2: otlp.timeout: "soon" is not a duration (like 3s or 500ms)`},
		{name: "section that is not a mapping", file: "otlp: localhost:4317\n", want: `jobtrace.yaml:1: otlp must be a mapping of keys to values, not "localhost:4317"`},
		{name: "list that is not a list", file: "markers:\n  patterns: x\n", want: `jobtrace.yaml:2: markers.patterns must be a list, not "x"`},
		{name: "string that is a list", file: "out: [a, b]\n", want: `jobtrace.yaml:1: out must be a single value, not a list`},
		{name: "no value", file: "out:\n", want: `jobtrace.yaml:1: out has no value`},
		{name: "header without a value", file: "otlp:\n  headers:\n    a:\n", want: `jobtrace.yaml:3: otlp.headers.a has no value`},
		{name: "two documents", file: "out: a\n---\nout: b\n", want: `jobtrace.yaml:2: a second YAML document; the file must hold one`},
		{name: "tab indentation", file: "otlp:\n\tendpoint: x\n", want: `jobtrace.yaml:2: found character that cannot start any token`},
		{name: "not a mapping at all", file: "- a\n- b\n", want: `jobtrace.yaml:1: the file must be a mapping of keys to values`},
		{name: "syntax error", file: "out: x\nmarkers:\n  phase: true\n   github: false\n", want: `jobtrace.yaml:4: mapping values are not allowed in this context`},

		// the file: values that parse but are not valid
		{name: "bad regex", file: "markers:\n  patterns:\n    - regex: 'a(b'\n", want: "jobtrace.yaml:3: markers.patterns[0].regex: \"a(b\" does not compile: missing closing ): `a(b`"},
		{name: "missing regex", file: "markers:\n  patterns:\n    - regex: ok\n    - event: x\n", want: `jobtrace.yaml:4: markers.patterns[1].regex: is missing`},
		{name: "bad counter name", file: "markers:\n  patterns:\n    - regex: x\n      counter: 5xx\n", want: `jobtrace.yaml:4: markers.patterns[0].counter: "5xx" is not a metric name (a letter, then letters, digits, _ . / -)`},
		{name: "zero limit", file: "limits:\n  max_open_phases: 0\n", want: `jobtrace.yaml:2: limits.max_open_phases: must be a positive integer, not 0`},
		{name: "negative limit", file: "limits:\n  max_socket_conns: -1\n", want: `jobtrace.yaml:2: limits.max_socket_conns: must be a positive integer, not -1`},
		{name: "bad protocol in file", file: "otlp:\n  protocol: http/json\n", want: `jobtrace.yaml:2: otlp.protocol: "http/json" is not a supported protocol (grpc or http/protobuf)`},
		{name: "bad traces compression in file", file: "otlp:\n  traces:\n    compression: zstd\n", want: `jobtrace.yaml:3: otlp.traces.compression: "zstd" is not a supported compression (gzip or none)`},
		{name: "bad header name in file", file: "otlp:\n  headers:\n    ok: 1\n    bad key: 2\n", want: `jobtrace.yaml:4: otlp.headers: key "bad key" is not an HTTP header name`},
		{name: "http endpoint without scheme", file: "otlp:\n  endpoint: collector:4318\n", want: `jobtrace.yaml:2: otlp.endpoint: "collector:4318" is not an http:// or https:// URL, as http/protobuf needs`},
		{name: "endpoint with another scheme", file: "otlp:\n  protocol: grpc\n  traces_endpoint: unix:///tmp/s\n", want: `jobtrace.yaml:3: otlp.traces_endpoint: "unix:///tmp/s" has scheme "unix", not http or https`},
		{name: "empty out", file: "out: ''\n", want: `jobtrace.yaml:1: out: must not be empty`},
		{name: "console exporter in file", file: "traces_exporter: console\n", want: `jobtrace.yaml:1: traces_exporter: "console" is not supported: otlp or none (the spool and the usage CSV are written whatever this says)`},
		{name: "temporality in file", file: "otlp:\n  metrics_temporality_preference: Delta\n", want: `jobtrace.yaml:2: otlp.metrics_temporality_preference: "Delta" is not a temporality preference (cumulative, delta or lowmemory)`},

		// OTEL_* variables
		{name: "OTLP timeout not a number", env: env{"OTEL_EXPORTER_OTLP_TIMEOUT": "abc"}, want: `OTEL_EXPORTER_OTLP_TIMEOUT: "abc" is not a number of milliseconds`},
		{name: "OTLP timeout Go duration", env: env{"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "10s"}, want: `OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: "10s" is not a number of milliseconds`},
		{name: "OTLP timeout zero", env: env{"OTEL_EXPORTER_OTLP_TIMEOUT": "0"}, want: `OTEL_EXPORTER_OTLP_TIMEOUT: must be positive, not 0s`},
		{name: "OTLP protocol", env: env{"OTEL_EXPORTER_OTLP_PROTOCOL": "foo"}, want: `OTEL_EXPORTER_OTLP_PROTOCOL: "foo" is not a supported protocol (grpc or http/protobuf)`},
		{name: "OTLP traces protocol", env: env{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, want: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/json" is not a supported protocol (grpc or http/protobuf)`},
		{name: "OTLP compression", env: env{"OTEL_EXPORTER_OTLP_COMPRESSION": "br"}, want: `OTEL_EXPORTER_OTLP_COMPRESSION: "br" is not a supported compression (gzip or none)`},
		{name: "OTLP insecure", env: env{"OTEL_EXPORTER_OTLP_INSECURE": "yes"}, want: `OTEL_EXPORTER_OTLP_INSECURE: "yes" is not true or false`},
		{name: "console traces exporter", env: env{"OTEL_TRACES_EXPORTER": "console"}, want: `OTEL_TRACES_EXPORTER: "console" is not supported: otlp or none (the spool and the usage CSV are written whatever this says)`},
		{name: "list of metrics exporters", env: env{"OTEL_METRICS_EXPORTER": "otlp,console"}, want: `OTEL_METRICS_EXPORTER: "otlp,console" is not supported: otlp or none (the spool and the usage CSV are written whatever this says)`},
		{name: "histogram aggregation", env: env{"OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION": "exponential"}, want: `OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION: "exponential" is not a histogram aggregation (explicit_bucket_histogram or base2_exponential_bucket_histogram)`},
		{name: "SDK disabled 1", env: env{"OTEL_SDK_DISABLED": "1"}, want: `OTEL_SDK_DISABLED: "1" is not true or false`},
		{name: "headers not key=value", env: env{"OTEL_EXPORTER_OTLP_HEADERS": "a=1,oops"}, want: `OTEL_EXPORTER_OTLP_HEADERS: "oops" is not key=value`},
		{name: "headers bad escape", env: env{"OTEL_EXPORTER_OTLP_HEADERS": "a=%zz"}, want: `OTEL_EXPORTER_OTLP_HEADERS: the value of "a" has a bad percent-escape`},
		{name: "header name", env: env{"OTEL_EXPORTER_OTLP_METRICS_HEADERS": "a b=1"}, want: `OTEL_EXPORTER_OTLP_METRICS_HEADERS: key "a b" is not an HTTP header name`},
		{name: "resource attributes empty key", env: env{"OTEL_RESOURCE_ATTRIBUTES": "=v"}, want: `OTEL_RESOURCE_ATTRIBUTES: "=v" is not key=value`},
		{name: "endpoint for http", env: env{"OTEL_EXPORTER_OTLP_ENDPOINT": "localhost:4318"}, want: `OTEL_EXPORTER_OTLP_ENDPOINT: "localhost:4318" is not an http:// or https:// URL, as http/protobuf needs`},

		// JOBTRACE_* variables
		{name: "export timeout", env: env{"JOBTRACE_EXPORT_TIMEOUT": "abc"}, want: `JOBTRACE_EXPORT_TIMEOUT: "abc" is not a duration (like 3s or 500ms)`},
		{name: "export timeout zero", env: env{"JOBTRACE_EXPORT_TIMEOUT": "0s"}, want: `JOBTRACE_EXPORT_TIMEOUT: must be positive, not 0s`},
		{name: "negative grace period", env: env{"JOBTRACE_GRACE_PERIOD": "-1s"}, want: `JOBTRACE_GRACE_PERIOD: must not be negative, not -1s`},
		{name: "record args", env: env{"JOBTRACE_RECORD_ARGS": "maybe"}, want: `JOBTRACE_RECORD_ARGS: "maybe" is not true or false`},
		{name: "markers", env: env{"JOBTRACE_MARKERS": "phase,foo"}, want: `JOBTRACE_MARKERS: "foo" is not a marker syntax (phase, github, gitlab or none)`},
		{name: "markers none and more", env: env{"JOBTRACE_MARKERS": "none,phase"}, want: `JOBTRACE_MARKERS: "none,phase" names syntaxes and none`},

		// flags
		{name: "flag duration", args: []string{"--export-timeout", "abc"}, want: `--export-timeout: "abc" is not a duration (like 3s or 500ms)`},
		{name: "flag protocol", args: []string{"--protocol", "foo"}, want: `--protocol: "foo" is not a supported protocol (grpc or http/protobuf)`},
		{name: "flag header", args: []string{"--header", "novalue"}, want: `--header: "novalue" is not key=value`},
		{name: "flag header name", args: []string{"--header", "a:b=c"}, want: `--header: key "a:b" is not an HTTP header name`},
		{name: "flag markers", args: []string{"--markers", "gh"}, want: `--markers: "gh" is not a marker syntax (phase, github, gitlab or none)`},
		{name: "flag endpoint", args: []string{"--endpoint", "http://"}, want: `--endpoint: "http://" has no host`},
		{name: "flag out empty", args: []string{"--out", ""}, want: `--out: must not be empty`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load(t, tt.file, tt.env, tt.args...)
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			if !errors.Is(err, ErrConfig) {
				t.Errorf("%v does not wrap ErrConfig", err)
			}
			if msg := err.Error(); strings.Contains(msg, "\n") {
				t.Errorf("message has more than one line: %q", msg)
			}
			if err.Error() != tt.want {
				t.Errorf("error\n got %s\nwant %s", err, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Fatalf("Default().Validate() = %v", err)
	}
	c := Default()
	c.Limits.MaxLineBytes = 0
	err := c.Validate()
	if err == nil || !errors.Is(err, ErrConfig) || err.Error() != "limits.max_line_bytes: must be a positive integer, not 0" {
		t.Errorf("Validate() = %v", err)
	}
}

func TestExampleFile(t *testing.T) {
	c, err := Load(func(k string) string {
		if k == "JOBTRACE_CONFIG" {
			return filepath.Join("testdata", "jobtrace.yaml")
		}
		return ""
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.ServiceName != "ci-builds" || c.ExportTimeout != 5*time.Second || c.Markers.GitLab || c.Limits.MaxOpenPhases != 10000 {
		t.Errorf("unexpected values: %+v", c)
	}
	if len(c.Markers.Patterns) != 2 {
		t.Fatalf("patterns: %+v", c.Markers.Patterns)
	}
	if p := c.Markers.Patterns[1]; p.Event != p.Regex || p.Counter != "" {
		t.Errorf("the event of a pattern without one is %q, want its regex %q", p.Event, p.Regex)
	}
	if tr := c.Export().Traces; tr.Headers["X-Scope-OrgID"] != "builds" || tr.Timeout != 5*time.Second {
		t.Errorf("traces: %+v", tr)
	}
	if got := c.Source("otlp.endpoint"); got != "file" {
		t.Errorf("Source(otlp.endpoint) = %q", got)
	}
	if got := c.Source("markers.patterns[1].regex"); got != "file" {
		t.Errorf("Source(markers.patterns[1].regex) = %q", got)
	}
	if got := c.Source("no.such.key"); got != "" {
		t.Errorf("Source(no.such.key) = %q", got)
	}
}

// A configuration file that is not a regular file, or is too large, is
// refused at once: /dev/zero would be read until memory runs out, a FIFO
// would block before the job starts.
func TestConfigFileNotRegular(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("# "+strings.Repeat("x", MaxFileBytes)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{big: "file too large"}
	if fifo, ok := makeFIFO(dir); ok {
		cases[fifo] = "not a regular file (a FIFO)"
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		cases["/dev/zero"] = "not a regular file (a character device)"
	}
	for path, want := range cases {
		_, err := load(t, "", map[string]string{"JOBTRACE_CONFIG": path})
		if err == nil || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "config file "+path+": "+want) {
			t.Errorf("%s: err = %v, want %q", path, err, want)
		}
	}
}

// A line break or an escape in a setting: free text (the job's name, the
// service name, resource attributes) is cleaned as the job's own text is;
// anything else (a path, an address, a pattern) is refused with one line,
// and what is printed loads back as itself.
func TestControlCharactersInSettings(t *testing.T) {
	c, err := Load(func(k string) string {
		return map[string]string{"JOBTRACE_NAME": "build\n\x1b[31m", "OTEL_SERVICE_NAME": "svc\r", "OTEL_RESOURCE_ATTRIBUTES": "k=v%0A"}[k]
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "build\uFFFD\uFFFD[31m" || c.ServiceName != "svc\uFFFD" || c.ResourceAttributes["k"] != "v\uFFFD" {
		t.Errorf("name %q, service %q, attributes %q", c.Name, c.ServiceName, c.ResourceAttributes)
	}
	for _, kv := range [][2]string{{"JOBTRACE_PROMETHEUS_LISTEN", "\n"}, {"JOBTRACE_OUT", "out\n"}, {"OTEL_EXPORTER_OTLP_CERTIFICATE", "ca\x1b.pem"}} {
		_, err := Load(func(k string) string {
			if k == kv[0] {
				return kv[1]
			}
			return ""
		}, nil)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), kv[0]) || strings.ContainsAny(err.Error(), "\n\r\x1b") {
			t.Errorf("%s=%q: %v", kv[0], kv[1], err)
		}
	}
}

// LoadEnv applies the OTEL_* variables only: no file, even one in the
// working directory, and no JOBTRACE_* variable; and Resolve refuses what
// Load refuses.
func TestLoadEnvReadsOnlyOTEL(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile(filepath.Join(dir, DefaultFile), []byte("out: from-file\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"OTEL_SERVICE_NAME":           "worker",
		"OTEL_EXPORTER_OTLP_ENDPOINT": "http://localhost:4318",
		"JOBTRACE_OUT":                "from-env",
		"JOBTRACE_CONFIG":             DefaultFile,
	}
	c, err := LoadEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if c.ServiceName != "worker" || c.Out != Default().Out {
		t.Errorf("service %q, out %q", c.ServiceName, c.Out)
	}
	if tr := c.Export().Traces; tr == nil || tr.URL.String() != "http://localhost:4318/v1/traces" {
		t.Errorf("traces endpoint %v", tr)
	}
	if _, err := LoadEnv(func(k string) string { return map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "soon"}[k] }); !errors.Is(err, ErrConfig) {
		t.Errorf("a bad OTEL_* value: %v", err)
	}
	c.Sampling.Interval = time.Millisecond
	if _, err := c.Resolve(); !errors.Is(err, ErrConfig) {
		t.Errorf("Resolve of an interval below MinInterval: %v", err)
	}
}
