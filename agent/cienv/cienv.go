package cienv

import (
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/internal/redact"

	"github.com/jobtrace/jobtrace/internal/cleantext"
)

// Values of Info.System.
const (
	GitHubActions = "github_actions"
	GitLabCI      = "gitlab_ci"
	Buildkite     = "buildkite"
	Jenkins       = "jenkins"
	Buildomat     = "buildomat"
	Taskcluster   = "taskcluster"
)

// Info is what the environment tells about the CI run a job belongs to.
// The zero value means no known CI system was found.
type Info struct {
	// System is one of the constants above, or "" when no CI system was
	// recognised.
	System string
	// Project names the project being built (the repository name where the
	// system exposes one); it is the default service.name.
	Project string
	// TaskName is the system's name for the job or task being run, the
	// default name of jobtrace's job span.
	TaskName string
	// Attrs are the cicd.* and vcs.* attributes the system exposes, in a
	// stable order. Empty values are left out.
	Attrs []attribute.KeyValue
	// HostType is the machine type the CI system reports for the worker
	// (Taskcluster's TASKCLUSTER_INSTANCE_TYPE), "" when it reports none.
	HostType string
	// TraceID is the trace that the CI system's own telemetry uses for this
	// run, when it can be derived from the environment; zero otherwise.
	// For GitHub Actions it is the trace the OpenTelemetry Collector's GitHub
	// receiver builds from the run's workflow events.
	TraceID trace.TraceID
	// ParentSpanID is the span of that trace the job's spans can hang under
	// (for GitHub Actions, the receiver's workflow-run root span); zero when
	// TraceID is zero.
	ParentSpanID trace.SpanID
}

// system is one CI system: how to recognise it and how to read it.
type system struct {
	name   string
	detect func(getenv func(string) string) bool
	read   func(getenv func(string) string, info *Info)
}

// systems is tried in order; the first match wins. Jenkins comes last
// because its marker (JENKINS_URL) is the one most likely to be inherited by
// a job that actually runs somewhere else.
var systems = []system{
	{GitHubActions, detectGitHub, readGitHub},
	{GitLabCI, detectGitLab, readGitLab},
	{Buildkite, detectBuildkite, readBuildkite},
	{Buildomat, detectBuildomat, readBuildomat},
	{Taskcluster, detectTaskcluster, readTaskcluster},
	{Jenkins, detectJenkins, readJenkins},
}

// Detect recognises the CI system from the environment seen through getenv
// (os.Getenv in production) and returns what it exposes about the run.
// It reads only the variables documented in docs/ci.md. Every value is
// cleaned as it is read (cleantext.String): the environment is the job's
// and anyone's who set it.
func Detect(getenv func(string) string) Info {
	raw := getenv
	getenv = func(k string) string { return cleantext.String(raw(k)) }
	for _, s := range systems {
		if s.detect(getenv) {
			info := Info{System: s.name}
			s.read(getenv, &info)
			return info
		}
	}
	return Info{}
}

// attrs collects attributes, skipping empty values.
type attrs []attribute.KeyValue

func (a *attrs) add(k attribute.Key, v string) {
	if v != "" {
		// URLs from the environment (a build URL, a server URL) may
		// carry credentials in their user info or query.
		*a = append(*a, k.String(redact.String(v)))
	}
}

// addRef records the head reference: its name and, when known, whether it is
// a branch or a tag.
func (a *attrs) addRef(name, typ string) {
	if name == "" {
		return
	}
	a.add(semconv.VCSRefHeadNameKey, name)
	switch typ {
	case "branch":
		*a = append(*a, semconv.VCSRefHeadTypeBranch)
	case "tag":
		*a = append(*a, semconv.VCSRefHeadTypeTag)
	}
}
