//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// tourCommands returns the commands of the README's tour of the demo, as
// written: the lines of its sh blocks between the tour's first words and
// "## Install" that run jobtrace or move its output, in order.
func tourCommands(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	start, end := strings.Index(readme, "Try it on a demo job"), strings.Index(readme, "## Install")
	if start < 0 || end < start {
		t.Fatalf("README.md: no tour between %q and %q", "Try it on a demo job", "## Install")
	}
	var cmds []string
	inSh := false
	for _, line := range strings.Split(readme[start:end], "\n") {
		switch {
		case strings.HasPrefix(line, "```sh"):
			inSh = true
		case strings.HasPrefix(line, "```"):
			inSh = false
		case inSh && (strings.HasPrefix(line, "go run ./cmd/jobtrace") || strings.HasPrefix(line, "mv ")):
			cmds = append(cmds, line)
		}
	}
	return cmds
}

// Every command of the README's tour works as written, in order, in a
// copy of the repository's examples: the demo run, the second run, the
// diff and the report with a baseline (go run ./cmd/jobtrace being the
// binary built here).
func TestReadmeTourWorksAsWritten(t *testing.T) {
	cmds := tourCommands(t)
	var sawDiff, sawBaseline bool
	for _, c := range cmds {
		sawDiff = sawDiff || strings.Contains(c, "jobtrace diff ")
		sawBaseline = sawBaseline || strings.Contains(c, "jobtrace report --baseline ")
	}
	if len(cmds) < 3 || !sawDiff || !sawBaseline {
		t.Fatalf("README's tour: commands %q; want the demo run, a diff and a report --baseline", cmds)
	}
	wd := t.TempDir()
	demo, err := os.ReadFile(filepath.Join("..", "..", "examples", "demo.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(wd, "examples"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wd, "examples", "demo.sh"), demo, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		line := strings.ReplaceAll(c, "go run ./cmd/jobtrace", bin)
		sh := exec.Command("sh", "-c", line)
		sh.Dir = wd
		sh.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + wd, "TMPDIR=" + os.TempDir(), "JOBTRACE_STATE_DIR=" + filepath.Join(wd, "state")}
		r := runCmd(t, sh)
		if r.code != 0 {
			t.Fatalf("README: %s\nexit %d\nstdout:\n%s\nstderr:\n%s", c, r.code, r.stdout, r.stderr)
		}
		if strings.Contains(c, "jobtrace diff ") && !strings.Contains(r.stdout, "checkout") {
			t.Errorf("README: %s: no phase of the demo in its output:\n%s", c, r.stdout)
		}
	}
	page, err := os.ReadFile(filepath.Join(wd, "jobtrace-out", "report.html"))
	if err != nil || !strings.Contains(string(page), "base-out") {
		t.Errorf("README: report --baseline: report.html does not compare with base-out (%v)", err)
	}
}
