//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobtrace/jobtrace/exporters/spool"
)

// The same export settings, from the environment, a file or flags, are
// accepted or refused alike by run, config and replay, since all three
// validate them through the one resolver: a refusal is exit 2 and one line,
// and the job is not run half-instrumented ("without telemetry", no local
// artifacts); what is accepted runs the job, prints the configuration and
// replays.
func TestExportSettingsAgreeAcrossCommands(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not PEM\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "jobtrace.yaml")
	if err := os.WriteFile(file, []byte("otlp:\n  protocol: grpc\n  endpoint: http://127.0.0.1:4317/otlp\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	replayDir := filepath.Join(dir, "spool")
	if err := os.MkdirAll(replayDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(replayDir, spool.TracesFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	const exporters = "is not supported: otlp or none (the spool and the usage CSV are written whatever this says)"
	for _, tc := range []struct {
		env   []string
		flags []string
		want  string // the line refusing them; "" when they are accepted
	}{
		{env: []string{"OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "OTEL_EXPORTER_OTLP_ENDPOINT=collector"},
			want: `OTEL_EXPORTER_OTLP_ENDPOINT: "collector" is neither a URL nor host:port`},
		{flags: []string{"--protocol", "grpc", "--endpoint", "collector"},
			want: `--endpoint: "collector" is neither a URL nor host:port`},
		{env: []string{"JOBTRACE_CONFIG=" + file},
			want: file + `:3: otlp.endpoint: "http://127.0.0.1:4317/otlp" has a path, which gRPC cannot use (it sends to host:port only)`},
		{env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=https://127.0.0.1:1", "OTEL_EXPORTER_OTLP_CERTIFICATE=" + garbage},
			want: "OTEL_EXPORTER_OTLP_CERTIFICATE: " + garbage + " holds no PEM certificate"},
		{env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=https://127.0.0.1:1", "OTEL_EXPORTER_OTLP_CERTIFICATE=/dev/zero"},
			want: "OTEL_EXPORTER_OTLP_CERTIFICATE: /dev/zero: not a regular file (a character device)"},
		{env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20s3cret%0D%0Ax-a: b"},
			want: `OTEL_EXPORTER_OTLP_HEADERS: the value of "authorization" has a control character (such as CR or LF), which HTTP cannot send`},
		{env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", "OTEL_TRACES_EXPORTER=console"},
			want: `OTEL_TRACES_EXPORTER: "console" ` + exporters},
		{env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", "OTEL_METRICS_EXPORTER=prometheus"},
			want: `OTEL_METRICS_EXPORTER: "prometheus" ` + exporters},
		{env: []string{"OTEL_SDK_DISABLED=true", "OTEL_TRACES_EXPORTER=zipkin"},
			want: `OTEL_TRACES_EXPORTER: "zipkin" ` + exporters},
		{env: []string{"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=sometimes"},
			want: `OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE: "sometimes" is not a temporality preference (cumulative, delta or lowmemory)`},
		{env: []string{"OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION=base10"},
			want: `OTEL_EXPORTER_OTLP_METRICS_DEFAULT_HISTOGRAM_AGGREGATION: "base10" is not a histogram aggregation (explicit_bucket_histogram or base2_exponential_bucket_histogram)`},
		// Accepted: a dead collector, the values in any case, a signal off,
		// and a certificate file that no exported signal uses.
		{env: []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", "OTEL_TRACES_EXPORTER=OTLP", "OTEL_METRICS_EXPORTER=None",
			"OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE=Delta", "OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE=/dev/zero"}},
		{env: []string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:1/v1/traces", "OTEL_EXPORTER_OTLP_PROTOCOL=grpc",
			"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf", "OTEL_EXPORTER_OTLP_HEADERS=x-api-key=k"}},
	} {
		for _, args := range [][]string{
			append(append([]string{"run"}, tc.flags...), "--", "sh", "-c", "echo the job ran"),
			append([]string{"config"}, tc.flags...),
			append(append([]string{"replay"}, tc.flags...), replayDir),
		} {
			r := jt(t, tc.env, args...)
			if tc.want == "" {
				if r.code != 0 {
					t.Errorf("%v %v: exit %d, stderr %q; want them accepted", tc.env, args, r.code, r.stderr)
				}
				continue
			}
			if r.code != 2 || strings.TrimSpace(r.stderr) != "jobtrace: "+tc.want {
				t.Errorf("%v %v %v: exit %d, stderr %q; want 2 and %q", tc.env, tc.flags, args[0], r.code, r.stderr, tc.want)
			}
			if strings.Contains(r.stderr, "s3cret") {
				t.Errorf("%v %v: prints a secret: %q", tc.env, args, r.stderr)
			}
			if strings.Contains(r.stdout, "the job ran") {
				t.Errorf("%v %v: the job ran", tc.env, args)
			}
		}
	}
}

// A replay with traces turned off says so, rather than asking for the
// collector that is configured.
func TestReplaySaysWhyNothingIsExported(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, spool.TracesFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{nil, "replay: no collector configured: set OTEL_EXPORTER_OTLP_ENDPOINT or --endpoint"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", "OTEL_TRACES_EXPORTER=none"},
			"replay: the export of traces is turned off (traces_exporter, OTEL_TRACES_EXPORTER=none)"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", "OTEL_SDK_DISABLED=true"},
			"replay: the export is turned off (sdk_disabled, OTEL_SDK_DISABLED)"},
	} {
		if r := jt(t, tc.env, "replay", dir); r.code != 2 || strings.TrimSpace(r.stderr) != "jobtrace: "+tc.want {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.env, r.code, r.stderr, tc.want)
		}
	}
}

// `jobtrace exec` inside a run exports nothing itself (its phase goes to the
// run): export settings the job changed for its own tools do not stop the
// step.
func TestExecInRunDoesNotResolveTheExport(t *testing.T) {
	r := jt(t, nil, "run", "--", "sh", "-c",
		"OTEL_EXPORTER_OTLP_ENDPOINT=https://127.0.0.1:1 OTEL_EXPORTER_OTLP_CERTIFICATE=/nonexistent.pem jobtrace exec step -- echo step ran")
	if r.code != 0 || !strings.Contains(r.stdout, "step ran") {
		t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if spans, _ := spansOf(t, r.out); spans["step"] == nil {
		t.Errorf("no span for the step")
	}
}
