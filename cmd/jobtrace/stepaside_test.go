//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// lowestShellLimit is the lowest `ulimit -n` under which /bin/sh runs a
// command, `sh -c 'echo ran'`, as jobtrace's tests run their jobs: below
// it, no command runs without jobtrace either (a dynamically linked sh
// needs a descriptor to load its libraries).
func lowestShellLimit(t *testing.T) int {
	t.Helper()
	for n := 0; n <= 16; n++ {
		out, _ := exec.Command("/bin/sh", "-c", fmt.Sprintf(`ulimit -n %d && exec sh -c 'echo ran'`, n)).CombinedOutput()
		if string(out) == "ran\n" {
			return n
		}
	}
	t.Skip("sh -c 'echo ran' does not run under ulimit -n 16")
	return 0
}

// checkLowLimitOutput fails the test when jobtrace died (a fatal error of
// the Go runtime), or when it stepped aside for its command and said more
// than the one warning that says so (besides the end lines of a run around
// it).
func checkLowLimitOutput(t *testing.T, what string, out string) {
	t.Helper()
	if strings.Contains(out, "fatal error") || strings.Contains(out, "goroutine ") {
		t.Errorf("%s: jobtrace died:\n%s", what, out)
	}
	if !strings.Contains(out, "too few file descriptors") {
		return
	}
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		end := strings.HasPrefix(l, `jobtrace: job "`) || strings.Contains(l, " spans written to ")
		if strings.HasPrefix(l, "jobtrace:") && !end {
			lines = append(lines, l)
		}
	}
	if len(lines) != 1 {
		t.Errorf("%s: stepped aside with %d lines of jobtrace's, want one warning:\n%s", what, len(lines), out)
	}
}

// TestCommandRunsAtAnyDescriptorLimit: at every `ulimit -n` under which the
// bare command runs, `jobtrace exec` (outside a run and inside one) and
// `jobtrace run` run it, with its output, and exit with its exit code.
// Before, at a limit of 9 or less (on a host where the Go runtime keeps
// two cgroup files open), the command did not run: exit 126 ("too many
// open files") or 2 (the runtime died making its poller).
func TestCommandRunsAtAnyDescriptorLimit(t *testing.T) {
	for n := lowestShellLimit(t); n <= 16; n++ {
		for _, code := range []int{0, 3} {
			t.Run(fmt.Sprintf("%d/exit%d", n, code), func(t *testing.T) {
				t.Parallel()
				job := fmt.Sprintf(`sh -c 'echo ran; exit %d'`, code)
				check := func(what, out string, got int) {
					t.Helper()
					if got != code || !strings.Contains(out, "ran\n") {
						t.Errorf("%s under ulimit -n %d: exit %d, want the command's %d and its output; got:\n%s", what, n, got, code, out)
					}
					checkLowLimitOutput(t, what, out)
				}

				dir := t.TempDir()
				out, got := withFewDescriptors(t, dir, n, "exec step -- "+job)
				check("exec", out, got)
				if left, _ := filepath.Glob(filepath.Join(dir, "jobtrace-spool-*")); len(left) > 0 {
					t.Errorf("exec under ulimit -n %d: %v left behind", n, left)
				}

				inner := fmt.Sprintf(`ulimit -n %d && exec "$0" exec step -- %s`, n, job)
				out, got = inShell(t, dir, `exec "$0" run --out "$1" --summary off -- sh -c "$2" "$0"`, filepath.Join(dir, "inrun"), inner)
				check("exec inside run", out, got)

				out, got = withFewDescriptors(t, dir, n, `run --out "$1" --summary off -- `+job, filepath.Join(dir, "run"))
				check("run", out, got)
			})
		}
	}
}

// TestMarkersExitZeroAtAnyDescriptorLimit: `jobtrace phase begin|end`,
// `event` and `counter`, outside a run and inside one, exit 0 at every
// `ulimit -n` under which a command runs: a marker never fails the step.
// Before, outside a run they exited 2 (the runtime died) or 1 ("too many
// open files") at 7 or less, and inside one 2 at 5 or less.
func TestMarkersExitZeroAtAnyDescriptorLimit(t *testing.T) {
	markers := []string{"phase begin x", "event e", "counter c", "phase end x"}
	var script strings.Builder
	fmt.Fprint(&script, `ulimit -n "$1" || exit 9`)
	for _, m := range markers {
		fmt.Fprintf(&script, `; "$0" %s; echo "%s: $?"`, m, m)
	}
	for n := lowestShellLimit(t); n <= 16; n++ {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			outside, _ := inShell(t, dir, script.String(), fmt.Sprint(n))
			inside, code := inShell(t, dir, `exec "$0" run --out "$1" --summary off -- sh -c "$2" "$0" "$3"`,
				filepath.Join(dir, "out"), script.String(), fmt.Sprint(n))
			if code != 0 {
				t.Errorf("run under whose job the markers ran: exit %d:\n%s", code, inside)
			}
			for what, out := range map[string]string{"outside a run": outside, "inside a run": inside} {
				for _, m := range markers {
					if !strings.Contains(out, m+": 0\n") {
						t.Errorf("%s under ulimit -n %d: %s did not exit 0:\n%s", what, n, m, out)
					}
				}
				if strings.Contains(out, "fatal error") || strings.Contains(out, "goroutine ") {
					t.Errorf("%s under ulimit -n %d: jobtrace died:\n%s", what, n, out)
				}
			}
		})
	}
}

// TestSteppingAsideKeepsTheShellsExitCodes: a command that is not found
// exits 127 and one that cannot be run 126, as `jobtrace exec` documents,
// whether jobtrace runs it or, with too few descriptors, steps aside for
// it, and the reason is said.
func TestSteppingAsideKeepsTheShellsExitCodes(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "not-executable")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	n := lowestShellLimit(t)
	for _, tc := range []struct {
		cmd, says string
		code      int
	}{
		{"no-such-command-here", "command not found", 127},
		{filepath.Join(dir, "no-such-file"), "no such file or directory", 127},
		{notExec, "permission denied", 126},
	} {
		for _, args := range []string{"exec step -- " + tc.cmd, `run --out "$1" --summary off -- ` + tc.cmd} {
			out, code := withFewDescriptors(t, dir, n, args, filepath.Join(dir, "out"))
			if code != tc.code || !strings.Contains(out, tc.says) || !strings.Contains(out, "too few file descriptors") {
				t.Errorf("%s under ulimit -n %d: exit %d, want %d, saying %q and that jobtrace stepped aside; got:\n%s", args, n, code, tc.code, tc.says, out)
			}
		}
	}
}
