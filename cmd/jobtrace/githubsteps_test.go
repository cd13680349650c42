//go:build unix

package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdkresource "go.opentelemetry.io/otel/sdk/resource"

	"github.com/jobtrace/jobtrace/session"
	"github.com/jobtrace/jobtrace/supervise"
)

// jobsPayload is the API's list of jobs of a run attempt, shaped as
// documented, with the running job's steps at the times given.
func jobsPayload(steps string) string {
	return `{"total_count":2,"jobs":[
{"id":1,"run_id":29679449,"run_attempt":2,"status":"in_progress","conclusion":null,"name":"build (ubuntu-latest, 1.22)",
 "runner_name":"GitHub Actions 12","steps":[]},
{"id":2,"run_id":29679449,"run_attempt":2,"status":"in_progress","conclusion":null,"name":"build (ubuntu-latest, 1.23)",
 "runner_name":"GitHub Actions 13","steps":[` + steps + `]}]}`
}

func stepJSON(n int, name, status, conclusion string, start, end time.Time) string {
	at := func(t time.Time) string {
		if t.IsZero() {
			return "null"
		}
		return `"` + t.UTC().Format(time.RFC3339Nano) + `"`
	}
	c := "null"
	if conclusion != "" {
		c = `"` + conclusion + `"`
	}
	return fmt.Sprintf(`{"name":%q,"status":%q,"conclusion":%s,"number":%d,"started_at":%s,"completed_at":%s}`,
		name, status, c, n, at(start), at(end))
}

// The completed steps of the running job become phases of a session's
// job through its socket, with their usage from the samples it holds;
// the steps not run, or not finished, are left out.
func TestGitHubStepsBecomePhases(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	start := time.Now().Add(-10 * time.Second)
	s := session.New(session.Settings{
		Name: "build", Out: dir, ExportTimeout: time.Second, Start: start, Socket: true,
		Sampling: session.SamplingOptions{Interval: time.Hour},
		Resource: sdkresource.Empty(), Summary: "off", Log: supervise.NewLogger(&strings.Builder{}),
	})
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Samples at the boundaries of a phase of the session's own; the
	// steps lie around them.
	t0 := time.Now()
	s.Begin("own")
	s.End("own", "")
	t1 := time.Now()
	steps := strings.Join([]string{
		stepJSON(1, "Set up job", "completed", "success", start.Add(time.Second), start.Add(2*time.Second)),
		stepJSON(2, "Pre Run jobtrace/jobtrace@v1", "completed", "success", start.Add(2*time.Second), t0),
		stepJSON(3, "Run make", "completed", "failure", t0, t1),
		stepJSON(4, "Run ./deploy.sh", "completed", "skipped", time.Time{}, time.Time{}),
		stepJSON(5, "Post Run jobtrace/jobtrace@v1", "in_progress", "", t1, time.Time{}),
		stepJSON(6, "Complete job", "queued", "", time.Time{}, time.Time{}),
	}, ",")
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer ghs_token" || r.URL.Path != "/repos/octo-org/octo-repo/actions/runs/29679449/attempts/2/jobs" {
			http.Error(w, `{"message":"Not Found"}`, http.StatusNotFound)
			return
		}
		fmt.Fprint(w, jobsPayload(steps))
	}))
	defer api.Close()
	env := map[string]string{"GITHUB_TOKEN": "ghs_token", "GITHUB_API_URL": api.URL, "GITHUB_REPOSITORY": "octo-org/octo-repo",
		"GITHUB_RUN_ID": "29679449", "GITHUB_RUN_ATTEMPT": "2", "RUNNER_NAME": "GitHub Actions 13", "GITHUB_JOB": "build"}
	c := &cli{start: time.Now(), getenv: func(k string) string { return env[k] }}
	var warnings, said []string
	warn := func(s string) { warnings = append(warnings, s) }
	say := func(s string) { said = append(said, s) }
	sock := ""
	for _, kv := range s.JobEnv(nil) {
		if v, ok := strings.CutPrefix(kv, session.EnvSocket+"="); ok {
			sock = v
		}
	}
	if r := c.githubSteps(context.Background(), sock, warn, say); r != "failure" {
		t.Errorf("the job's result from its steps: %q, want failure", r)
	}
	if len(warnings) > 0 || len(said) != 1 || !strings.Contains(said[0], `3 steps of job "build (ubuntu-latest, 1.23)" traced; 3 not run or not finished`) {
		t.Errorf("warnings %q, said %q", warnings, said)
	}
	if _, err := s.Shutdown(context.Background(), session.Outcome{}); err != nil {
		t.Fatal(err)
	}
	spans, _ := spansOf(t, dir)
	job := spans["build"]
	for _, name := range []string{"Set up job", "Pre Run jobtrace/jobtrace@v1", "Run make"} {
		sp := spans[name]
		if sp == nil || string(sp.ParentSpanId) != string(job.SpanId) {
			t.Fatalf("step %q is not a phase of the job: %v", name, sp)
		}
	}
	if m := spans["Run make"]; attrOf(m, "cicd.pipeline.task.run.result") != "failure" || attrOf(m, "jobtrace.github.step.number") != "3" ||
		attrOf(m, "jobtrace.usage.window.start") == "" || attrOf(m, "jobtrace.usage.samples") == "" {
		t.Errorf("Run make: %v", m.Attributes)
	}
	if attrOf(spans["Pre Run jobtrace/jobtrace@v1"], "jobtrace.github.step.jobtrace") != "pre" {
		t.Errorf("jobtrace's own pre step is not marked: %v", spans["Pre Run jobtrace/jobtrace@v1"].Attributes)
	}
	if attrOf(spans["Set up job"], "jobtrace.usage.none") == "" {
		t.Errorf("a step before the first sample: %v", spans["Set up job"].Attributes)
	}
	for _, name := range []string{"Run ./deploy.sh", "Post Run jobtrace/jobtrace@v1", "Complete job"} {
		if spans[name] != nil {
			t.Errorf("step %q traced", name)
		}
	}

	// Without a token: one warning, and no result.
	delete(env, "GITHUB_TOKEN")
	warnings, said = nil, nil
	if r := c.githubSteps(context.Background(), sock, warn, say); r != "" || len(warnings) != 1 || len(said) != 0 ||
		!strings.Contains(warnings[0], "the job's steps are not traced: githubjob: settings: missing the job's token") {
		t.Errorf("without a token: %q, warnings %q, said %q", r, warnings, said)
	}
}
