//go:build unix

package main

import (
	"fmt"
	"strings"
	"testing"
)

func TestTraceIDFromGitHubRun(t *testing.T) {
	env := []string{"GITHUB_ACTIONS=true", "GITHUB_RUN_ID=14460881260", "GITHUB_RUN_ATTEMPT=13",
		"GITHUB_REPOSITORY=octo/widgets", "GITHUB_JOB=build", "GITHUB_SERVER_URL=https://github.com"}
	r := jt(t, env, "run", "--trace-id-from-ci", "--", "true")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	spans, rss := spansOf(t, r.out)
	job := spans["build"]
	if job == nil {
		t.Fatalf("no span named after GITHUB_JOB: %v", spans)
	}
	if got := fmt.Sprintf("%x/%x", job.TraceId, job.ParentSpanId); got != "731ec8a47fd7450f753a812a4a8aa5a0/aba151af7cfbcf0f" {
		t.Errorf("trace/parent = %s, want the GitHub receiver's ids", got)
	}
	var service string
	for _, kv := range rss[0].Resource.Attributes {
		if kv.Key == "service.name" {
			service = kv.Value.GetStringValue()
		}
	}
	if service != "widgets" {
		t.Errorf("service.name = %q, want the repository name", service)
	}
	// Without the flag the trace is new; TRACEPARENT wins over the flag.
	r = jt(t, env, "run", "--", "true")
	spans, _ = spansOf(t, r.out)
	if fmt.Sprintf("%x", spans["build"].TraceId) == "731ec8a47fd7450f753a812a4a8aa5a0" {
		t.Errorf("trace id derived without --trace-id-from-ci")
	}
	r = jt(t, append(env, "TRACEPARENT=00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"), "run", "--trace-id-from-ci", "--", "true")
	spans, _ = spansOf(t, r.out)
	if fmt.Sprintf("%x", spans["build"].TraceId) != "4bf92f3577b34da6a3ce929d0e0e4736" {
		t.Errorf("TRACEPARENT did not win over the CI trace id")
	}
}

func TestJobRunsWhenArtifactsCannotBeWritten(t *testing.T) {
	r := jt(t, nil, "run", "--out", "/proc/self/no-such-dir/out", "--", "sh", "-c", "echo still-ran; exit 9")
	if r.code != 9 || r.stdout != "still-ran\n" {
		t.Errorf("code %d stdout %q", r.code, r.stdout)
	}
	if !strings.Contains(r.stderr, "without telemetry") {
		t.Errorf("no explanation: %q", r.stderr)
	}
}
