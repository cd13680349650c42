package cienv

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// fixture is the environment of a job on one CI system, trimmed to what the
// system sets (plus the secrets it also sets, which must never be read).
type fixture struct {
	name string
	env  map[string]string
	want Info
}

func s(k, v string) attribute.KeyValue { return attribute.String(k, v) }

func mustTraceID(t *testing.T, h string) trace.TraceID {
	t.Helper()
	id, err := trace.TraceIDFromHex(h)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func mustSpanID(t *testing.T, h string) trace.SpanID {
	t.Helper()
	id, err := trace.SpanIDFromHex(h)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func fixtures(t *testing.T) []fixture {
	return []fixture{
		{
			name: "github_actions push",
			env: map[string]string{
				"CI":                      "true",
				"GITHUB_ACTIONS":          "true",
				"GITHUB_SERVER_URL":       "https://github.com",
				"GITHUB_REPOSITORY":       "jobtrace/jobtrace",
				"GITHUB_REPOSITORY_OWNER": "jobtrace",
				"GITHUB_RUN_ID":           "14460881260",
				"GITHUB_RUN_ATTEMPT":      "13",
				"GITHUB_RUN_NUMBER":       "412",
				"GITHUB_JOB":              "build",
				"GITHUB_WORKFLOW":         "CI",
				"GITHUB_SHA":              "6077d805b0fc49f65e6dbaefc2d1fc9b4f92aa4e",
				"GITHUB_REF":              "refs/heads/main",
				"GITHUB_REF_NAME":         "main",
				"GITHUB_REF_TYPE":         "branch",
				"GITHUB_HEAD_REF":         "",
				"GITHUB_BASE_REF":         "",
				"GITHUB_EVENT_NAME":       "push",
				"RUNNER_NAME":             "GitHub Actions 2",
				"RUNNER_OS":               "Linux",
				"GITHUB_TOKEN":            "ghs_secret",
				"ACTIONS_RUNTIME_TOKEN":   "secret",
			},
			want: Info{
				System:   GitHubActions,
				Project:  "jobtrace",
				TaskName: "build",
				Attrs: []attribute.KeyValue{
					s("cicd.pipeline.name", "CI"),
					s("cicd.pipeline.run.id", "14460881260"),
					s("cicd.pipeline.run.url.full", "https://github.com/jobtrace/jobtrace/actions/runs/14460881260"),
					s("cicd.worker.name", "GitHub Actions 2"),
					s("vcs.repository.url.full", "https://github.com/jobtrace/jobtrace"),
					s("vcs.repository.name", "jobtrace"),
					s("vcs.owner.name", "jobtrace"),
					s("vcs.provider.name", "github"),
					s("vcs.ref.head.revision", "6077d805b0fc49f65e6dbaefc2d1fc9b4f92aa4e"),
					s("vcs.ref.head.name", "main"),
					s("vcs.ref.head.type", "branch"),
				},
				// Known values: the Collector's GitHub receiver golden file
				// testdata/workflow-run-expected.yaml (run 14460881260,
				// attempt 13) has this traceId and root spanId.
				TraceID:      mustTraceID(t, "731ec8a47fd7450f753a812a4a8aa5a0"),
				ParentSpanID: mustSpanID(t, "aba151af7cfbcf0f"),
			},
		},
		{
			name: "github_actions pull request on GitHub Enterprise Server",
			env: map[string]string{
				"GITHUB_ACTIONS":          "true",
				"GITHUB_SERVER_URL":       "https://ghe.example.com/",
				"GITHUB_REPOSITORY":       "infra/builder",
				"GITHUB_REPOSITORY_OWNER": "infra",
				"GITHUB_RUN_ID":           "7",
				"GITHUB_RUN_ATTEMPT":      "1",
				"GITHUB_JOB":              "test",
				"GITHUB_WORKFLOW":         "PR checks",
				"GITHUB_SHA":              "1111111111111111111111111111111111111111",
				"GITHUB_REF":              "refs/pull/42/merge",
				"GITHUB_REF_NAME":         "42/merge",
				"GITHUB_REF_TYPE":         "branch",
				"GITHUB_HEAD_REF":         "fix-cache",
				"GITHUB_BASE_REF":         "main",
				"RUNNER_NAME":             "self-hosted-3",
			},
			want: Info{
				System:   GitHubActions,
				Project:  "builder",
				TaskName: "test",
				Attrs: []attribute.KeyValue{
					s("cicd.pipeline.name", "PR checks"),
					s("cicd.pipeline.run.id", "7"),
					s("cicd.pipeline.run.url.full", "https://ghe.example.com/infra/builder/actions/runs/7"),
					s("cicd.worker.name", "self-hosted-3"),
					s("vcs.repository.url.full", "https://ghe.example.com/infra/builder"),
					s("vcs.repository.name", "builder"),
					s("vcs.owner.name", "infra"),
					s("vcs.provider.name", "github"),
					s("vcs.ref.head.revision", "1111111111111111111111111111111111111111"),
					s("vcs.ref.head.name", "fix-cache"),
					s("vcs.ref.head.type", "branch"),
					s("vcs.ref.base.name", "main"),
					s("vcs.change.id", "42"),
				},
				TraceID:      traceIDFromFormula("7", "1"),
				ParentSpanID: spanIDFromFormula("7", "1"),
			},
		},
		{
			name: "gitlab_ci merge request",
			env: map[string]string{
				"CI":                                  "true",
				"GITLAB_CI":                           "true",
				"CI_PROJECT_NAME":                     "runner-tools",
				"CI_PROJECT_NAMESPACE":                "group/sub",
				"CI_PROJECT_URL":                      "https://gitlab.example.com/group/sub/runner-tools",
				"CI_PIPELINE_ID":                      "1000123",
				"CI_PIPELINE_URL":                     "https://gitlab.example.com/group/sub/runner-tools/-/pipelines/1000123",
				"CI_PIPELINE_NAME":                    "MR pipeline",
				"CI_JOB_ID":                           "5550001",
				"CI_JOB_URL":                          "https://gitlab.example.com/group/sub/runner-tools/-/jobs/5550001",
				"CI_JOB_NAME":                         "unit tests 1/2",
				"CI_JOB_STAGE":                        "test",
				"CI_RUNNER_ID":                        "12270837",
				"CI_RUNNER_DESCRIPTION":               "5-blue.saas-linux-small-amd64",
				"CI_COMMIT_SHA":                       "2222222222222222222222222222222222222222",
				"CI_COMMIT_REF_NAME":                  "feature/x",
				"CI_MERGE_REQUEST_IID":                "17",
				"CI_MERGE_REQUEST_SOURCE_BRANCH_NAME": "feature/x",
				"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
				"CI_JOB_TOKEN":                        "glcbt-secret",
				"CI_REGISTRY_PASSWORD":                "secret",
				"CI_REPOSITORY_URL":                   "https://gitlab-ci-token:secret@gitlab.example.com/group/sub/runner-tools.git",
			},
			want: Info{
				System:   GitLabCI,
				Project:  "runner-tools",
				TaskName: "unit tests 1/2",
				Attrs: []attribute.KeyValue{
					s("cicd.pipeline.name", "MR pipeline"),
					s("cicd.pipeline.run.id", "1000123"),
					s("cicd.pipeline.run.url.full", "https://gitlab.example.com/group/sub/runner-tools/-/pipelines/1000123"),
					s("cicd.pipeline.task.run.id", "5550001"),
					s("cicd.pipeline.task.run.url.full", "https://gitlab.example.com/group/sub/runner-tools/-/jobs/5550001"),
					s("cicd.worker.id", "12270837"),
					s("cicd.worker.name", "5-blue.saas-linux-small-amd64"),
					s("vcs.repository.url.full", "https://gitlab.example.com/group/sub/runner-tools"),
					s("vcs.repository.name", "runner-tools"),
					s("vcs.owner.name", "group/sub"),
					s("vcs.provider.name", "gitlab"),
					s("vcs.ref.head.revision", "2222222222222222222222222222222222222222"),
					s("vcs.ref.head.name", "feature/x"),
					s("vcs.ref.head.type", "branch"),
					s("vcs.ref.base.name", "main"),
					s("vcs.change.id", "17"),
				},
			},
		},
		{
			name: "gitlab_ci tag pipeline",
			env: map[string]string{
				"GITLAB_CI":          "true",
				"CI_PROJECT_NAME":    "app",
				"CI_PROJECT_URL":     "https://gitlab.com/org/app",
				"CI_PIPELINE_ID":     "9",
				"CI_JOB_ID":          "10",
				"CI_JOB_NAME":        "release",
				"CI_COMMIT_SHA":      "3333333333333333333333333333333333333333",
				"CI_COMMIT_REF_NAME": "v1.2.0",
				"CI_COMMIT_TAG":      "v1.2.0",
			},
			want: Info{
				System:   GitLabCI,
				Project:  "app",
				TaskName: "release",
				Attrs: []attribute.KeyValue{
					s("cicd.pipeline.run.id", "9"),
					s("cicd.pipeline.task.run.id", "10"),
					s("vcs.repository.url.full", "https://gitlab.com/org/app"),
					s("vcs.repository.name", "app"),
					s("vcs.provider.name", "gitlab"),
					s("vcs.ref.head.revision", "3333333333333333333333333333333333333333"),
					s("vcs.ref.head.name", "v1.2.0"),
					s("vcs.ref.head.type", "tag"),
				},
			},
		},
		{
			name: "buildkite pull request",
			env: map[string]string{
				"BUILDKITE":                          "true",
				"CI":                                 "true",
				"BUILDKITE_PIPELINE_SLUG":            "my-pipeline",
				"BUILDKITE_PIPELINE_NAME":            "My Pipeline",
				"BUILDKITE_ORGANIZATION_SLUG":        "acme",
				"BUILDKITE_BUILD_ID":                 "f62a1b4d-10f9-4790-bc1c-e2c3a0c80983",
				"BUILDKITE_BUILD_NUMBER":             "1514",
				"BUILDKITE_BUILD_URL":                "https://buildkite.com/acme/my-pipeline/builds/1514",
				"BUILDKITE_JOB_ID":                   "e44f9784-e20e-4b93-a21d-f41fd5869db9",
				"BUILDKITE_LABEL":                    ":hammer: Tests",
				"BUILDKITE_STEP_KEY":                 "tests",
				"BUILDKITE_AGENT_ID":                 "1a222222-e999-3636-8ddd-802222222222",
				"BUILDKITE_AGENT_NAME":               "elastic-builders-088264dc4f9",
				"BUILDKITE_REPO":                     "git@github.com:acme/widgets.git",
				"BUILDKITE_COMMIT":                   "4444444444444444444444444444444444444444",
				"BUILDKITE_BRANCH":                   "feature-y",
				"BUILDKITE_TAG":                      "",
				"BUILDKITE_PULL_REQUEST":             "123",
				"BUILDKITE_PULL_REQUEST_BASE_BRANCH": "main",
				"BUILDKITE_AGENT_ACCESS_TOKEN":       "secret",
			},
			want: Info{
				System:   Buildkite,
				Project:  "widgets",
				TaskName: ":hammer: Tests",
				Attrs: []attribute.KeyValue{
					s("cicd.pipeline.name", "My Pipeline"),
					s("cicd.pipeline.run.id", "f62a1b4d-10f9-4790-bc1c-e2c3a0c80983"),
					s("cicd.pipeline.run.url.full", "https://buildkite.com/acme/my-pipeline/builds/1514"),
					s("cicd.pipeline.task.run.id", "e44f9784-e20e-4b93-a21d-f41fd5869db9"),
					s("cicd.pipeline.task.run.url.full", "https://buildkite.com/acme/my-pipeline/builds/1514#e44f9784-e20e-4b93-a21d-f41fd5869db9"),
					s("cicd.worker.id", "1a222222-e999-3636-8ddd-802222222222"),
					s("cicd.worker.name", "elastic-builders-088264dc4f9"),
					s("vcs.repository.url.full", "https://github.com/acme/widgets"),
					s("vcs.repository.name", "widgets"),
					s("vcs.ref.head.revision", "4444444444444444444444444444444444444444"),
					s("vcs.ref.head.name", "feature-y"),
					s("vcs.ref.head.type", "branch"),
					s("vcs.change.id", "123"),
					s("vcs.ref.base.name", "main"),
				},
			},
		},
		{
			name: "buildkite tag build",
			env: map[string]string{
				"BUILDKITE":               "true",
				"BUILDKITE_PIPELINE_SLUG": "release",
				"BUILDKITE_BUILD_ID":      "b1",
				"BUILDKITE_JOB_ID":        "j1",
				"BUILDKITE_STEP_KEY":      "publish",
				"BUILDKITE_REPO":          "",
				"BUILDKITE_COMMIT":        "5555555555555555555555555555555555555555",
				"BUILDKITE_BRANCH":        "v2.0.0",
				"BUILDKITE_TAG":           "v2.0.0",
				"BUILDKITE_PULL_REQUEST":  "false",
			},
			want: Info{
				System:   Buildkite,
				Project:  "release",
				TaskName: "publish",
				Attrs: []attribute.KeyValue{
					s("cicd.pipeline.name", "release"),
					s("cicd.pipeline.run.id", "b1"),
					s("cicd.pipeline.task.run.id", "j1"),
					s("vcs.ref.head.revision", "5555555555555555555555555555555555555555"),
					s("vcs.ref.head.name", "v2.0.0"),
					s("vcs.ref.head.type", "tag"),
				},
			},
		},
		{
			name: "jenkins multibranch change request",
			env: map[string]string{
				"JENKINS_URL":      "https://ci.example.org/",
				"JENKINS_HOME":     "/var/lib/jenkins",
				"BUILD_ID":         "15",
				"BUILD_NUMBER":     "15",
				"BUILD_TAG":        "jenkins-widgets-PR-7-15",
				"BUILD_URL":        "https://ci.example.org/job/widgets/job/PR-7/15/",
				"JOB_NAME":         "widgets/PR-7",
				"JOB_BASE_NAME":    "PR-7",
				"STAGE_NAME":       "Test",
				"NODE_NAME":        "linux-agent-2",
				"EXECUTOR_NUMBER":  "0",
				"GIT_URL":          "https://jenkins:ghp_secret@github.com/acme/widgets.git",
				"GIT_COMMIT":       "6666666666666666666666666666666666666666",
				"GIT_BRANCH":       "PR-7",
				"BRANCH_NAME":      "PR-7",
				"CHANGE_ID":        "7",
				"CHANGE_BRANCH":    "fix-flaky",
				"CHANGE_TARGET":    "main",
				"CHANGE_TITLE":     "Fix flaky test",
				"CHANGE_AUTHOR":    "someone",
				"JENKINS_PASSWORD": "secret",
			},
			want: Info{
				System:   Jenkins,
				Project:  "widgets",
				TaskName: "Test",
				Attrs: []attribute.KeyValue{
					s("cicd.pipeline.name", "widgets/PR-7"),
					s("cicd.pipeline.run.id", "15"),
					s("cicd.pipeline.run.url.full", "https://ci.example.org/job/widgets/job/PR-7/15/"),
					s("cicd.worker.name", "linux-agent-2"),
					s("vcs.repository.url.full", "https://github.com/acme/widgets"),
					s("vcs.repository.name", "widgets"),
					s("vcs.ref.head.revision", "6666666666666666666666666666666666666666"),
					s("vcs.ref.head.name", "fix-flaky"),
					s("vcs.ref.head.type", "branch"),
					s("vcs.ref.base.name", "main"),
					s("vcs.change.id", "7"),
				},
			},
		},
		{
			name: "jenkins freestyle job with the git plugin",
			env: map[string]string{
				"JENKINS_URL":   "http://jenkins:8080/",
				"BUILD_ID":      "3",
				"BUILD_NUMBER":  "3",
				"BUILD_URL":     "http://jenkins:8080/job/nightly/3/",
				"JOB_NAME":      "nightly",
				"JOB_BASE_NAME": "nightly",
				"NODE_NAME":     "built-in",
				"GIT_URL":       "ssh://git@git.example.org:7999/tools/nightly.git",
				"GIT_COMMIT":    "7777777777777777777777777777777777777777",
				"GIT_BRANCH":    "origin/main",
			},
			want: Info{
				System:   Jenkins,
				Project:  "nightly",
				TaskName: "nightly",
				Attrs: []attribute.KeyValue{
					s("cicd.pipeline.name", "nightly"),
					s("cicd.pipeline.run.id", "3"),
					s("cicd.pipeline.run.url.full", "http://jenkins:8080/job/nightly/3/"),
					s("cicd.worker.name", "built-in"),
					s("vcs.repository.url.full", "https://git.example.org/tools/nightly"),
					s("vcs.repository.name", "nightly"),
					s("vcs.ref.head.revision", "7777777777777777777777777777777777777777"),
					s("vcs.ref.head.name", "main"),
					s("vcs.ref.head.type", "branch"),
				},
			},
		},
		{
			name: "buildomat job from the GitHub integration",
			env: map[string]string{
				"BUILDOMAT_JOB_ID":  "01HZX3R8Q9V6M2T4K5N7P8W0YB",
				"BUILDOMAT_TASK_ID": "2",
				"CI":                "true",
				"GITHUB_REPOSITORY": "oxidecomputer/propolis",
				"GITHUB_SHA":        "8888888888888888888888888888888888888888",
				"GITHUB_BRANCH":     "master",
				"GITHUB_REF":        "refs/heads/master",
				"GITHUB_TOKEN":      "ghs_secret",
			},
			want: Info{
				System:  Buildomat,
				Project: "propolis",
				Attrs: []attribute.KeyValue{
					s("cicd.pipeline.task.run.id", "01HZX3R8Q9V6M2T4K5N7P8W0YB"),
					s("vcs.repository.url.full", "https://github.com/oxidecomputer/propolis"),
					s("vcs.repository.name", "propolis"),
					s("vcs.owner.name", "oxidecomputer"),
					s("vcs.provider.name", "github"),
					s("vcs.ref.head.revision", "8888888888888888888888888888888888888888"),
					s("vcs.ref.head.name", "master"),
					s("vcs.ref.head.type", "branch"),
				},
			},
		},
		{
			name: "taskcluster generic-worker task",
			env: map[string]string{
				"TASK_ID":                     "fN1SbArXTPSVFNUvaOlinQ",
				"RUN_ID":                      "1",
				"TASK_GROUP_ID":               "Q4hHfDYNSdOVBsa2Zt6SgQ",
				"TASKCLUSTER_ROOT_URL":        "https://firefox-ci-tc.services.mozilla.com/",
				"TASKCLUSTER_INSTANCE_TYPE":   "c5.4xlarge",
				"TASKCLUSTER_PROXY_URL":       "http://taskcluster",
				"TASKCLUSTER_WORKER_LOCATION": `{"cloud":"aws","region":"us-east-1"}`,
				"TASKCLUSTER_CLIENT_ID":       "task-client/xyz",
				"TASKCLUSTER_ACCESS_TOKEN":    "secret",
			},
			want: Info{
				System:   Taskcluster,
				HostType: "c5.4xlarge",
				Attrs: []attribute.KeyValue{
					s("cicd.pipeline.run.id", "Q4hHfDYNSdOVBsa2Zt6SgQ"),
					s("cicd.pipeline.run.url.full", "https://firefox-ci-tc.services.mozilla.com/tasks/groups/Q4hHfDYNSdOVBsa2Zt6SgQ"),
					s("cicd.pipeline.task.run.id", "fN1SbArXTPSVFNUvaOlinQ"),
					s("cicd.pipeline.task.run.url.full", "https://firefox-ci-tc.services.mozilla.com/tasks/fN1SbArXTPSVFNUvaOlinQ/runs/1"),
				},
			},
		},
		{
			name: "no CI system",
			env: map[string]string{
				"CI":      "true",
				"TASK_ID": "not-taskcluster",
				"HOME":    "/root",
			},
			want: Info{},
		},
		{
			name: "empty environment",
			env:  map[string]string{},
			want: Info{},
		},
	}
}

// traceIDFromFormula computes the GitHub receiver's trace ID from its
// description, independently of GitHubTraceID: hex of SHA-256 over
// run ID, attempt and "t", first 32 hex digits.
func traceIDFromFormula(runID, attempt string) trace.TraceID {
	sum := sha256.Sum256([]byte(runID + attempt + "t"))
	var id trace.TraceID
	if _, err := hex.Decode(id[:], []byte(hex.EncodeToString(sum[:])[:32])); err != nil {
		panic(err)
	}
	return id
}

// spanIDFromFormula does the same for the receiver's run span ID: hex digits
// 16 to 32 of SHA-256 over run ID, attempt and "s".
func spanIDFromFormula(runID, attempt string) trace.SpanID {
	sum := sha256.Sum256([]byte(runID + attempt + "s"))
	var id trace.SpanID
	if _, err := hex.Decode(id[:], []byte(hex.EncodeToString(sum[:])[16:32])); err != nil {
		panic(err)
	}
	return id
}

func TestDetect(t *testing.T) {
	for _, f := range fixtures(t) {
		t.Run(f.name, func(t *testing.T) {
			got := Detect(mapEnv(f.env))
			if !reflect.DeepEqual(got, f.want) {
				t.Errorf("Detect() =\n%s\nwant\n%s", dump(got), dump(f.want))
			}
		})
	}
}

func mapEnv(env map[string]string) func(string) string {
	return func(k string) string { return env[k] }
}

func dump(i Info) string {
	var b strings.Builder
	fmt.Fprintf(&b, "  System=%q Project=%q TaskName=%q HostType=%q\n", i.System, i.Project, i.TaskName, i.HostType)
	fmt.Fprintf(&b, "  TraceID=%s ParentSpanID=%s\n", i.TraceID, i.ParentSpanID)
	for _, kv := range i.Attrs {
		fmt.Fprintf(&b, "  %s=%q\n", kv.Key, kv.Value.Emit())
	}
	return b.String()
}

func TestGitHubTraceID(t *testing.T) {
	cases := []struct {
		run, attempt uint64
		want         string
	}{
		// Trace IDs from the GitHub receiver's golden file
		// testdata/workflow-run-expected.yaml: the run's own trace
		// (attempt 13) and the link to the previous attempt (12).
		{14460881260, 13, "731ec8a47fd7450f753a812a4a8aa5a0"},
		{14460881260, 12, "3ab150c94bf95169f4958bc860bddc3b"},
	}
	for _, c := range cases {
		if got := GitHubTraceID(c.run, c.attempt).String(); got != c.want {
			t.Errorf("GitHubTraceID(%d, %d) = %s, want %s", c.run, c.attempt, got, c.want)
		}
	}
	for _, c := range [][2]uint64{{1, 1}, {9753949763, 1}, {9753949763, 2}, {0, 0}, {1<<63 - 1, 99}} {
		run, attempt := fmt.Sprint(c[0]), fmt.Sprint(c[1])
		if got, want := GitHubTraceID(c[0], c[1]), traceIDFromFormula(run, attempt); got != want {
			t.Errorf("GitHubTraceID(%s, %s) = %s, formula gives %s", run, attempt, got, want)
		}
		if got, want := GitHubRunSpanID(c[0], c[1]), spanIDFromFormula(run, attempt); got != want {
			t.Errorf("GitHubRunSpanID(%s, %s) = %s, formula gives %s", run, attempt, got, want)
		}
	}
}

func TestGitHubTraceIDNeedsWellFormedNumbers(t *testing.T) {
	base := map[string]string{
		"GITHUB_ACTIONS":     "true",
		"GITHUB_RUN_ID":      "123",
		"GITHUB_RUN_ATTEMPT": "1",
	}
	for _, bad := range []struct{ key, value string }{
		{"GITHUB_RUN_ATTEMPT", ""}, // older runners did not set it
		{"GITHUB_RUN_ID", ""},
		{"GITHUB_RUN_ID", "12a"},
		{"GITHUB_RUN_ID", "+123"},
		{"GITHUB_RUN_ID", "-123"},
		{"GITHUB_RUN_ATTEMPT", " 1"},
		{"GITHUB_RUN_ID", "99999999999999999999"},
	} {
		env := map[string]string{}
		for k, v := range base {
			env[k] = v
		}
		env[bad.key] = bad.value
		info := Detect(mapEnv(env))
		if info.TraceID.IsValid() || info.ParentSpanID.IsValid() {
			t.Errorf("%s=%q: got trace %s span %s, want none", bad.key, bad.value, info.TraceID, info.ParentSpanID)
		}
	}
	if info := Detect(mapEnv(base)); info.TraceID != traceIDFromFormula("123", "1") {
		t.Errorf("well-formed run: trace %s", info.TraceID)
	}
}

func TestPullNumber(t *testing.T) {
	for ref, want := range map[string]string{
		"refs/pull/42/merge": "42",
		"refs/pull/7/head":   "7",
		"refs/pull/42":       "",
		"refs/pull/x/merge":  "",
		"refs/heads/main":    "",
		"refs/tags/v1":       "",
		"":                   "",
	} {
		if got := pullNumber(ref); got != want {
			t.Errorf("pullNumber(%q) = %q, want %q", ref, got, want)
		}
	}
}

func TestCanonicalRepoURL(t *testing.T) {
	cases := []struct{ in, full, name string }{
		{"https://github.com/acme/widgets", "https://github.com/acme/widgets", "widgets"},
		{"https://github.com/acme/widgets.git", "https://github.com/acme/widgets", "widgets"},
		{"https://github.com/acme/widgets/", "https://github.com/acme/widgets", "widgets"},
		{"git@github.com:acme/widgets.git", "https://github.com/acme/widgets", "widgets"},
		{"github.com:acme/widgets", "https://github.com/acme/widgets", "widgets"},
		{"ssh://git@git.example.org:7999/tools/nightly.git", "https://git.example.org/tools/nightly", "nightly"},
		{"git://git.example.org/tools/nightly", "https://git.example.org/tools/nightly", "nightly"},
		{"https://user:tok3n@gitlab.example.com:8443/g/s/r.git?private_token=x#frag", "https://gitlab.example.com:8443/g/s/r", "r"},
		{"http://gitlab.internal/group/repo", "http://gitlab.internal/group/repo", "repo"},
		{"  https://host/a/b  ", "https://host/a/b", "b"},
		{"file:///srv/git/repo.git", "", ""},
		{"/srv/git/repo.git", "", ""},
		{"https://host/", "", ""},
		{"https://host/.git", "", ""},
		{"https://%zz", "", ""},
		{"", "", ""},
	}
	for _, c := range cases {
		full, name := canonicalRepoURL(c.in)
		if full != c.full || name != c.name {
			t.Errorf("canonicalRepoURL(%q) = %q, %q; want %q, %q", c.in, full, name, c.full, c.name)
		}
	}
}

// secretLike matches names of variables that hold credentials in the CI
// systems above; none of them may ever be read.
var secretLike = regexp.MustCompile(`TOKEN|SECRET|PASSWORD|PASSWD|(API|ACCESS|PRIVATE|SIGNING|SSH)_KEY|CREDENTIAL|CERTIFICATE`)

// TestReadsOnlyDocumentedVariables records every variable Detect looks up
// over all fixtures: none may look like a secret, and each must be listed in
// docs/ci.md. It also checks that no value of a secret reaches an attribute.
func TestReadsOnlyDocumentedVariables(t *testing.T) {
	docs := readDoc(t, "ci.md")
	read := map[string]bool{}
	for _, f := range fixtures(t) {
		info := Detect(func(k string) string {
			read[k] = true
			return f.env[k]
		})
		for _, kv := range info.Attrs {
			v := kv.Value.Emit()
			if strings.Contains(v, "secret") || strings.Contains(v, "tok3n") {
				t.Errorf("%s: attribute %s=%q carries a secret", f.name, kv.Key, v)
			}
		}
	}
	var names []string
	for k := range read {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if secretLike.MatchString(k) {
			t.Errorf("Detect reads %s, which may hold a secret", k)
		}
		if !strings.Contains(docs, "`"+k+"`") {
			t.Errorf("Detect reads %s, which docs/ci.md does not list", k)
		}
	}
}

// TestDocsListEveryAttribute checks that every attribute key Detect emits for
// the fixtures (which between them take every branch) is in docs/ci.md.
func TestDocsListEveryAttribute(t *testing.T) {
	docs := readDoc(t, "ci.md")
	seen := map[attribute.Key]bool{}
	for _, f := range fixtures(t) {
		for _, kv := range Detect(mapEnv(f.env)).Attrs {
			seen[kv.Key] = true
		}
	}
	if len(seen) < 15 {
		t.Fatalf("fixtures emit only %d keys; expected every cicd.* and vcs.* key in use", len(seen))
	}
	for k := range seen {
		if !strings.Contains(docs, "`"+string(k)+"`") {
			t.Errorf("attribute %s is emitted but docs/ci.md does not list it", k)
		}
	}
	for _, sys := range []string{GitHubActions, GitLabCI, Buildkite, Jenkins, Buildomat, Taskcluster} {
		if !strings.Contains(docs, "`"+sys+"`") {
			t.Errorf("system %s is not named in docs/ci.md", sys)
		}
	}
}

func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Values from the CI environment are cleaned where they are read: a branch
// name or a job name with invalid UTF-8 or an escape sequence comes out
// valid UTF-8 without control characters.
func TestDetectCleansValues(t *testing.T) {
	env := map[string]string{
		"GITHUB_ACTIONS":    "true",
		"GITHUB_JOB":        "build\x1b[2J",
		"GITHUB_REPOSITORY": "org/repo\xff",
		"GITHUB_REF_NAME":   "feature\r\nx",
		"GITHUB_REF_TYPE":   "branch",
	}
	got := Detect(mapEnv(env))
	if got.TaskName != "build\uFFFD[2J" || got.Project != "repo\uFFFD" {
		t.Errorf("TaskName %q, Project %q", got.TaskName, got.Project)
	}
	found := false
	for _, kv := range got.Attrs {
		v := kv.Value.Emit()
		if !utf8.ValidString(v) || strings.ContainsAny(v, "\x1b\r\n") {
			t.Errorf("%s = %q", kv.Key, v)
		}
		found = found || v == "feature\uFFFD\uFFFDx"
	}
	if !found {
		t.Errorf("no cleaned branch name in %s", dump(got))
	}
}
