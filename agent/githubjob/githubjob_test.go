package githubjob

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

const token = "ghs_test-token"

// fakeAPI is GitHub's REST API for one run attempt, on a real server: it
// serves the pages in testdata (or given) at the documented path, with
// the Link header of the next page, and checks the request's headers.
type fakeAPI struct {
	pages [][]byte
	// status, when set, is the answer to every request, with header.
	status int
	header http.Header
	body   string

	mu       sync.Mutex
	requests []string
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.URL.String())
	f.mu.Unlock()
	if r.URL.Path != "/repos/octo-org/octo-repo/actions/runs/29679449/attempts/2/jobs" {
		http.NotFound(w, r)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+token || r.Header.Get("Accept") != "application/vnd.github+json" {
		w.WriteHeader(http.StatusUnauthorized)
		fmt.Fprint(w, `{"message":"Bad credentials","documentation_url":"https://docs.github.com/rest"}`)
		return
	}
	if f.status != 0 {
		for k, v := range f.header {
			w.Header()[k] = v
		}
		w.WriteHeader(f.status)
		fmt.Fprint(w, f.body)
		return
	}
	n, _ := strconv.Atoi(r.URL.Query().Get("page"))
	n = max(n, 1)
	if r.URL.Query().Get("per_page") != strconv.Itoa(PerPage) || n > len(f.pages) {
		http.Error(w, "bad page", http.StatusBadRequest)
		return
	}
	if n < len(f.pages) {
		next := fmt.Sprintf("http://%s%s?per_page=%d&page=%d", r.Host, r.URL.Path, PerPage, n+1)
		w.Header().Set("Link", fmt.Sprintf(`<%s>; rel="next", <%s>; rel="last"`, next, next))
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(f.pages[n-1])
}

func testdata(t *testing.T, names ...string) [][]byte {
	var out [][]byte
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func serve(t *testing.T, f *fakeAPI) Settings {
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return Settings{Token: token, APIURL: srv.URL, Repository: "octo-org/octo-repo", RunID: "29679449", Attempt: "2",
		RunnerName: "GitHub Actions 13", JobName: "build", Client: srv.Client()}
}

// The running job is found on the second page, by its runner, among jobs
// of a matrix of the same name, and its steps come as the API gives them.
func TestFindOnSecondPage(t *testing.T) {
	f := &fakeAPI{pages: testdata(t, "jobs-page1.json", "jobs-page2.json")}
	s := serve(t, f)
	job, err := Find(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if job.ID != 399444498 || job.Name != "build (ubuntu-latest, 1.23)" || len(job.Steps) != 9 {
		t.Fatalf("job %d %q with %d steps", job.ID, job.Name, len(job.Steps))
	}
	if len(f.requests) != 2 {
		t.Errorf("requests %v, want two pages", f.requests)
	}
	tests := job.Steps[4]
	if tests.Name != "Run go test ./..." || tests.Number != 5 || tests.Conclusion != "failure" || tests.Status != "completed" ||
		!tests.StartedAt.Equal(time.Date(2020, 1, 20, 17, 42, 52, 0, time.UTC)) || !tests.CompletedAt.Equal(time.Date(2020, 1, 20, 17, 43, 30, 0, time.UTC)) {
		t.Errorf("step 5: %+v", tests)
	}
	if skipped := job.Steps[5]; !skipped.StartedAt.IsZero() || !skipped.CompletedAt.IsZero() || skipped.Conclusion != "skipped" {
		t.Errorf("a skipped step: %+v", skipped)
	}
	if post := job.Steps[7]; post.Status != "in_progress" || post.Conclusion != "" || !post.CompletedAt.IsZero() {
		t.Errorf("the step in progress: %+v", post)
	}
}

func TestPick(t *testing.T) {
	job := func(id int64, name, status, runner string) Job {
		return Job{ID: id, Name: name, Status: status, RunnerName: runner}
	}
	jobs := []Job{
		job(1, "lint", "completed", "GitHub Actions 11"),
		job(2, "build (ubuntu-latest, 1.22)", "in_progress", "GitHub Actions 12"),
		job(3, "build (ubuntu-latest, 1.23)", "in_progress", "GitHub Actions 13"),
		job(4, "build-docs", "in_progress", "GitHub Actions 14"),
		job(5, "deploy", "in_progress", "self-hosted"),
		job(6, "release", "in_progress", "self-hosted"),
		job(7, "lint", "queued", ""),
	}
	for _, c := range []struct {
		runner, name string
		want         int64
	}{
		{"GitHub Actions 13", "build", 3},                       // by runner, whatever the name
		{"GitHub Actions 12", "", 2},                            // by runner alone
		{"GitHub Actions 12", "build (ubuntu-latest, 1.23)", 2}, // the runner wins over the name
		{"", "build-docs", 4},                                   // by name, not taken for a matrix of build
		{"", "build (ubuntu-latest, 1.23)", 3},                  // a matrix job's full name
		{"self-hosted", "deploy", 5},                            // a runner two jobs claim: by name among them
		{"self-hosted", "build-docs", 0},                        // a name not on that runner
		{"GitHub Actions 99", "build-docs", 4},                  // an unknown runner: by name
		{"GitHub Actions 11", "build-docs", 4},                  // the runner of a finished job: by name
		{"", "build", 0},                                        // two matrix jobs of that name: none
		{"self-hosted", "", 0},                                  // two on the runner, no name: none
		{"GitHub Actions 11", "lint", 0},                        // a finished job is not running
		{"", "lint", 0},                                         // nor a queued one
		{"", "build (ubuntu-latest, 1.2", 0},                    // not a matrix name
		{"", "build-doc", 0},                                    // a prefix without " ("
		{"", "Build-docs", 0},                                   // names are matched as they are
		{"", "", 0},                                             // nothing to go by
	} {
		got, err := Pick(jobs, c.runner, c.name)
		switch {
		case c.want == 0 && !errors.Is(err, ErrNoJob):
			t.Errorf("runner %q name %q: job %d, %v; want ErrNoJob", c.runner, c.name, got.ID, err)
		case c.want != 0 && (err != nil || got.ID != c.want):
			t.Errorf("runner %q name %q: job %d, %v; want %d", c.runner, c.name, got.ID, err, c.want)
		}
	}
}

// Each refusal of the API is one error that says what to do.
func TestAPIErrors(t *testing.T) {
	reset := time.Date(2026, 11, 29, 12, 30, 0, 0, time.UTC)
	for _, c := range []struct {
		name   string
		token  string
		status int
		header http.Header
		body   string
		want   string
	}{
		{"bad token", "ghs_other", 0, nil, "", "the token was refused (401 \"Bad credentials\")"},
		{"no permission", token, 403, nil, `{"message":"Resource not accessible by integration"}`, "permissions: actions: read` (403 \"Resource not accessible by integration\")"},
		{"not found", token, 404, nil, `{"message":"Not Found"}`, "no such run attempt"},
		{"rate limit", token, 403, http.Header{"X-Ratelimit-Remaining": {"0"}, "X-Ratelimit-Reset": {strconv.FormatInt(reset.Unix(), 10)}},
			`{"message":"API rate limit exceeded"}`, "rate limited by the API until 2026-11-29T12:30:00Z (403"},
		{"secondary rate limit", token, 429, http.Header{"Retry-After": {"60"}}, `{"message":"You have exceeded a secondary rate limit"}`, "rate limited by the API for 60 s (429"},
		{"server error", token, 502, nil, "<html>bad gateway</html>", "502 Bad Gateway (no message)"},
		{"not JSON", token, 200, nil, "<html>", "not the JSON expected"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := serve(t, &fakeAPI{status: c.status, header: c.header, body: c.body})
			s.Token = c.token
			_, err := Find(context.Background(), s)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to say %q", err, c.want)
			}
			if err != nil && strings.Contains(err.Error(), c.token) {
				t.Errorf("the error holds the token: %v", err)
			}
		})
	}
}

func TestMissingSettings(t *testing.T) {
	env := map[string]string{EnvAPIURL: "https://api.github.com", EnvRepository: "octo-org/octo-repo",
		EnvRunID: "29679449", EnvAttempt: "2", EnvRunnerName: "GitHub Actions 13"}
	getenv := func(k string) string { return env[k] }
	for _, c := range []struct {
		unset, set, token string
		want              string
	}{
		{"", "", "", "missing the job's token"},
		{EnvRunID, "", token, "missing " + EnvRunID},
		{EnvAPIURL, "", token, "missing " + EnvAPIURL},
		{EnvRunnerName, "", token, "missing RUNNER_NAME or GITHUB_JOB"},
		{"", EnvRunID + "=x", token, `GITHUB_RUN_ID="x" is not a run id`},
		{"", EnvAttempt + "=-1", token, `GITHUB_RUN_ATTEMPT="-1" is not an attempt number`},
		{"", EnvRepository + "=octo-repo", token, `GITHUB_REPOSITORY="octo-repo" is not owner/name`},
	} {
		old := env[c.unset]
		delete(env, c.unset)
		var oldSet string
		k, v, _ := strings.Cut(c.set, "=")
		if k != "" {
			oldSet = env[k]
			env[k] = v
		}
		_, err := Find(context.Background(), FromEnv(getenv, c.token))
		if !errors.Is(err, ErrSettings) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("unset %q, set %q: %v, want it to say %q", c.unset, c.set, err, c.want)
		}
		if c.unset != "" {
			env[c.unset] = old
		}
		if k != "" {
			env[k] = oldSet
		}
	}
}

