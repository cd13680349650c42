package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxArgStrlen is Linux's MAX_ARG_STRLEN: the longest string, with its
// NUL, that execve passes on (32 pages).
const maxArgStrlen = 32 * 4096

// A job whose environment the system takes as it is, but not with what
// jobtrace adds to it (here a PATH a few bytes short of the longest string
// execve passes on, to which jobtrace appends its directory), runs without
// jobtrace's variables, with a warning, as it runs without jobtrace: it
// failed with exit 126, "argument list too long". Its steps then run
// outside the run, as `jobtrace exec` without one.
func TestJobRunsWhenJobtracesVariablesMakeItsEnvironmentTooLarge(t *testing.T) {
	path := "PATH=/usr/local/bin:/usr/bin:/bin"
	path += strings.Repeat(":/x", (maxArgStrlen-1-len(path))/3)
	alone := exec.Command("sh", "-c", "echo ran")
	alone.Env = []string{path}
	if out, err := alone.CombinedOutput(); err != nil || string(out) != "ran\n" {
		t.Fatalf("without jobtrace: %v, %q", err, out)
	}
	for _, args := range [][]string{
		{"run", "--out", filepath.Join(t.TempDir(), "o"), "--", "sh", "-c", "echo ran"},
		{"run", "--out", filepath.Join(t.TempDir(), "o"), "--", "sh", "-c", `"$JT" exec step -- sh -c 'echo ran'`},
	} {
		cmd := exec.Command(bin, args...)
		cmd.Dir = t.TempDir()
		cmd.Env = []string{path, "HOME=" + cmd.Dir, "JT=" + bin}
		r := runCmd(t, cmd)
		if r.code != 0 || r.stdout != "ran\n" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.stdout, r.stderr)
		}
		if !strings.Contains(r.stderr, "argument list too long with the variables jobtrace adds") {
			t.Errorf("%v: no warning: %q", args, r.stderr)
		}
	}
}
