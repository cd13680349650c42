// Package cienv recognises the CI system a job runs under from the job's
// environment, and turns what that system documents about the run into
// OpenTelemetry attributes (cicd.*, vcs.*, semconv v1.43).
//
// Detect reads only a fixed list of documented variables per system, through
// the getenv function it is given. It never enumerates the environment, so
// tokens and other secrets that CI systems put there (GITHUB_TOKEN,
// CI_JOB_TOKEN, BUILDKITE_AGENT_ACCESS_TOKEN, TASKCLUSTER_ACCESS_TOKEN, ...)
// are never read, let alone exported. Repository URLs taken from the
// environment are reduced to scheme, host and path, so credentials embedded in
// a clone URL do not leak either.
//
// The variables read and the attribute each one becomes are listed in
// docs/ci.md.
package cienv
