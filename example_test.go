package jobtrace_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/jobtrace/jobtrace"
)

// exampleOut is a directory for an example's artifacts, and its removal.
func exampleOut() (string, func()) {
	dir, err := os.MkdirTemp("", "jobtrace-example-")
	if err != nil {
		log.Fatal(err)
	}
	return dir, func() { os.RemoveAll(dir) }
}

// A worker traces a task: its own phases around the task's command, which
// adds a phase of its own, then the artifacts to upload.
func Example() {
	ctx := context.Background()
	out, remove := exampleOut()
	defer remove()

	t, err := jobtrace.Start(ctx, jobtrace.WithName("build"), jobtrace.WithOut(out), jobtrace.WithLog(io.Discard))
	if err != nil {
		log.Fatal(err)
	}
	err = t.Phase(ctx, "cache setup", func(ctx context.Context) error {
		return os.MkdirAll(filepath.Join(out, "cache"), 0o755)
	})
	if err != nil {
		log.Print(err)
	}
	// The task's command: a phase of its own, named in its output.
	cmd := exec.CommandContext(ctx, "sh", "-c", `echo "BEGIN_PHASE compile"; echo compiling; echo "END_PHASE compile"`)
	cmd.Stdout = os.Stdout
	taskErr := t.Run("task", cmd)

	a, err := t.Stop(ctx, jobtrace.ResultOf(taskErr))
	if err != nil {
		log.Print(err)
	}
	for _, p := range a.Paths() {
		fmt.Println(filepath.Base(p))
	}
	// Output:
	// BEGIN_PHASE compile
	// compiling
	// END_PHASE compile
	// spans.otlp.jsonl
	// resource-usage.csv
	// report.html
	// usage.svg
	// profile.json
}

// Phase ends the phase with the result of what its function returns.
func ExampleTask_Phase() {
	ctx := context.Background()
	out, remove := exampleOut()
	defer remove()
	t, err := jobtrace.Start(ctx, jobtrace.WithOut(out), jobtrace.WithInterval(0), jobtrace.WithLog(io.Discard))
	if err != nil {
		log.Fatal(err)
	}
	err = t.Phase(ctx, "artifact upload", func(ctx context.Context) error {
		return context.DeadlineExceeded // an upload that timed out
	})
	fmt.Println(jobtrace.ResultOf(err))
	if _, err := t.Stop(ctx, jobtrace.Failure); err != nil {
		log.Print(err)
	}
	// Output: timeout
}

// Env gives a command the worker starts itself what it needs to add
// phases to the task: `jobtrace phase begin NAME` or a line in a file of
// the marker dir.
func ExampleTask_Env() {
	ctx := context.Background()
	out, remove := exampleOut()
	defer remove()
	t, err := jobtrace.Start(ctx, jobtrace.WithOut(out), jobtrace.WithLog(io.Discard))
	if err != nil {
		log.Fatal(err)
	}
	cmd := exec.Command("sh", "-c", `echo '{"v":1,"type":"event","name":"cache hit"}' >> "$JOBTRACE_MARKER_DIR/$$.jsonl"`)
	cmd.Env = t.Env(os.Environ())
	if err := cmd.Run(); err != nil {
		log.Print(err)
	}
	if _, err := t.Stop(ctx, jobtrace.Success); err != nil {
		log.Print(err)
	}
}

// WithEnv opts in to the standard OTEL_* variables, such as
// OTEL_EXPORTER_OTLP_ENDPOINT; options given with it win over them.
func ExampleWithEnv() {
	ctx := context.Background()
	t, err := jobtrace.Start(ctx, jobtrace.WithEnv(nil), jobtrace.WithExportTimeout(5*time.Second), jobtrace.WithOut("jobtrace-out"))
	if err != nil {
		log.Fatal(err) // a bad OTEL_* value, named
	}
	if _, err := t.Stop(ctx, jobtrace.Success); err != nil {
		log.Print(err) // the collector did not take every span
	}
}
