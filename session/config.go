package session

import (
	"context"
	"regexp"

	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/agent/cienv"
	"github.com/jobtrace/jobtrace/agent/resource"
	"github.com/jobtrace/jobtrace/config"
	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/spans"
	"github.com/jobtrace/jobtrace/spans/scan"
	"github.com/jobtrace/jobtrace/telemetry"
)

// FromConfig returns the settings of a session configured by c (jobtrace's
// defaults, its file, the OTEL_* and JOBTRACE_* variables and the flags, as
// package config resolves them), where ci is the CI system found in the
// environment and version jobtrace's. It is the one mapping of the
// configuration onto a session: `jobtrace run` and `jobtrace start`
// (cmd/jobtrace) and the Go API's Task (package jobtrace) start from it
// and set only what is theirs: the job's command, name and environment, a
// child and its cgroup, the start time, the log.
func FromConfig(c config.Config, ci cienv.Info, version string) Settings {
	set := Settings{
		Name:            c.Name,
		Out:             c.Out,
		ExportTimeout:   c.ExportTimeout,
		RecordArgs:      c.RecordArgs,
		Version:         version,
		Scan:            scanOptions(c),
		Socket:          c.Markers.Socket,
		MarkerDir:       c.Markers.MarkerDir,
		MaxMessageBytes: c.Limits.MaxMessageBytes,
		MaxMarkerFiles:  c.Limits.MaxMarkerFiles,
		MaxSocketConns:  c.Limits.MaxSocketConns,
		MaxOpenPhases:   c.Limits.MaxOpenPhases,
		Sampling: SamplingOptions{
			Interval: c.Sampling.Interval,
			Cgroup:   c.Sampling.Cgroup == config.CgroupAuto,
			ProcRoot: c.Sampling.ProcRoot,
			SysRoot:  c.Sampling.SysRoot,
		},
		Summary:  c.Summary,
		Resource: ConfigResource(c, ci, version),
		Export:   ConfigExport(c),
	}
	if !c.SDKDisabled {
		set.PrometheusListen = c.PrometheusListen
	}
	return set
}

// ConfigResource is the resource of the telemetry configured by c: its
// service name, host type and attributes, beside what ci and the host say.
func ConfigResource(c config.Config, ci cienv.Info, version string) *sdkresource.Resource {
	return resource.New(resource.Options{
		ServiceName: c.ServiceName, Version: version, HostType: c.HostType,
		Attributes: c.ResourceAttributes, CI: ci,
	})
}

// ConfigExport is where the telemetry configured by c is sent: the
// exporter of each signal, resolved once by config (nil: none).
func ConfigExport(c config.Config) telemetry.ExportSettings {
	e := c.Export()
	return telemetry.ExportSettings{Traces: e.Traces, Metrics: e.Metrics}
}

// scanOptions are the output scanner's: the marker syntaxes and patterns
// of c, whose regular expressions config.Load has checked.
func scanOptions(c config.Config) scan.Options {
	m := c.Markers
	o := scan.Options{Phase: m.Phase, GitHub: m.GitHub, GitLab: m.GitLab, MaxLineBytes: c.Limits.MaxLineBytes}
	for _, p := range m.Patterns {
		o.Patterns = append(o.Patterns, scan.Pattern{Regexp: regexp.MustCompile(p.Regex), Event: cleantext.String(p.Event), Counter: cleantext.String(p.Counter)})
	}
	return o
}

// Parent is the context a session's job span joins: ctx when it holds a
// span (a Go program's own trace), else the trace context of the
// environment read through getenv (TRACEPARENT, TRACESTATE, BAGGAGE), else,
// with trace_id_from_ci, the trace the CI system's own telemetry builds for
// this run (ci). getenv may be nil: no environment is read.
func Parent(ctx context.Context, c config.Config, ci cienv.Info, getenv func(string) string) context.Context {
	if trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	if getenv != nil {
		ctx = spans.ExtractEnv(ctx, getenv)
		if trace.SpanContextFromContext(ctx).IsValid() {
			return ctx
		}
	}
	if c.TraceIDFromCI && ci.TraceID.IsValid() && ci.ParentSpanID.IsValid() {
		sc := trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: ci.TraceID, SpanID: ci.ParentSpanID,
			TraceFlags: trace.FlagsSampled, Remote: true,
		})
		return trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	return ctx
}
