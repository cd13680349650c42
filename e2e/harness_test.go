package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// binaries holds the paths of the programs TestMain builds into .cache/bin.
var binaries struct {
	dir       string
	jaeger    string
	otelcol   string
	childspan string
	jobtrace  string
	// jobtraceMissing is set when ../cmd/jobtrace has no Go files yet: the
	// tests that need the binary skip. A jobtrace that exists but does not
	// build is a failure, not a skip.
	jobtraceMissing bool
	jobtraceErr     error
}

// TestMain builds everything before m.Run, so a cold build (Jaeger alone
// takes minutes on two cores) does not count against `go test -timeout`.
// Each build is a plain `go build -o`: the Go build cache makes it cheap when
// nothing changed, and it rebuilds whatever is stale.
func TestMain(m *testing.M) {
	if err := buildAll(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		os.Exit(1)
	}
	os.Exit(m.Run())
}

func buildAll() error {
	e2eDir, err := os.Getwd()
	if err != nil {
		return err
	}
	rootDir := filepath.Dir(e2eDir)
	binaries.dir = filepath.Join(e2eDir, ".cache", "bin")
	if err := os.MkdirAll(binaries.dir, 0o755); err != nil {
		return err
	}
	binaries.jaeger = filepath.Join(binaries.dir, "jaeger")
	binaries.otelcol = filepath.Join(binaries.dir, "otelcol")
	binaries.childspan = filepath.Join(binaries.dir, "childspan")
	binaries.jobtrace = filepath.Join(binaries.dir, "jobtrace")

	builds := []struct{ dir, out, pkg string }{
		{e2eDir, binaries.jaeger, "github.com/jaegertracing/jaeger/cmd/jaeger"},
		{filepath.Join(e2eDir, "otelcol"), binaries.otelcol, "."},
		{e2eDir, binaries.childspan, "./cmd/childspan"},
	}
	for _, b := range builds {
		if err := goBuild(b.dir, b.out, b.pkg); err != nil {
			return err
		}
	}

	if !hasGoFiles(filepath.Join(rootDir, "cmd", "jobtrace")) {
		binaries.jobtraceMissing = true
		fmt.Fprintln(os.Stderr, "e2e: ../cmd/jobtrace has no Go files yet; the jobtrace tests will skip")
		return nil
	}
	// As README's install command builds it.
	binaries.jobtraceErr = goBuild(rootDir, binaries.jobtrace, "./cmd/jobtrace", "CGO_ENABLED=0")
	return nil
}

func goBuild(dir, out, pkg string, env ...string) error {
	start := time.Now()
	cmd := exec.Command("go", "build", "-buildvcs=false", "-o", out, pkg)
	cmd.Env = append(os.Environ(), env...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build -o %s %s (in %s): %w\n%s", out, pkg, dir, err, stderr.String())
	}
	fmt.Fprintf(os.Stderr, "e2e: go build %s: %s\n", pkg, time.Since(start).Round(100*time.Millisecond))
	return nil
}

func hasGoFiles(dir string) bool {
	matches, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	for _, m := range matches {
		if !strings.HasSuffix(m, "_test.go") {
			return true
		}
	}
	return false
}

// requireJobtrace skips the test while the CLI does not exist yet and fails
// it when the CLI exists but does not build.
func requireJobtrace(t *testing.T) string {
	t.Helper()
	if binaries.jobtraceMissing {
		t.Skip("../cmd/jobtrace does not exist yet: nothing to test")
	}
	if binaries.jobtraceErr != nil {
		t.Fatalf("building jobtrace: %v", binaries.jobtraceErr)
	}
	return binaries.jobtrace
}

// freePorts returns n loopback addresses whose ports were free a moment ago.
// All n listeners are open at once, so the n ports differ. The servers we
// start bind them themselves, so there is a short window in which another
// process could take one; on a test machine that is rare enough.
func freePorts(t *testing.T, n int) []string {
	t.Helper()
	addrs := make([]string, n)
	for i := range addrs {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatalf("finding a free port: %v", err)
		}
		defer l.Close()
		addrs[i] = l.Addr().String()
	}
	return addrs
}

