//go:build unix

package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdkresource "go.opentelemetry.io/otel/sdk/resource"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/internal/timingtest"
	"github.com/jobtrace/jobtrace/session"
	"github.com/jobtrace/jobtrace/spans/scan"
)

// TestMain checks that the tests leave no goroutine running.
func TestMain(m *testing.M) { timingtest.VerifyTestMain(m) }

// run runs args as `jobtrace run` does, with its output in files, and
// returns the exit code, the artifacts directory and jobtrace's stderr.
func run(t *testing.T, args ...string) (code int, out, stderr string) {
	t.Helper()
	out = filepath.Join(t.TempDir(), "out")
	code, _, stderr = runIn(t, out, args...)
	return code, out, stderr
}

// runIn runs args as run does, with the artifacts in out, and returns the
// exit code, the job's stdout and jobtrace's stderr.
func runIn(t *testing.T, out string, args ...string) (code int, jobOut, stderr string) {
	t.Helper()
	dir := t.TempDir()
	stdout, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer stdout.Close()
	errf, err := os.Create(filepath.Join(dir, "stderr"))
	if err != nil {
		t.Fatal(err)
	}
	defer errf.Close()
	code = Run(Options{
		Session: session.Settings{
			Name: "job", Out: out, ExportTimeout: time.Second,
			Scan: scan.Options{GitHub: true}, Socket: true, MarkerDir: true,
			Sampling: session.SamplingOptions{Interval: time.Hour},
			Resource: sdkresource.Empty(), Env: os.Environ(), Summary: "text",
		},
		Args: args, GracePeriod: time.Second,
		Stdout: stdout, Stderr: errf,
	})
	logs, err := os.ReadFile(errf.Name())
	if err != nil {
		t.Fatal(err)
	}
	printed, err := os.ReadFile(stdout.Name())
	if err != nil {
		t.Fatal(err)
	}
	return code, string(printed), string(logs)
}

// The job's exit code is jobtrace's, and its phases and the artifacts are
// written, whether the job ran or could not be started.
func TestRunGivesTheJobsExitCode(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"sh", "-c", `echo "::group::Build"; echo "::endgroup::"; exit 3`}, 3, "exited with code 3"},
		{[]string{"/nonexistent/program"}, 127, "no such file or directory"},
	} {
		code, out, logs := run(t, c.args...)
		if code != c.code || !strings.Contains(logs, c.says) {
			t.Errorf("%q: exit code %d, want %d; stderr:\n%s", c.args, code, c.code, logs)
		}
		spans, err := os.ReadFile(filepath.Join(out, spool.TracesFile))
		if err != nil || !strings.Contains(string(spans), `"jobtrace startup"`) {
			t.Errorf("%q: spool %v", c.args, err)
		}
		if c.code == 3 && !strings.Contains(string(spans), `"Build"`) {
			t.Errorf("%q: no phase Build in the spool", c.args)
		}
	}
}

// A session that cannot start (its artifacts directory would be below a
// file) costs the telemetry, not the job: the job runs with its own
// environment, its output passes, and its exit code is jobtrace's, whether
// it ran or could not be started.
func TestRunWithoutASession(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(file, "out")
	code, printed, logs := runIn(t, out, "sh", "-c", `echo "socket=$`+session.EnvSocket+`"; exit 4`)
	if code != 4 || printed != "socket=\n" || !strings.Contains(logs, "running the job without telemetry") {
		t.Errorf("exit code %d, want 4; stdout %q; stderr:\n%s", code, printed, logs)
	}
	if code, _, logs := runIn(t, out, "/nonexistent/program"); code != 127 || !strings.Contains(logs, "no such file or directory") {
		t.Errorf("a job that cannot start: exit code %d, want 127; stderr:\n%s", code, logs)
	}
}
