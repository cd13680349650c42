// Package githubjob finds the GitHub Actions job that is running, and its
// steps, in GitHub's REST API: the steps' names, numbers, conclusions and
// times, which jobtrace makes phases of at the end of a job
// (docs/github-actions.md).
//
// It lists the jobs of the workflow run's attempt
// (GET /repos/{owner}/{repo}/actions/runs/{run_id}/attempts/{attempt}/jobs,
// https://docs.github.com/en/rest/actions/workflow-jobs), page by page, and
// picks the running job by the rule of Pick. Everything it needs comes from
// the variables the runner sets (FromEnv) and the job's token; the
// requests are bounded (MaxPages, MaxResponseBytes, Timeout), and every
// failure is one error that says what to do about it, for the caller to
// warn about once and go on.
package githubjob

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Bounds of a lookup.
const (
	// PerPage is the page size asked for, the API's largest.
	PerPage = 100
	// MaxPages bounds the pages read: 1,000 jobs, beyond a run attempt's
	// 256 jobs of one matrix several times over. A run with more stops
	// there, and the job is looked for among those read.
	MaxPages = 10
	// MaxResponseBytes bounds one page: a page of 100 jobs of 50 steps
	// each takes about 1.5 MiB. A longer one is an error, not read
	// further.
	MaxResponseBytes = 8 << 20
	// Timeout bounds a whole lookup, every page included: the end of the
	// job waits for it.
	Timeout = 20 * time.Second
)

// Find lists the jobs of the run attempt and returns the running one (Pick).
func Find(ctx context.Context, s Settings) (Job, error) {
	if err := s.check(); err != nil {
		return Job{}, err
	}
	jobs, err := list(ctx, s)
	if err != nil {
		return Job{}, err
	}
	return Pick(jobs, s.RunnerName, s.JobName)
}

// list reads the pages of the listing, at most MaxPages of them.
func list(ctx context.Context, s Settings) ([]Job, error) {
	ctx, cancel := context.WithTimeout(ctx, Timeout)
	defer cancel()
	client := s.Client
	if client == nil {
		client = http.DefaultClient
	}
	next := fmt.Sprintf("%s/repos/%s/actions/runs/%s/attempts/%s/jobs?per_page=%d",
		strings.TrimRight(s.APIURL, "/"), s.Repository, s.RunID, s.Attempt, PerPage)
	var jobs []Job
	for n := 0; next != ""; n++ {
		if n == MaxPages {
			break // looked for among the first MaxPages × PerPage
		}
		p, link, err := get(ctx, client, next, s.Token)
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, p.Jobs...)
		next = nextLink(link)
		if next != "" {
			// The next page must be on the same API, where the token may
			// go.
			if u, err := url.Parse(next); err != nil || !sameOrigin(u, s.APIURL) {
				return nil, fmt.Errorf("githubjob: the next page %q is not on %s", next, s.APIURL)
			}
		}
	}
	return jobs, nil
}

func sameOrigin(u *url.URL, api string) bool {
	a, err := url.Parse(api)
	return err == nil && u.Scheme == a.Scheme && u.Host == a.Host
}

// get reads one page.
func get(ctx context.Context, client *http.Client, u, token string) (page, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return page{}, "", fmt.Errorf("githubjob: %v", err)
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	resp, err := client.Do(req)
	if err != nil {
		return page{}, "", fmt.Errorf("githubjob: %v", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return page{}, "", fmt.Errorf("githubjob: reading %s: %v", redactURL(u), err)
	}
	if resp.StatusCode != http.StatusOK {
		return page{}, "", statusError(resp, body)
	}
	if len(body) > MaxResponseBytes {
		return page{}, "", fmt.Errorf("githubjob: a page of jobs longer than %d bytes: not read", MaxResponseBytes)
	}
	var p page
	if err := json.Unmarshal(body, &p); err != nil {
		return page{}, "", fmt.Errorf("githubjob: the jobs of the run are not the JSON expected: %v", err)
	}
	return p, resp.Header.Get("Link"), nil
}

// redactURL is u without its query.
func redactURL(u string) string {
	base, _, _ := strings.Cut(u, "?")
	return base
}

// statusError says what a response other than 200 means for the job.
func statusError(resp *http.Response, body []byte) error {
	msg := apiMessage(body)
	switch {
	case resp.StatusCode == http.StatusUnauthorized:
		return fmt.Errorf("githubjob: the token was refused (401 %s)", msg)
	case rateLimited(resp):
		until := ""
		if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil {
			until = " until " + time.Unix(reset, 0).UTC().Format(time.RFC3339)
		} else if ra := resp.Header.Get("Retry-After"); ra != "" {
			until = " for " + ra + " s"
		}
		return fmt.Errorf("githubjob: rate limited by the API%s (%d %s)", until, resp.StatusCode, msg)
	case resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("githubjob: the token may not read the run's jobs: give the job `permissions: actions: read` (403 %s)", msg)
	case resp.StatusCode == http.StatusNotFound:
		return fmt.Errorf("githubjob: no such run attempt, or the token may not see it: give the job `permissions: actions: read` (404 %s)", msg)
	}
	return fmt.Errorf("githubjob: %s (%s)", resp.Status, msg)
}

// rateLimited reports whether resp is a rate limit's refusal: 429, or 403
// with no request left or with Retry-After (a secondary rate limit), as
// GitHub documents them.
func rateLimited(resp *http.Response) bool {
	switch resp.StatusCode {
	case http.StatusTooManyRequests:
		return true
	case http.StatusForbidden:
		return resp.Header.Get("X-RateLimit-Remaining") == "0" || resp.Header.Get("Retry-After") != ""
	}
	return false
}

// maxMessageBytes bounds the API's message quoted in an error.
const maxMessageBytes = 200

// apiMessage is the "message" of an error body, shortened.
func apiMessage(body []byte) string {
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) != nil || e.Message == "" {
		return "no message"
	}
	if len(e.Message) > maxMessageBytes {
		e.Message = e.Message[:maxMessageBytes] + "…"
	}
	return strconv.Quote(e.Message)
}

// nextLink returns the URL of rel="next" in a Link header, "" when none.
func nextLink(h string) string {
	for _, part := range strings.Split(h, ",") {
		target, params, ok := strings.Cut(part, ";")
		if !ok {
			continue
		}
		for _, p := range strings.Split(params, ";") {
			if strings.TrimSpace(p) == `rel="next"` {
				return strings.Trim(strings.TrimSpace(target), "<>")
			}
		}
	}
	return ""
}
