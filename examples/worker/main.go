// Command worker is a small CI worker built on package jobtrace, in the
// manner of Taskcluster's generic-worker: it traces a task's whole
// lifecycle, its own phases around the task's command, and leaves the
// artifacts in an upload directory.
//
//	worker [-out DIR] [-upload DIR] [-name NAME] [-otel-env] [-- COMMAND [ARGS...]]
//
// Its phases are "image pull" (an image downloaded from an HTTP server the
// worker starts on loopback, and checked), "cache setup" (the image
// unpacked into the task's cache), "task" (the command, by default a
// script that adds phases of its own with `jobtrace phase` when jobtrace is
// on PATH, and with markers in its output otherwise), and "artifact upload"
// (what the task left in its artifacts directory copied to the upload
// directory). Once the task is stopped, jobtrace's own artifacts are copied
// there too, under jobtrace/. The worker exits with the task's exit code.
package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace"
	"github.com/jobtrace/jobtrace/internal/safefile"
)

// imageBytes is the size of the image the worker pulls: large enough that
// the download shows on the machine's network figures, small enough to be
// made in memory.
const imageBytes = 16 << 20

// defaultScript is the task run when no command is given: two phases of
// its own, one with `jobtrace phase` when jobtrace is on PATH (else with
// an output marker), one with output markers; and an artifact.
const defaultScript = `set -e
if command -v jobtrace >/dev/null 2>&1; then
	jobtrace phase begin compile
	i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done
	jobtrace phase end compile
else
	echo "BEGIN_PHASE compile"
	i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done
	echo "END_PHASE compile"
fi
echo "BEGIN_PHASE test"
sha256sum cache/image.tar > artifacts/image.sha256
echo "tests passed"
echo "END_PHASE test"
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// run is the worker: it returns its exit code.
func run(ctx context.Context, args []string) int {
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	out := fs.String("out", "jobtrace-out", "`dir`ectory of jobtrace's artifacts")
	upload := fs.String("upload", "worker-upload", "`dir`ectory the artifacts are uploaded to")
	name := fs.String("name", "task", "the task's `name`")
	otelEnv := fs.Bool("otel-env", false, "read the OTEL_* variables (OTEL_EXPORTER_OTLP_ENDPOINT, ...)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	command := fs.Args()
	if len(command) == 0 {
		command = []string{"sh", "-c", defaultScript}
	}
	work, err := os.MkdirTemp("", "worker-task-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}
	defer os.RemoveAll(work)

	opts := []jobtrace.Option{
		jobtrace.WithName(*name), jobtrace.WithOut(*out), jobtrace.WithSummary("text"),
		jobtrace.WithAttributes(attribute.String("worker.type", "example")),
	}
	if *otelEnv {
		opts = append(opts, jobtrace.WithEnv(nil))
	}
	t, err := jobtrace.Start(ctx, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1
	}

	code, result := runTask(ctx, t, work, *upload, command)
	a, err := t.Stop(context.WithoutCancel(ctx), result)
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
	}
	dst := filepath.Join(*upload, "jobtrace")
	if err := copyFiles(a.Paths(), dst); err != nil {
		fmt.Fprintln(os.Stderr, "worker: uploading jobtrace's artifacts:", err)
		return 1
	}
	fmt.Printf("worker: task %s, trace %s; jobtrace's artifacts in %s, uploaded to %s\n", result, a.TraceID, a.Dir, dst)
	return code
}

// runTask runs the task's lifecycle in work and returns the worker's exit
// code and the task's result. A phase of the worker's own that fails ends
// the task with jobtrace.Errored before its command runs.
func runTask(ctx context.Context, t *jobtrace.Task, work, upload string, command []string) (int, jobtrace.Result) {
	cache := filepath.Join(work, "cache")
	var image string
	err := t.Phase(ctx, "image pull", func(ctx context.Context) (err error) {
		image, err = pullImage(ctx, work)
		return err
	})
	if err == nil {
		err = t.Phase(ctx, "cache setup", func(context.Context) error {
			if err := os.MkdirAll(filepath.Join(work, "artifacts"), 0o755); err != nil {
				return err
			}
			return copyFiles([]string{image}, cache)
		})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		return 1, jobtrace.Errored
	}

	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr = work, nil, os.Stdout, os.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 10 * time.Second
	taskErr := t.Run("task", cmd)
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(taskErr, &ee):
		code = ee.ExitCode()
		if code < 0 {
			code = 1
		}
	case taskErr != nil:
		fmt.Fprintln(os.Stderr, "worker:", taskErr)
		code = 1
	}

	err = t.Phase(ctx, "artifact upload", func(context.Context) error {
		left, err := filepath.Glob(filepath.Join(work, "artifacts", "*"))
		if err != nil {
			return err
		}
		return copyFiles(left, filepath.Join(upload, "task"))
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		if code == 0 {
			return 1, jobtrace.Errored
		}
	}
	return code, jobtrace.ResultOf(taskErr)
}

// pullImage downloads an image from a registry the worker serves itself on
// loopback for the time of the pull, checks its digest, and returns where
// it is.
func pullImage(ctx context.Context, dir string) (string, error) {
	image := make([]byte, imageBytes)
	rand.Read(image)
	digest := sha256.Sum256(image)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(image)
	})}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	defer func() {
		srv.Close()
		<-served
	}()

	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+ln.Addr().String()+"/image.tar", nil)
	if err != nil {
		return "", err
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	path, h := filepath.Join(dir, "image.tar"), sha256.New()
	err = safefile.Replace(path, 0o644, func(w io.Writer) error {
		_, err := io.Copy(io.MultiWriter(w, h), resp.Body)
		return err
	})
	if err != nil {
		return "", err
	}
	if got := h.Sum(nil); string(got) != string(digest[:]) {
		return "", fmt.Errorf("image digest %x, want %x", got, digest)
	}
	return path, nil
}

// copyFiles copies files into dir, made if need be.
func copyFiles(files []string, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, p := range files {
		if err := copyFile(p, filepath.Join(dir, filepath.Base(p))); err != nil {
			return err
		}
	}
	return nil
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	return safefile.Replace(dst, 0o644, func(w io.Writer) error {
		_, err := io.Copy(w, in)
		return err
	})
}
