package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// The GitHub Action of this repository (action.yml, .github/action/*.js)
// is run here as the runner runs it: each entry point with node, in the
// environment the runner gives a step (INPUT_*, STATE_*, GITHUB_ENV,
// GITHUB_STATE, GITHUB_PATH, GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
// RUNNER_TEMP), the job's steps as processes in between with the
// environment GITHUB_ENV gave them, and the REST API a fake on a real
// server.

// actionRoot is the repository's root, where action.yml is.
func actionRoot(t *testing.T) string {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// runner is one job of a fake runner: its files, and the variables it
// gives every step.
type runner struct {
	t     *testing.T
	dir   string
	env   map[string]string
	state map[string]string
}

func newRunner(t *testing.T, api string, inputs map[string]string) *runner {
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the action's entry points are not run (CI installs nodejs)")
	}
	dir := t.TempDir()
	r := &runner{t: t, dir: dir, state: map[string]string{}, env: map[string]string{
		"PATH": os.Getenv("PATH"), "HOME": dir,
		"GITHUB_ACTIONS": "true", "GITHUB_API_URL": api, "GITHUB_REPOSITORY": "octo-org/octo-repo",
		"GITHUB_RUN_ID": "29679449", "GITHUB_RUN_ATTEMPT": "2", "GITHUB_JOB": "build",
		"RUNNER_NAME": "GitHub Actions 13", "RUNNER_TEMP": filepath.Join(dir, "temp"), "RUNNER_TOOL_CACHE": filepath.Join(dir, "toolcache"),
		"GITHUB_WORKSPACE": filepath.Join(dir, "work"), "GITHUB_ACTION_REF": "v1",
	}}
	for _, d := range []string{"temp", "toolcache", "work"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"GITHUB_ENV", "GITHUB_STATE", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY"} {
		r.env[f] = filepath.Join(dir, strings.ToLower(f))
		if err := os.WriteFile(r.env[f], nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for k, v := range inputs {
		r.env["INPUT_"+strings.ToUpper(k)] = v
	}
	endAgentWithTest(t, filepath.Join(r.env["GITHUB_WORKSPACE"], "jobtrace-out"))
	return r
}

// environ is a step's environment: the runner's variables, what earlier
// steps put in GITHUB_ENV and GITHUB_PATH, the action's saved state
// (STATE_*, for the action's own entry points), and extra.
func (r *runner) environ(withState bool, extra ...string) []string {
	env := map[string]string{}
	for k, v := range r.env {
		env[k] = v
	}
	for k, v := range r.fileCommands("GITHUB_ENV") {
		env[k] = v
	}
	if data, err := os.ReadFile(r.env["GITHUB_PATH"]); err == nil {
		for _, p := range strings.Fields(string(data)) {
			env["PATH"] = p + string(os.PathListSeparator) + env["PATH"]
		}
	}
	if withState {
		for k, v := range r.fileCommands("GITHUB_STATE") {
			env["STATE_"+k] = v
		}
	}
	var out []string
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	return append(out, extra...)
}

// fileCommands reads a runner file of NAME=VALUE and NAME<<DELIM lines.
func (r *runner) fileCommands(file string) map[string]string {
	out := map[string]string{}
	f, err := os.Open(r.env[file])
	if err != nil {
		r.t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if name, delim, ok := strings.Cut(line, "<<"); ok {
			var val []string
			for sc.Scan() && sc.Text() != delim {
				val = append(val, sc.Text())
			}
			out[name] = strings.Join(val, "\n")
		} else if k, v, ok := strings.Cut(line, "="); ok {
			out[k] = v
		}
	}
	return out
}

// entry runs one entry point of the action (pre, main, post), as the
// runner does, and returns its output.
func (r *runner) entry(name string) string {
	r.t.Helper()
	cmd := exec.Command("node", filepath.Join(actionRoot(r.t), ".github", "action", name+".js"))
	cmd.Dir = r.env["GITHUB_WORKSPACE"]
	cmd.Env = r.environ(true)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("%s: %v\n%s", name, err, out)
	}
	return string(out)
}

// step runs a step of the job, a shell script.
func (r *runner) step(script string) {
	r.t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = r.env["GITHUB_WORKSPACE"]
	cmd.Env = r.environ(false)
	if out, err := cmd.CombinedOutput(); err != nil && !strings.Contains(script, "exit 1") {
		r.t.Fatalf("step %q: %v\n%s", script, err, out)
	}
}

// doubleAttr is the value of a double attribute of s, 0 when absent.
func doubleAttr(s *tracepb.Span, key string) float64 {
	for _, kv := range s.GetAttributes() {
		if kv.Key == key {
			return kv.Value.GetDoubleValue()
		}
	}
	return 0
}

func nodePath(t *testing.T) string {
	p, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	return p
}

func goEnv(t *testing.T, key string) string {
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}
