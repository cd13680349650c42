package main

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"

	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/agent"
	"github.com/jobtrace/jobtrace/agent/cienv"
	"github.com/jobtrace/jobtrace/agent/resource"
	"github.com/jobtrace/jobtrace/config"
	"github.com/jobtrace/jobtrace/exporters/otlp"
	"github.com/jobtrace/jobtrace/spans"
	"github.com/jobtrace/jobtrace/spans/scan"
)

func isConfigError(err error) bool { return errors.Is(err, config.ErrConfig) }

// env is the process environment; a variable so tests can fake it.
var getenv = os.Getenv

// settings is what every command needs from the configuration.
type settings struct {
	cfg config.Config
	ci  cienv.Info
}

func loadSettings(fl *config.Flags) (settings, error) {
	cfg, err := config.Load(getenv, fl)
	if err != nil {
		return settings{}, err
	}
	return settings{cfg: cfg, ci: cienv.Detect(getenv)}, nil
}

// exportSettings returns where telemetry goes: nowhere (local artifacts
// only) unless an endpoint is configured and the SDK is not disabled.
func (s settings) exportSettings() agent.ExportSettings {
	var e agent.ExportSettings
	o := s.cfg.OTLP
	if s.cfg.SDKDisabled {
		return e
	}
	// OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER: jobtrace's only
	// exporter is OTLP; "none" turns a signal off (a trace backend such as
	// Jaeger takes no metrics).
	if (o.Endpoint != "" || o.TracesEndpoint != "") && getenv("OTEL_TRACES_EXPORTER") != "none" {
		t := toOTLP(o.ForTraces())
		e.Traces = &t
	}
	if (o.Endpoint != "" || o.MetricsEndpoint != "") && getenv("OTEL_METRICS_EXPORTER") != "none" {
		m := toOTLP(o.ForMetrics())
		e.Metrics = &m
	}
	return e
}

func toOTLP(sig config.Signal) otlp.Settings {
	return otlp.Settings{
		TracesEndpoint:    sig.Endpoint,
		MetricsEndpoint:   sig.Endpoint,
		Protocol:          sig.Protocol,
		Headers:           sig.Headers,
		Insecure:          sig.Insecure,
		Certificate:       sig.Certificate,
		ClientCertificate: sig.ClientCertificate,
		ClientKey:         sig.ClientKey,
		Timeout:           sig.Timeout,
		Compression:       sig.Compression,
	}
}

func (s settings) resource() *sdkresource.Resource {
	return resource.New(resource.Options{
		ServiceName: s.cfg.ServiceName,
		Version:     jobtraceVersion(),
		HostType:    s.cfg.HostType,
		Attributes:  s.cfg.ResourceAttributes,
		CI:          s.ci,
	})
}

// parent is the context the job's span joins: TRACEPARENT if set, else (when
// asked for) the trace the CI system's own telemetry builds for this run.
func (s settings) parent() context.Context {
	ctx := spans.ExtractEnv(context.Background(), getenv)
	if trace.SpanContextFromContext(ctx).IsValid() {
		return ctx
	}
	if s.cfg.TraceIDFromCI && s.ci.TraceID.IsValid() && s.ci.ParentSpanID.IsValid() {
		sc := trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: s.ci.TraceID, SpanID: s.ci.ParentSpanID,
			TraceFlags: trace.FlagsSampled, Remote: true,
		})
		return trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	return ctx
}

// taskName is the job's name: configured, else the CI system's, else the
// command's base name.
func (s settings) taskName(args []string) string {
	switch {
	case s.cfg.Name != "":
		return s.cfg.Name
	case s.ci.TaskName != "":
		return s.ci.TaskName
	case len(args) > 0:
		return filepath.Base(args[0])
	}
	return "job"
}

func (s settings) scanOptions() scan.Options {
	m := s.cfg.Markers
	o := scan.Options{Phase: m.Phase, GitHub: m.GitHub, GitLab: m.GitLab, MaxLineBytes: s.cfg.Limits.MaxLineBytes}
	for _, p := range m.Patterns {
		// Validated by config.Load.
		o.Patterns = append(o.Patterns, scan.Pattern{Regexp: regexp.MustCompile(p.Regex), Event: p.Event, Counter: p.Counter})
	}
	return o
}
