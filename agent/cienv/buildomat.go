package cienv

import (
	"strings"

	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// Buildomat (github.com/oxidecomputer/buildomat) documents no variable list.
// Its agent sets BUILDOMAT_JOB_ID for every task of a job (agent/src/main.rs),
// and its GitHub integration adds GITHUB_REPOSITORY, GITHUB_SHA and, for
// branch builds, GITHUB_BRANCH (github/server/src/variety/basic.rs). It does
// not set GITHUB_ACTIONS, which keeps it apart from GitHub Actions.

func detectBuildomat(getenv func(string) string) bool {
	return getenv("BUILDOMAT_JOB_ID") != ""
}

func readBuildomat(getenv func(string) string, info *Info) {
	repo := getenv("GITHUB_REPOSITORY") // owner/name
	owner, repoName, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || repoName == "" {
		repo, owner, repoName = "", "", ""
	}
	info.Project = repoName

	var a attrs
	a.add(semconv.CICDPipelineTaskRunIDKey, getenv("BUILDOMAT_JOB_ID"))
	if repo != "" {
		a.add(semconv.VCSRepositoryURLFullKey, "https://github.com/"+repo)
		a.add(semconv.VCSRepositoryNameKey, repoName)
		a.add(semconv.VCSOwnerNameKey, owner)
		a = append(a, semconv.VCSProviderNameGithub)
	}
	a.add(semconv.VCSRefHeadRevisionKey, getenv("GITHUB_SHA"))
	a.addRef(getenv("GITHUB_BRANCH"), "branch")
	info.Attrs = a
}
