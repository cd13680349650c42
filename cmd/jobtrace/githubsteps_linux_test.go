package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// stepsAPI is the REST API with the run attempt's jobs; the running one's
// steps are set by the test as the job goes on, times cut to the second as
// GitHub gives them.
type stepsAPI struct {
	mu    sync.Mutex
	steps []string
	token string
	calls int
}

func (a *stepsAPI) add(n int, name, status, conclusion string, start, end time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.steps = append(a.steps, stepJSON(n, name, status, conclusion, start.Truncate(time.Second), end.Truncate(time.Second)))
}

func (a *stepsAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls++
	if r.Header.Get("Authorization") != "Bearer "+a.token {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"message":"Bad credentials"}`)
		return
	}
	fmt.Fprint(w, jobsPayload(strings.Join(a.steps, ",")))
}

// githubEnv is what the runner gives a step about the run, with the API
// at api.
func githubEnv(api string) []string {
	return []string{"GITHUB_API_URL=" + api, "GITHUB_REPOSITORY=octo-org/octo-repo", "GITHUB_RUN_ID=29679449",
		"GITHUB_RUN_ATTEMPT=2", "GITHUB_JOB=build", "RUNNER_NAME=GitHub Actions 13"}
}

// `jobtrace stop --github-steps` makes the job's completed steps phases of
// it, with their usage, and takes the job's result from them.
func TestStopGitHubSteps(t *testing.T) {
	api := &stepsAPI{token: "ghs_job-token"}
	srv := httptest.NewServer(api)
	defer srv.Close()
	j := newJob(t)
	env := j.start(nil, "--name", "build", "--interval", "100ms")
	start := time.Now()
	if r := j.sh(env, "sh", "-c", `end=$(($(date +%s) + 2)); while [ $(date +%s) -lt $end ]; do :; done`); r.code != 0 {
		t.Fatalf("step: %d %s", r.code, r.stderr)
	}
	api.add(1, "Run make", "completed", "success", start, time.Now())
	s := time.Now()
	j.sh(env, "sh", "-c", "exit 1")
	api.add(2, "Run go test ./...", "completed", "failure", s, time.Now())
	api.add(3, "Post Run jobtrace/jobtrace@v1", "in_progress", "", time.Now(), time.Time{})

	r := j.run(append(githubEnv(srv.URL), "GITHUB_TOKEN=ghs_job-token"), "stop", "--github-steps")
	if r.code != 0 || !strings.Contains(r.stderr, `2 steps of job "build (ubuntu-latest, 1.23)" traced; 1 not run or not finished`) {
		t.Fatalf("stop: exit %d\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "ghs_job-token") {
		t.Errorf("stop printed the token:\n%s", r.stderr)
	}
	spans, _ := spansOf(t, j.out())
	job := spans["build"]
	if job == nil || attrOf(job, "cicd.pipeline.task.run.result") != "failure" {
		t.Fatalf("the job's span: %v", job)
	}
	for _, name := range []string{"Run make", "Run go test ./..."} {
		if sp := spans[name]; sp == nil || string(sp.ParentSpanId) != string(job.SpanId) || attrOf(sp, "jobtrace.usage.samples") == "" {
			t.Errorf("step %q: %v", name, sp)
		}
	}
}
