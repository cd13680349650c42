package cienv

import (
	"strings"

	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// Jenkins lists the variables it sets at ${JENKINS_URL}/env-vars.html; the
// GIT_* ones come from the Git plugin, BRANCH_NAME, CHANGE_* and TAG_NAME from
// multibranch projects.

func detectJenkins(getenv func(string) string) bool {
	return getenv("JENKINS_URL") != "" && getenv("BUILD_ID") != ""
}

func readJenkins(getenv func(string) string, info *Info) {
	repoURL, repoName := canonicalRepoURL(getenv("GIT_URL"))
	job := getenv("JOB_NAME")
	info.Project = repoName
	if info.Project == "" {
		info.Project = job
	}
	info.TaskName = getenv("STAGE_NAME")
	if info.TaskName == "" {
		info.TaskName = getenv("JOB_BASE_NAME")
	}

	var a attrs
	a.add(semconv.CICDPipelineNameKey, job)
	a.add(semconv.CICDPipelineRunIDKey, getenv("BUILD_NUMBER"))
	a.add(semconv.CICDPipelineRunURLFullKey, getenv("BUILD_URL"))
	a.add(semconv.CICDWorkerNameKey, getenv("NODE_NAME"))
	a.add(semconv.VCSRepositoryURLFullKey, repoURL)
	a.add(semconv.VCSRepositoryNameKey, repoName)
	a.add(semconv.VCSRefHeadRevisionKey, getenv("GIT_COMMIT"))
	switch {
	case getenv("CHANGE_ID") != "":
		// A change request build: BRANCH_NAME is "PR-<n>", the proposed
		// branch is CHANGE_BRANCH.
		a.addRef(getenv("CHANGE_BRANCH"), "branch")
		a.add(semconv.VCSRefBaseNameKey, getenv("CHANGE_TARGET"))
		a.add(semconv.VCSChangeIDKey, getenv("CHANGE_ID"))
	case getenv("TAG_NAME") != "":
		a.addRef(getenv("TAG_NAME"), "tag")
	case getenv("BRANCH_NAME") != "":
		a.addRef(getenv("BRANCH_NAME"), "branch")
	case getenv("GIT_LOCAL_BRANCH") != "":
		a.addRef(getenv("GIT_LOCAL_BRANCH"), "branch")
	default:
		// The Git plugin gives the remote-tracking name, "origin/main".
		a.addRef(strings.TrimPrefix(getenv("GIT_BRANCH"), "origin/"), "branch")
	}
	info.Attrs = a
}