// A run of more pages than MaxPages is read up to the bound; a page
// longer than MaxResponseBytes is refused.
func TestBounds(t *testing.T) {
	pages := make([][]byte, MaxPages+3)
	for i := range pages {
		// Only the last page holds the running job.
		status, runner := "completed", fmt.Sprintf("runner %d", i)
		if i == len(pages)-1 {
			status, runner = "in_progress", "GitHub Actions 13"
		}
		pages[i] = []byte(fmt.Sprintf(`{"total_count":%d,"jobs":[{"id":%d,"name":"build","status":%q,"runner_name":%q,"steps":[]}]}`,
			len(pages), i+1, status, runner))
	}
	f := &fakeAPI{pages: pages}
	_, err := Find(context.Background(), serve(t, f))
	if !errors.Is(err, ErrNoJob) {
		t.Errorf("the job past MaxPages: %v, want ErrNoJob", err)
	}
	if len(f.requests) != MaxPages {
		t.Errorf("%d pages read, want MaxPages (%d)", len(f.requests), MaxPages)
	}

	big := []byte(`{"total_count":1,"jobs":[{"id":1,"name":"` + strings.Repeat("x", MaxResponseBytes) + `","status":"in_progress","runner_name":"GitHub Actions 13"}]}`)
	_, err = Find(context.Background(), serve(t, &fakeAPI{pages: [][]byte{big}}))
	if err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("a page past MaxResponseBytes: %v", err)
	}
}

// A next page elsewhere than the API is not asked for: the token would go
// there.
func TestNextPageElsewhere(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the token went to %s", r.URL)
	}))
	defer other.Close()
	s := serve(t, &fakeAPI{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Link", `<`+other.URL+`/next?page=2>; rel="next"`)
		fmt.Fprint(w, `{"total_count":2,"jobs":[]}`)
	}))
	defer srv.Close()
	s.APIURL = srv.URL
	if _, err := Find(context.Background(), s); err == nil || !strings.Contains(err.Error(), "is not on") {
		t.Errorf("a next page elsewhere: %v", err)
	}
}

func TestNextLink(t *testing.T) {
	for h, want := range map[string]string{
		`<https://api.github.com/x?page=2>; rel="next", <https://api.github.com/x?page=5>; rel="last"`: "https://api.github.com/x?page=2",
		`<https://api.github.com/x?page=1>; rel="prev", <https://api.github.com/x?page=3>; rel="next"`: "https://api.github.com/x?page=3",
		`<https://api.github.com/x?page=1>; rel="first"`:                                               "",
		``:        "",
		`garbage`: "",
	} {
		if got := nextLink(h); got != want {
			t.Errorf("%q: %q, want %q", h, got, want)
		}
	}
}
