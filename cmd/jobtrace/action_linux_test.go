package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"
)

func TestActionYAML(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(actionRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a struct {
		Inputs map[string]struct {
			Default string `yaml:"default"`
		} `yaml:"inputs"`
		Runs map[string]string `yaml:"runs"`
	}
	if err := yaml.Unmarshal(data, &a); err != nil {
		t.Fatal(err)
	}
	if a.Runs["using"] != "node24" || a.Runs["post-if"] != "always()" {
		t.Errorf("runs: %v", a.Runs)
	}
	for _, e := range []string{"pre", "main", "post"} {
		if _, err := os.Stat(filepath.Join(actionRoot(t), a.Runs[e])); err != nil {
			t.Errorf("runs.%s: %v", e, err)
		}
	}
	// Every input the entry points read is declared, and the other way
	// round.
	lib, err := os.ReadFile(filepath.Join(actionRoot(t), ".github", "action", "lib.js"))
	if err != nil {
		t.Fatal(err)
	}
	for name := range a.Inputs {
		if !strings.Contains(string(lib), "input('"+name+"')") {
			t.Errorf("input %s is not read by the entry points", name)
		}
	}
	for _, read := range strings.Split(string(lib), "input('")[1:] {
		name, _, _ := strings.Cut(read, "'")
		if _, ok := a.Inputs[name]; !ok {
			t.Errorf("the entry points read input %s, which action.yml does not declare", name)
		}
	}
	if a.Inputs["github-token"].Default != "${{ github.token }}" || a.Inputs["out"].Default != "jobtrace-out" {
		t.Errorf("defaults: %+v", a.Inputs)
	}
}

// A job traced by the action: pre starts the agent, the steps run with
// the environment it gave them, post adds the steps as phases and stops
// the job; the summary is in the step summary, the spans in the out
// directory.
func TestActionTracesTheJob(t *testing.T) {
	api := &stepsAPI{token: "ghs_job-token"}
	srv := httptest.NewServer(api)
	defer srv.Close()
	r := newRunner(t, srv.URL, map[string]string{"binary": bin, "out": "jobtrace-out", "github-token": "ghs_job-token"})

	preStart := time.Now()
	out := r.entry("pre")
	preEnd := time.Now()
	env := r.fileCommands("GITHUB_ENV")
	if env["JOBTRACE_SOCKET"] == "" || env["TRACEPARENT"] == "" {
		t.Fatalf("pre wrote no environment for the steps: %v\n%s", env, out)
	}
	st := r.fileCommands("GITHUB_STATE")
	outDir := filepath.Join(r.env["GITHUB_WORKSPACE"], "jobtrace-out")
	if st["binary"] != bin || st["out"] != outDir || r.fileCommands("GITHUB_OUTPUT")["out"] != outDir {
		t.Errorf("state %v, outputs %v", st, r.fileCommands("GITHUB_OUTPUT"))
	}
	api.add(1, "Set up job", "completed", "success", preStart.Add(-2*time.Second), preStart)
	api.add(2, "Pre Run jobtrace/jobtrace@v1", "completed", "success", preStart, preEnd)

	if out := r.entry("main"); strings.Contains(out, "::warning") {
		t.Errorf("main: %s", out)
	}
	// The steps: one that works for more than a second (so that its
	// times, cut to the second, hold samples), one that fails, and one
	// that uses jobtrace on PATH.
	for i, step := range []struct{ name, conclusion, script string }{
		{"Run make", "success", `i=0; end=$(($(date +%s) + 2)); while [ $(date +%s) -lt $end ]; do i=$((i+1)); done`},
		{"Run go test ./...", "failure", `exit 1`},
		{"Run jobtrace event from-a-step", "success", `jobtrace event from-a-step`},
	} {
		s := time.Now()
		r.step(step.script)
		api.add(3+i, step.name, "completed", step.conclusion, s, time.Now())
	}
	api.add(6, "Run ./deploy.sh", "completed", "skipped", time.Time{}, time.Time{})
	api.add(7, "Post Run jobtrace/jobtrace@v1", "in_progress", "", time.Now(), time.Time{})
	api.add(8, "Complete job", "queued", "", time.Time{}, time.Time{})

	out = r.entry("post")
	if strings.Contains(out, "::warning") || !strings.Contains(out, `steps of job "build (ubuntu-latest, 1.23)" traced`) {
		t.Errorf("post:\n%s", out)
	}
	if strings.Contains(out, "ghs_job-token") {
		t.Errorf("post printed the token:\n%s", out)
	}
	summary, _ := os.ReadFile(r.env["GITHUB_STEP_SUMMARY"])
	if !strings.Contains(string(summary), "Run make") {
		t.Errorf("step summary:\n%s", summary)
	}
	spans, _ := spansOf(t, outDir)
	job := spans["build"]
	if job == nil {
		t.Fatalf("no job span among %d spans", len(spans))
	}
	if attrOf(job, "cicd.pipeline.task.run.result") != "failure" {
		t.Errorf("the job's result: %q, want failure (a step failed)", attrOf(job, "cicd.pipeline.task.run.result"))
	}
	for _, name := range []string{"Pre Run jobtrace/jobtrace@v1", "Run make", "Run go test ./...", "Run jobtrace event from-a-step"} {
		sp := spans[name]
		if sp == nil || string(sp.ParentSpanId) != string(job.SpanId) {
			t.Errorf("step %q is not a phase of the job", name)
		}
	}
	// Its usage: the samples around it, and the machine's CPU busy with
	// it at least.
	if m := spans["Run make"]; m == nil || attrOf(m, "jobtrace.usage.samples") == "" || attrOf(m, "jobtrace.usage.window.start") == "" ||
		doubleAttr(m, "jobtrace.system.cpu.utilization.avg") <= 0 {
		t.Errorf("Run make has no usage: %v", m.GetAttributes())
	}
	if attrOf(spans["Run go test ./..."], "cicd.pipeline.task.run.result") != "failure" {
		t.Errorf("the failed step: %v", spans["Run go test ./..."].GetAttributes())
	}
	for _, name := range []string{"Run ./deploy.sh", "Post Run jobtrace/jobtrace@v1", "Complete job"} {
		if spans[name] != nil {
			t.Errorf("step %q traced", name)
		}
	}
}

// The job goes on, and is stopped, without the steps' API: without a
// token, post warns once, and the job's spans and summary are written.
func TestActionWithoutToken(t *testing.T) {
	api := &stepsAPI{token: "ghs_job-token"}
	srv := httptest.NewServer(api)
	defer srv.Close()
	r := newRunner(t, srv.URL, map[string]string{"binary": bin, "out": "jobtrace-out"})
	r.entry("pre")
	r.step(`true`)
	out := r.entry("post")
	if n := strings.Count(out, "warning"); n != 1 || !strings.Contains(out, "missing the job's token") {
		t.Errorf("post, %d warnings:\n%s", n, out)
	}
	if api.calls != 0 {
		t.Errorf("the API was called %d times without a token", api.calls)
	}
	spans, _ := spansOf(t, filepath.Join(r.env["GITHUB_WORKSPACE"], "jobtrace-out"))
	if spans["build"] == nil {
		t.Errorf("no job span")
	}
	summary, _ := os.ReadFile(r.env["GITHUB_STEP_SUMMARY"])
	if len(summary) == 0 {
		t.Errorf("no step summary")
	}
}

// Without Go on the runner and without a binary, pre leaves the start to
// main, which warns, and the job goes on untraced: post does nothing.
func TestActionWithoutGo(t *testing.T) {
	r := newRunner(t, "http://127.0.0.1:1", nil)
	onlyNode := t.TempDir()
	if err := os.Symlink(nodePath(t), filepath.Join(onlyNode, "node")); err != nil {
		t.Fatal(err)
	}
	r.env["PATH"] = onlyNode
	if out := r.entry("pre"); strings.Contains(out, "::warning") || !strings.Contains(out, "no Go on PATH yet") {
		t.Errorf("pre:\n%s", out)
	}
	out := r.entry("main")
	if strings.Count(out, "::warning") != 1 || !strings.Contains(out, "::warning title=jobtrace::no Go on this runner") {
		t.Errorf("main:\n%s", out)
	}
	if st := r.fileCommands("GITHUB_STATE"); st["binary"] != "" {
		t.Errorf("state saved: %v", st)
	}
	if out := r.entry("post"); out != "" {
		t.Errorf("post of a job not traced:\n%s", out)
	}
}

// A local action (uses: ./) has no pre step: main starts the agent, and
// builds jobtrace from the action's checkout with Go.
func TestActionBuildsInMain(t *testing.T) {
	if testing.Short() {
		t.Skip("builds jobtrace")
	}
	r := newRunner(t, "http://127.0.0.1:1", map[string]string{"out": "jobtrace-out"})
	r.env["GOCACHE"], r.env["GOPATH"], r.env["GOFLAGS"] = goEnv(t, "GOCACHE"), goEnv(t, "GOPATH"), "-buildvcs=false"
	r.entry("main")
	st := r.fileCommands("GITHUB_STATE")
	if !strings.HasPrefix(st["binary"], r.env["RUNNER_TOOL_CACHE"]) {
		t.Fatalf("state %v: not built into the tool cache", st)
	}
	if env := r.fileCommands("GITHUB_ENV"); env["JOBTRACE_SOCKET"] == "" {
		t.Errorf("main did not start the agent: %v", env)
	}
	out := r.entry("post")
	if !strings.Contains(out, "warning") {
		t.Errorf("post without an API:\n%s", out)
	}
}
