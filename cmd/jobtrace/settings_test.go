//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobtrace/jobtrace/exporters/spool"
)

// Export settings that the exporter would refuse are refused at start, by
// run, config and replay alike: exit 2, one line, and the job is not run
// half-instrumented ("without telemetry", no local artifacts).
func TestBadExportSettingsRefusedAlike(t *testing.T) {
	dir := t.TempDir()
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not PEM\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	replayDir := filepath.Join(dir, "spool")
	if err := os.MkdirAll(replayDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(replayDir, spool.TracesFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		env  []string
		want string
	}{
		{[]string{"OTEL_EXPORTER_OTLP_PROTOCOL=grpc", "OTEL_EXPORTER_OTLP_ENDPOINT=collector"},
			`OTEL_EXPORTER_OTLP_ENDPOINT: "collector" is neither a URL nor host:port`},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=https://127.0.0.1:1", "OTEL_EXPORTER_OTLP_CERTIFICATE=" + garbage},
			"OTEL_EXPORTER_OTLP_CERTIFICATE: " + garbage + " holds no PEM certificate"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=https://127.0.0.1:1", "OTEL_EXPORTER_OTLP_CERTIFICATE=/dev/zero"},
			"OTEL_EXPORTER_OTLP_CERTIFICATE: /dev/zero: not a regular file"},
		{[]string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_HEADERS=authorization=Bearer%20s3cret%0D%0Ax-a: b"},
			`OTEL_EXPORTER_OTLP_HEADERS: the value of "authorization" has a control character`},
	} {
		for _, args := range [][]string{
			{"run", "--", "sh", "-c", "echo the job ran"},
			{"config"},
			{"replay", replayDir},
		} {
			r := jt(t, tc.env, args...)
			if r.code != 2 || strings.TrimSpace(r.stderr) != "jobtrace: "+tc.want && !strings.HasPrefix(r.stderr, "jobtrace: "+tc.want) {
				t.Errorf("%v %v: exit %d, stderr %q; want 2 and %q", tc.env, args, r.code, r.stderr, tc.want)
			}
			if strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || strings.Contains(r.stderr, "s3cret") {
				t.Errorf("%v %v: not one clean line: %q", tc.env, args, r.stderr)
			}
			if strings.Contains(r.stdout, "the job ran") {
				t.Errorf("%v %v: the job ran", tc.env, args)
			}
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
