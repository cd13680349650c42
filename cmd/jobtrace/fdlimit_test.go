//go:build unix

package main

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestJobRunsWithFewDescriptors: with a low `ulimit -n`, jobtrace's own
// files use up the descriptors before the job starts. The job runs all the
// same, on jobtrace's own output, and its exit code is jobtrace's; what
// could not be opened is warned about. Before, the job did not run: exit 1
// or 126 (its output could not be set up), or the Go runtime died making
// its poller (a fatal error and a goroutine dump, exit 2).
func TestJobRunsWithFewDescriptors(t *testing.T) {
	for _, n := range []int{10, 12, 16, 20, 24, 32, 48} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out, code := withFewDescriptors(t, dir, n, `run --out "$1" --summary off -- sh -c 'echo the job ran; exit 4'`, dir+"/out")
			if code != 4 || !strings.Contains(out, "the job ran") {
				t.Errorf("ulimit -n %d: exit %d, want the job's 4 and its output; got:\n%s", n, code, out)
			}
			if strings.Contains(out, "fatal error") || strings.Contains(out, "goroutine ") {
				t.Errorf("ulimit -n %d: jobtrace died:\n%s", n, out)
			}
		})
	}
}

// TestStandaloneExecWithFewDescriptorsLeavesNoSpool: `jobtrace exec`
// outside a run spools to a private directory in TMPDIR and removes it at
// the end. With a low `ulimit -n`, os.RemoveAll found no descriptor to open
// the directory with, and the directory stayed, one more each call.
func TestStandaloneExecWithFewDescriptorsLeavesNoSpool(t *testing.T) {
	for _, n := range []int{8, 9, 10, 12, 16} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			out, code := withFewDescriptors(t, dir, n, `exec step -- sh -c 'exit 4'`)
			if code != 4 {
				t.Errorf("ulimit -n %d: exit %d, want the step's 4; output:\n%s", n, code, out)
			}
			left, err := filepath.Glob(filepath.Join(dir, "jobtrace-spool-*"))
			if err != nil {
				t.Fatal(err)
			}
			if len(left) > 0 {
				t.Errorf("ulimit -n %d: %v left behind; output:\n%s", n, left, out)
			}
		})
	}
}

// withFewDescriptors runs jobtrace with args (shell words, in which $1...
// are more) under `ulimit -n n`, in dir, which is also its HOME and TMPDIR,
// and returns its output and exit code.
func withFewDescriptors(t *testing.T, dir string, n int, args string, more ...string) (string, int) {
	t.Helper()
	return inShell(t, dir, fmt.Sprintf(`ulimit -n %d && exec "$0" %s`, n, args), more...)
}

// inShell runs script with /bin/sh, $0 being jobtrace and $1... more, in
// dir, which is also its HOME and TMPDIR, and returns its output and exit
// code.
func inShell(t *testing.T, dir, script string, more ...string) (string, int) {
	t.Helper()
	cmd := exec.Command("/bin/sh", append([]string{"-c", script, bin}, more...)...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "TMPDIR=" + dir}
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}
