package session

import (
	"context"
	"regexp"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/agent/cienv"
	"github.com/jobtrace/jobtrace/config"
)

// FromConfig maps every setting of the configuration that concerns a
// session: `jobtrace run`, `jobtrace start` and the Go API's Task all take
// their settings from it.
func TestFromConfig(t *testing.T) {
	c := config.Default()
	c.Name, c.RecordArgs, c.ServiceName = "build", true, "ci-worker"
	c.PrometheusListen = "127.0.0.1:9464"
	c.Markers.Patterns = []config.Pattern{{Regex: "^warning: (.*)", Event: "compiler-warning"}}
	c.Markers.MarkerDir = false
	c.Limits.MaxOpenPhases = 77
	set := FromConfig(c, cienv.Info{}, "v1.2.3")
	if set.Name != "build" || !set.RecordArgs || set.Version != "v1.2.3" || set.Out != c.Out || set.ExportTimeout != c.ExportTimeout {
		t.Errorf("name, record_args, version, out, export_timeout: %+v", set)
	}
	if set.PrometheusListen != c.PrometheusListen || set.MarkerDir || !set.Socket || set.MaxOpenPhases != 77 || set.MaxSocketConns != c.Limits.MaxSocketConns {
		t.Errorf("prometheus_listen, markers, limits: %+v", set)
	}
	if len(set.Scan.Patterns) != 1 || set.Scan.Patterns[0].Event != "compiler-warning" || set.Scan.Patterns[0].Regexp.String() != regexp.MustCompile("^warning: (.*)").String() {
		t.Errorf("marker patterns: %+v", set.Scan.Patterns)
	}
	if !set.Sampling.Cgroup || set.Sampling.Interval != c.Sampling.Interval || set.Sampling.ProcRoot != "/proc" {
		t.Errorf("sampling: %+v", set.Sampling)
	}
	if v, ok := set.Resource.Set().Value("service.name"); !ok || v.AsString() != "ci-worker" {
		t.Errorf("service.name %v in %v", v, set.Resource)
	}
	c.Sampling.Cgroup, c.SDKDisabled = config.CgroupOff, true
	set = FromConfig(c, cienv.Info{}, "v1.2.3")
	if set.Sampling.Cgroup || set.PrometheusListen != "" {
		t.Errorf("cgroup off, SDK disabled: cgroup %v, prometheus_listen %q", set.Sampling.Cgroup, set.PrometheusListen)
	}
}

// Parent: a span in the context first, then TRACEPARENT, then, with
// trace_id_from_ci, the CI run's own trace.
func TestParent(t *testing.T) {
	tid, _ := trace.TraceIDFromHex("0af7651916cd43dd8448eb211c80319c")
	sid, _ := trace.SpanIDFromHex("b7ad6b7169203331")
	ciTrace, _ := trace.TraceIDFromHex("11111111111111111111111111111111")
	ciSpan, _ := trace.SpanIDFromHex("2222222222222222")
	ci := cienv.Info{TraceID: ciTrace, ParentSpanID: ciSpan}
	env := map[string]string{"TRACEPARENT": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
	getenv := func(k string) string { return env[k] }
	c := config.Default()
	c.TraceIDFromCI = true

	own := trace.NewSpanContext(trace.SpanContextConfig{TraceID: ciTrace, SpanID: sid, TraceFlags: trace.FlagsSampled})
	for _, tc := range []struct {
		name      string
		ctx       context.Context
		getenv    func(string) string
		fromCI    bool
		wantTrace trace.TraceID
		wantSpan  trace.SpanID
	}{
		{"the context's span", trace.ContextWithSpanContext(context.Background(), own), getenv, true, ciTrace, sid},
		{"TRACEPARENT", context.Background(), getenv, true, tid, sid},
		{"the CI run's trace", context.Background(), func(string) string { return "" }, true, ciTrace, ciSpan},
		{"no environment read", context.Background(), nil, true, ciTrace, ciSpan},
		{"trace_id_from_ci off", context.Background(), func(string) string { return "" }, false, trace.TraceID{}, trace.SpanID{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c.TraceIDFromCI = tc.fromCI
			sc := trace.SpanContextFromContext(Parent(tc.ctx, c, ci, tc.getenv))
			if sc.TraceID() != tc.wantTrace || sc.SpanID() != tc.wantSpan {
				t.Errorf("parent %v/%v, want %v/%v", sc.TraceID(), sc.SpanID(), tc.wantTrace, tc.wantSpan)
			}
		})
	}
}
