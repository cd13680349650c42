//go:build unix

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jobtrace/jobtrace/internal/timingtest"
)

// ignoring returns a command that runs the binary with args, started with
// SIGHUP and SIGINT ignored, as nohup starts a command and a shell one it
// runs in the background with &.
func ignoring(dir string, args ...string) *exec.Cmd {
	cmd := exec.Command("sh", append([]string{"-c", `trap '' HUP INT; exec "$0" "$@"`, bin}, args...)...)
	cmd.Dir = dir
	return cmd
}

// TestIgnoredSignalsStayIgnoredForTheJob starts jobtrace with SIGHUP and
// SIGINT ignored: the job, and the command of `jobtrace exec`, inherit them
// ignored as they would without jobtrace, and jobtrace does not pass them
// on. Before, the job got them with their default action and a SIGHUP to
// jobtrace was passed on: the job of `nohup jobtrace run` died at the
// hang-up (129), one that sent itself SIGINT too (130).
func TestIgnoredSignalsStayIgnoredForTheJob(t *testing.T) {
	job := `kill -HUP $$; kill -INT $$; echo survived; exit 3`
	for _, args := range [][]string{
		{"run", "--out", "o", "--", "sh", "-c", job},
		{"exec", "step", "--", "sh", "-c", job},
	} {
		t.Run(args[0], func(t *testing.T) {
			res := runCmd(t, ignoring(t.TempDir(), args...))
			if res.code != 3 || !strings.Contains(res.stdout, "survived") {
				t.Errorf("exit %d, stdout %q, stderr %q; want 3 and survived, as without jobtrace", res.code, res.stdout, res.stderr)
			}
		})
	}
	// A SIGHUP, then a SIGTERM, to jobtrace: only the SIGTERM is passed on,
	// after the SIGHUP, had it been.
	t.Run("hang-up", func(t *testing.T) {
		dir := t.TempDir()
		cmd := ignoring(dir, "run", "--out", "o", "--", "sh", "-c",
			`trap 'echo terminated; exit 5' TERM; touch started; while :; do sleep 0.01; done`)
		var so, se bytes.Buffer
		cmd.Stdout, cmd.Stderr = &so, &se
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Process.Kill()
		deadline := time.Now().Add(timingtest.Patience)
		for {
			if _, err := os.Stat(filepath.Join(dir, "started")); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the job did not start")
			}
			time.Sleep(10 * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGHUP)
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
		if code := cmd.ProcessState.ExitCode(); code != 5 || !strings.Contains(so.String(), "terminated") {
			t.Errorf("exit %d, stdout %q, stderr %q; want 5 from the job's SIGTERM: the hang-up reached it", code, so.String(), se.String())
		}
	})
}
