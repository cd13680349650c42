package cienv

import (
	"crypto/sha256"
	"strconv"
	"strings"

	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
)

// GitHub Actions documents its default variables at
// https://docs.github.com/en/actions/reference/variables-reference.

func detectGitHub(getenv func(string) string) bool {
	return getenv("GITHUB_ACTIONS") == "true"
}

func readGitHub(getenv func(string) string, info *Info) {
	server := strings.TrimRight(getenv("GITHUB_SERVER_URL"), "/")
	if server == "" {
		server = "https://github.com"
	}
	repo := getenv("GITHUB_REPOSITORY") // owner/name
	runID := getenv("GITHUB_RUN_ID")
	attempt := getenv("GITHUB_RUN_ATTEMPT")

	owner, repoName, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || repoName == "" {
		repo, repoName = "", ""
	}
	info.Project = repoName
	info.TaskName = getenv("GITHUB_JOB")

	var a attrs
	a.add(semconv.CICDPipelineNameKey, getenv("GITHUB_WORKFLOW"))
	a.add(semconv.CICDPipelineRunIDKey, runID)
	if repo != "" && runID != "" {
		// The same URL the GitHub receiver puts on the run (html_url).
		a.add(semconv.CICDPipelineRunURLFullKey, server+"/"+repo+"/actions/runs/"+runID)
	}
	a.add(semconv.CICDWorkerNameKey, getenv("RUNNER_NAME"))
	if repo != "" {
		a.add(semconv.VCSRepositoryURLFullKey, server+"/"+repo)
	}
	a.add(semconv.VCSRepositoryNameKey, repoName)
	a.add(semconv.VCSOwnerNameKey, getenv("GITHUB_REPOSITORY_OWNER"))
	a = append(a, semconv.VCSProviderNameGithub)
	a.add(semconv.VCSRefHeadRevisionKey, getenv("GITHUB_SHA"))
	// On pull_request events GITHUB_REF_NAME is "<n>/merge"; the branch
	// being proposed is GITHUB_HEAD_REF, and GITHUB_BASE_REF its target.
	if head := getenv("GITHUB_HEAD_REF"); head != "" {
		a.addRef(head, "branch")
	} else {
		a.addRef(getenv("GITHUB_REF_NAME"), getenv("GITHUB_REF_TYPE"))
	}
	a.add(semconv.VCSRefBaseNameKey, getenv("GITHUB_BASE_REF"))
	a.add(semconv.VCSChangeIDKey, pullNumber(getenv("GITHUB_REF")))
	info.Attrs = a

	if id, ok := parseDecimal(runID); ok {
		if n, ok := parseDecimal(attempt); ok {
			info.TraceID = GitHubTraceID(id, n)
			info.ParentSpanID = GitHubRunSpanID(id, n)
		}
	}
}

// GitHubTraceID is the trace ID the OpenTelemetry Collector's GitHub receiver
// (receiver/githubreceiver, newTraceID) gives the spans it builds from the
// workflow_run and workflow_job events of one run attempt: the first 16 bytes
// of SHA-256 over the run ID and the attempt number written in decimal and
// followed by "t". Spans made with this ID join that trace.
func GitHubTraceID(runID, runAttempt uint64) trace.TraceID {
	sum := sha256.Sum256(githubSeed(runID, runAttempt, 't'))
	var id trace.TraceID
	copy(id[:], sum[:16])
	return id
}

// GitHubRunSpanID is the span ID the GitHub receiver gives the root span of a
// run attempt (newParentSpanID): bytes 8 to 16 of SHA-256 over the same
// decimal digits followed by "s". The receiver hangs its job spans under that
// span, so jobtrace's job span can sit beside them.
func GitHubRunSpanID(runID, runAttempt uint64) trace.SpanID {
	sum := sha256.Sum256(githubSeed(runID, runAttempt, 's'))
	var id trace.SpanID
	copy(id[:], sum[8:16])
	return id
}

func githubSeed(runID, runAttempt uint64, suffix byte) []byte {
	b := strconv.AppendUint(nil, runID, 10)
	b = strconv.AppendUint(b, runAttempt, 10)
	return append(b, suffix)
}

// parseDecimal accepts a plain non-negative decimal number, as GitHub writes
// run IDs and attempts. Anything else (empty, signs, spaces) is refused, so a
// malformed value gives no trace ID instead of a wrong one.
func parseDecimal(s string) (uint64, bool) {
	if s == "" || s[0] == '+' {
		return 0, false
	}
	n, err := strconv.ParseUint(s, 10, 63)
	return n, err == nil
}

// pullNumber returns n for a pull request ref "refs/pull/<n>/merge" (or
// ".../head"), "" for any other ref.
func pullNumber(ref string) string {
	rest, ok := strings.CutPrefix(ref, "refs/pull/")
	if !ok {
		return ""
	}
	n, _, ok := strings.Cut(rest, "/")
	if !ok {
		return ""
	}
	if _, ok := parseDecimal(n); !ok {
		return ""
	}
	return n
}