// process is a server started by the harness. Its output goes to a log file
// that survives restarts and is printed when the test fails.
type process struct {
	name    string
	bin     string
	args    []string
	env     []string // added to the clean environment
	logPath string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func newProcess(t *testing.T, name, bin string, args ...string) *process {
	t.Helper()
	p := &process{
		name:    name,
		bin:     bin,
		args:    args,
		logPath: filepath.Join(t.TempDir(), name+".log"),
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("last lines of the %s log:\n%s", p.name, tailFile(p.logPath, 40))
		}
		if err := p.stop(10 * time.Second); err != nil {
			t.Logf("stopping %s: %v", p.name, err)
		}
	})
	return p
}

func (p *process) start() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		return fmt.Errorf("%s is already running", p.name)
	}
	logf, err := os.OpenFile(p.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(p.bin, p.args...)
	cmd.Env = append(cleanEnv(), p.env...)
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.SysProcAttr = serverSysProcAttr()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("starting %s: %w", p.name, err)
	}
	done := make(chan struct{})
	p.cmd, p.done = cmd, done
	go func() {
		err := cmd.Wait()
		logf.Close()
		p.mu.Lock()
		p.err = err
		p.mu.Unlock()
		close(done)
	}()
	return nil
}

// exited reports whether the process has ended, and how.
func (p *process) exited() (bool, error) {
	p.mu.Lock()
	done := p.done
	p.mu.Unlock()
	if done == nil {
		return true, nil
	}
	select {
	case <-done:
		p.mu.Lock()
		defer p.mu.Unlock()
		return true, p.err
	default:
		return false, nil
	}
}

// stop sends SIGTERM (servers built on the collector shut down gracefully
// and flush their queues on it) and SIGKILL after timeout.
func (p *process) stop(timeout time.Duration) error {
	p.mu.Lock()
	cmd, done := p.cmd, p.done
	p.mu.Unlock()
	if cmd == nil {
		return nil
	}
	_ = cmd.Process.Signal(syscall.SIGTERM)
	var err error
	select {
	case <-done:
	case <-time.After(timeout):
		_ = cmd.Process.Kill()
		<-done
		err = fmt.Errorf("%s did not stop within %s after SIGTERM; killed", p.name, timeout)
	}
	p.mu.Lock()
	p.cmd, p.done = nil, nil
	p.mu.Unlock()
	return err
}

// waitUntil polls ready until it returns nil, the process dies or the
// timeout passes.
func (p *process) waitUntil(timeout time.Duration, what string, ready func() error) error {
	deadline := time.Now().Add(timeout)
	for {
		err := ready()
		if err == nil {
			return nil
		}
		if dead, werr := p.exited(); dead {
			return fmt.Errorf("%s exited (%v) before %s:\n%s", p.name, werr, what, tailFile(p.logPath, 40))
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s: not %s after %s: %v", p.name, what, timeout, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func dialable(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	return c.Close()
}

// cleanEnv is the test's environment without trace context, OTel and jobtrace
// settings, and without the variables by which jobtrace recognises a CI
// system (which may add a parent derived from the CI run). So a CI system that
// runs these tests, or a developer's shell, does not change what they see.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !inheritable(k) {
			continue
		}
		env = append(env, kv)
	}
	return env
}

func inheritable(key string) bool {
	switch key {
	case "TRACEPARENT", "TRACESTATE", "BAGGAGE", "TASK_ID":
		return false
	}
	for _, prefix := range []string{
		"OTEL_", "JOBTRACE_",
		"GITHUB_", "GITLAB_", "CI_", "BUILDKITE", "BUILDOMAT_", "JENKINS_", "TASKCLUSTER_",
	} {
		if strings.HasPrefix(key, prefix) {
			return false
		}
	}
	return true
}

func tailFile(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(%v)", err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}

// poll calls f every interval until it returns nil or ctx ends; it returns
// f's last error when it gives up.
func poll(ctx context.Context, interval time.Duration, f func() error) error {
	for {
		err := f()
		if err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return errors.Join(ctx.Err(), err)
		case <-time.After(interval):
		}
	}
}
