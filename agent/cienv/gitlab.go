package cienv

import semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

// GitLab documents its predefined variables at
// https://docs.gitlab.com/ci/variables/predefined_variables/.

func detectGitLab(getenv func(string) string) bool {
	return getenv("GITLAB_CI") == "true"
}

func readGitLab(getenv func(string) string, info *Info) {
	info.Project = getenv("CI_PROJECT_NAME")
	info.TaskName = getenv("CI_JOB_NAME")

	var a attrs
	a.add(semconv.CICDPipelineNameKey, getenv("CI_PIPELINE_NAME"))
	a.add(semconv.CICDPipelineRunIDKey, getenv("CI_PIPELINE_ID"))
	a.add(semconv.CICDPipelineRunURLFullKey, getenv("CI_PIPELINE_URL"))
	a.add(semconv.CICDPipelineTaskRunIDKey, getenv("CI_JOB_ID"))
	a.add(semconv.CICDPipelineTaskRunURLFullKey, getenv("CI_JOB_URL"))
	a.add(semconv.CICDWorkerIDKey, getenv("CI_RUNNER_ID"))
	a.add(semconv.CICDWorkerNameKey, getenv("CI_RUNNER_DESCRIPTION"))
	repoURL, _ := canonicalRepoURL(getenv("CI_PROJECT_URL"))
	a.add(semconv.VCSRepositoryURLFullKey, repoURL)
	a.add(semconv.VCSRepositoryNameKey, info.Project)
	a.add(semconv.VCSOwnerNameKey, getenv("CI_PROJECT_NAMESPACE"))
	a = append(a, semconv.VCSProviderNameGitlab)
	a.add(semconv.VCSRefHeadRevisionKey, getenv("CI_COMMIT_SHA"))
	switch {
	case getenv("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME") != "":
		a.addRef(getenv("CI_MERGE_REQUEST_SOURCE_BRANCH_NAME"), "branch")
	case getenv("CI_COMMIT_TAG") != "":
		a.addRef(getenv("CI_COMMIT_TAG"), "tag")
	case getenv("CI_COMMIT_BRANCH") != "":
		a.addRef(getenv("CI_COMMIT_BRANCH"), "branch")
	default:
		a.addRef(getenv("CI_COMMIT_REF_NAME"), "")
	}
	a.add(semconv.VCSRefBaseNameKey, getenv("CI_MERGE_REQUEST_TARGET_BRANCH_NAME"))
	a.add(semconv.VCSChangeIDKey, getenv("CI_MERGE_REQUEST_IID"))
	info.Attrs = a
}
