package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/jobtrace/jobtrace/internal/spooltest"
)

// The worker traces its phases around the task's command, whose own phase
// nests under it, exits with the command's code, and uploads jobtrace's
// artifacts and the task's.
func TestWorker(t *testing.T) {
	dir := t.TempDir()
	out, upload := filepath.Join(dir, "out"), filepath.Join(dir, "upload")
	code := run(context.Background(), []string{"-out", out, "-upload", upload, "-name", "build", "--",
		"sh", "-c", `echo BEGIN_PHASE own; echo built > artifacts/result.txt; echo END_PHASE own; exit 3`})
	if code != 3 {
		t.Errorf("exit code %d, want the task's 3", code)
	}
	got := spooltest.Read(t, filepath.Join(out, "spans.otlp.jsonl"))
	for name, parent := range map[string]string{
		"image pull": "build", "cache setup": "build", "task": "build", "own": "task", "artifact upload": "build",
	} {
		if got[name].Parent != parent {
			t.Errorf("%s: parent %q, want %q", name, got[name].Parent, parent)
		}
	}
	if r := got["build"].Attrs["cicd.pipeline.task.run.result"]; r != "failure" {
		t.Errorf("the task's result %v", r)
	}
	for _, f := range []string{"jobtrace/spans.otlp.jsonl", "jobtrace/resource-usage.csv", "jobtrace/profile.json", "task/result.txt"} {
		if st, err := os.Stat(filepath.Join(upload, f)); err != nil || st.Size() == 0 {
			t.Errorf("uploaded %s: %v", f, err)
		}
	}
}
