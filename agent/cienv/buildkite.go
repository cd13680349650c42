package cienv

import semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

// Buildkite documents the variables its agent sets at
// https://buildkite.com/docs/pipelines/environment-variables.

func detectBuildkite(getenv func(string) string) bool {
	return getenv("BUILDKITE") == "true"
}

func readBuildkite(getenv func(string) string, info *Info) {
	repoURL, repoName := canonicalRepoURL(getenv("BUILDKITE_REPO"))
	info.Project = repoName
	if info.Project == "" {
		info.Project = getenv("BUILDKITE_PIPELINE_SLUG")
	}
	info.TaskName = getenv("BUILDKITE_LABEL")
	if info.TaskName == "" {
		info.TaskName = getenv("BUILDKITE_STEP_KEY")
	}

	buildURL := getenv("BUILDKITE_BUILD_URL")
	jobID := getenv("BUILDKITE_JOB_ID")
	pipeline := getenv("BUILDKITE_PIPELINE_NAME")
	if pipeline == "" {
		pipeline = getenv("BUILDKITE_PIPELINE_SLUG")
	}

	var a attrs
	a.add(semconv.CICDPipelineNameKey, pipeline)
	a.add(semconv.CICDPipelineRunIDKey, getenv("BUILDKITE_BUILD_ID"))
	a.add(semconv.CICDPipelineRunURLFullKey, buildURL)
	a.add(semconv.CICDPipelineTaskRunIDKey, jobID)
	if buildURL != "" && jobID != "" {
		// The build page anchors each job by its ID.
		a.add(semconv.CICDPipelineTaskRunURLFullKey, buildURL+"#"+jobID)
	}
	a.add(semconv.CICDWorkerIDKey, getenv("BUILDKITE_AGENT_ID"))
	a.add(semconv.CICDWorkerNameKey, getenv("BUILDKITE_AGENT_NAME"))
	a.add(semconv.VCSRepositoryURLFullKey, repoURL)
	a.add(semconv.VCSRepositoryNameKey, repoName)
	a.add(semconv.VCSRefHeadRevisionKey, getenv("BUILDKITE_COMMIT"))
	if tag := getenv("BUILDKITE_TAG"); tag != "" {
		a.addRef(tag, "tag")
	} else {
		a.addRef(getenv("BUILDKITE_BRANCH"), "branch")
	}
	// BUILDKITE_PULL_REQUEST is the PR number, or "false" outside PR builds.
	if pr := getenv("BUILDKITE_PULL_REQUEST"); pr != "" && pr != "false" {
		a.add(semconv.VCSChangeIDKey, pr)
		a.add(semconv.VCSRefBaseNameKey, getenv("BUILDKITE_PULL_REQUEST_BASE_BRANCH"))
	}
	info.Attrs = a
}
