//go:build unix

package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// reportJob has nested phases, one failed and one named like markup.
const reportJob = `jobtrace phase begin build
jobtrace phase begin compile; sleep 0.2; jobtrace phase end compile
jobtrace phase begin '<script>alert(1)</script>'; sleep 0.1; jobtrace phase end '<script>alert(1)</script>' --result failure
jobtrace phase end build
jobtrace phase begin test; sleep 0.2; jobtrace phase end test
exit 4`

var reportPhases = []string{"build", "compile", "&lt;script&gt;alert(1)&lt;/script&gt;", "test"}

// runForReport runs reportJob and renders its report: the out directory.
func runForReport(t *testing.T) string {
	t.Helper()
	r := jt(t, nil, "run", "--name", "report-job", "--interval", "50ms", "--summary=off", "--", "sh", "-c", reportJob)
	if r.code != 4 {
		t.Fatalf("run: exit %d, want 4: %s", r.code, r.stderr)
	}
	rr := jt(t, nil, "report", r.out)
	if rr.code != 0 || !strings.Contains(rr.stderr, "report.html") {
		t.Fatalf("report: exit %d: %s", rr.code, rr.stderr)
	}
	return r.out
}

func TestReportCommand(t *testing.T) {
	out := runForReport(t)
	b, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	h := string(b)
	for _, want := range append([]string{"report-job", "failure", ">4<"}, reportPhases...) {
		if !strings.Contains(h, want) {
			t.Errorf("report.html lacks %q", want)
		}
	}
	if strings.Contains(h, "<script") {
		t.Errorf("report.html has a script element")
	}
	if rest := strings.ReplaceAll(h, `xmlns="http://www.w3.org/2000/svg"`, ""); strings.Contains(rest, "http://") || strings.Contains(rest, "https://") {
		t.Errorf("report.html refers to the network")
	}
	if s, err := os.ReadFile(filepath.Join(out, "usage.svg")); err != nil || !strings.HasPrefix(string(s), "<?xml") {
		t.Errorf("usage.svg: %v", err)
	}

	for _, args := range [][]string{{"report"}, {"report", t.TempDir()}} {
		if r := jt(t, nil, args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2", args, r.code)
		}
	}
}

// The artifacts a run renders from what it holds in memory are byte for
// byte what the offline commands render from the artifacts it wrote: one
// model, whichever way it is built.
func TestRunRendersWhatTheOfflineCommandsRender(t *testing.T) {
	r := jt(t, nil, "run", "--name", "report-job", "--interval", "50ms", "--summary=off", "--", "sh", "-c", reportJob)
	if r.code != 4 {
		t.Fatalf("run: exit %d, want 4: %s", r.code, r.stderr)
	}
	names := []string{"report.html", "usage.svg", "profile.json"}
	inRun := map[string][]byte{}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(r.out, name))
		if err != nil {
			t.Fatal(err)
		}
		inRun[name] = b
	}
	for _, cmd := range []string{"report", "profile"} {
		if rr := jt(t, nil, cmd, r.out); rr.code != 0 {
			t.Fatalf("%s: exit %d: %s", cmd, rr.code, rr.stderr)
		}
	}
	for _, name := range names {
		b, err := os.ReadFile(filepath.Join(r.out, name))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, inRun[name]) {
			t.Errorf("%s written by the run differs from the one read back from its artifacts", name)
		}
	}
}

// TestReportChromium opens the report in a headless Chromium, when there is
// one: it must render, log no console error, and show every phase. The
// screenshot is left in $JOBTRACE_TEST_ARTIFACTS when set.
func TestReportChromium(t *testing.T) {
	browser, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("no chromium on PATH (Debian package chromium)")
	}
	out := runForReport(t)
	page := "file://" + filepath.Join(out, "report.html")
	shots := os.Getenv("JOBTRACE_TEST_ARTIFACTS")
	if shots == "" {
		shots = t.TempDir()
	}
	shot := filepath.Join(shots, "report.png")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	profile := t.TempDir()
	chrome := func(args ...string) (string, string) {
		cmd := exec.CommandContext(ctx, browser, append([]string{"--headless", "--no-sandbox", "--disable-gpu",
			"--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0", "--window-size=1280,1600"}, args...)...)
		var so, se strings.Builder
		cmd.Stdout, cmd.Stderr = &so, &se
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", args, err, se.String())
		}
		return so.String(), se.String()
	}
	dom, logs := chrome("--dump-dom", page)
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, "CONSOLE") {
			t.Errorf("console: %s", line)
		}
	}
	for _, p := range reportPhases {
		if !strings.Contains(dom, p) {
			t.Errorf("the rendered page lacks phase %q", p)
		}
	}
	chrome("--screenshot="+shot, page)
	if st, err := os.Stat(shot); err != nil || st.Size() == 0 {
		t.Fatalf("no screenshot: %v", err)
	}
	t.Logf("screenshot: %s", shot)
}

// The offline commands read artifacts a user may have been handed: a FIFO
// or a link to /dev/zero in their place is refused at once, never a hang or
// memory without bound.
func TestOfflineCommandsRefuseFilesThatAreNotRegular(t *testing.T) {
	dir := t.TempDir()
	if err := unix.Mkfifo(filepath.Join(dir, "resource-usage.csv"), 0o600); err != nil {
		t.Skip(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "spans.otlp.jsonl")); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range []string{"report", "profile", "replay"} {
		// A bound for a hang, far above what refusing takes.
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		c := exec.CommandContext(ctx, bin, cmd, dir)
		c.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:9"}
		out, err := c.CombinedOutput()
		cancel()
		if ctx.Err() == context.DeadlineExceeded {
			t.Errorf("%s: still running after a minute: %s", cmd, out)
			continue
		}
		if err == nil {
			t.Errorf("%s: exit 0 on a directory of a FIFO and /dev/zero: %s", cmd, out)
		}
		if !strings.Contains(string(out), "not a regular file") {
			t.Errorf("%s: %s", cmd, out)
		}
	}
}
