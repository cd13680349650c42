package jobtrace

import (
	"io"
	"maps"
	"os"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/config"
	"github.com/jobtrace/jobtrace/exporters/otlp"
)

// Option configures a Task; see Start for the order they apply in.
type Option interface {
	apply(*settings)
}

type optionFunc func(*settings)

func (f optionFunc) apply(s *settings) { f(s) }

// settings are what Start builds a Task from: jobtrace's configuration and
// what only a Task has.
type settings struct {
	cfg     config.Config
	runID   string
	attrs   []attribute.KeyValue
	log     io.Writer
	onError func(error)
	// getenv is the environment of WithEnv; nil when none is read.
	getenv func(string) string
}

// defaults are the first layer: jobtrace's defaults, without a summary,
// messages on stderr.
func defaults() settings {
	return settings{cfg: config.Default(), log: os.Stderr}
}

// envOption is WithEnv's: applied before every other option.
type envOption struct{ getenv func(string) string }

func (o envOption) apply(s *settings) { s.getenv = o.getenv }

// WithEnv reads the standard OTEL_* variables, TRACEPARENT and TRACESTATE
// (the parent when the ctx of Start has none) and the CI system's
// variables through getenv (os.Getenv when nil); see the package
// documentation. They apply before every other option, wherever WithEnv
// is in the list.
func WithEnv(getenv func(string) string) Option {
	if getenv == nil {
		getenv = os.Getenv
	}
	return envOption{getenv}
}

// WithName sets the task's name: its span's name and
// cicd.pipeline.task.name. The default is "task".
func WithName(name string) Option {
	return optionFunc(func(s *settings) { s.cfg.Name = name })
}

// WithRunID sets cicd.pipeline.task.run.id on the task's span, the run's
// id in the CI system (a Taskcluster task id and run number).
func WithRunID(id string) Option {
	return optionFunc(func(s *settings) { s.runID = id })
}

// WithOut sets the directory the artifacts are written to, made if need be.
// The default is jobtrace-out in the working directory.
func WithOut(dir string) Option {
	return optionFunc(func(s *settings) { s.cfg.Out = dir })
}

// WithInterval sets the time between two samples of resource usage
// (samples are also taken at every phase boundary); 0 turns sampling off.
// The default is a second; the shortest is config.MinInterval.
func WithInterval(d time.Duration) Option {
	return optionFunc(func(s *settings) { s.cfg.Sampling.Interval = d })
}

// WithExportTimeout bounds how long Stop waits for a slow or dead
// collector. The default is 3 s.
func WithExportTimeout(d time.Duration) Option {
	return optionFunc(func(s *settings) { s.cfg.ExportTimeout = d })
}

// WithEndpoint exports the task's spans and metrics over OTLP to url, as
// OTEL_EXPORTER_OTLP_ENDPOINT does (http/protobuf by default, to url's
// /v1/traces and /v1/metrics). It replaces the signal-specific endpoints
// of WithEnv's layer.
func WithEndpoint(url string) Option {
	return optionFunc(func(s *settings) {
		s.cfg.OTLP.Endpoint = url
		s.cfg.OTLP.TracesEndpoint, s.cfg.OTLP.MetricsEndpoint = "", ""
	})
}

// WithHeaders sends headers with every export request, as
// OTEL_EXPORTER_OTLP_HEADERS does. They are never printed.
func WithHeaders(headers map[string]string) Option {
	return optionFunc(func(s *settings) { s.cfg.OTLP.Headers = maps.Clone(headers) })
}

// WithExport sets every OTLP export setting at once, starting from
// otlp.DefaultSettings: the endpoints, protocol, TLS files, headers,
// timeouts, compression and the metrics' temporality, per signal if need
// be. It replaces what WithEnv, WithEndpoint or WithHeaders set before it.
func WithExport(set otlp.Settings) Option {
	set.Headers = maps.Clone(set.Headers)
	return optionFunc(func(s *settings) { s.cfg.OTLP = set })
}

// WithServiceName sets the resource's service.name (default: the CI
// project's when WithEnv finds one, else "jobtrace").
func WithServiceName(name string) Option {
	return optionFunc(func(s *settings) { s.cfg.ServiceName = name })
}

// WithAttributes adds attrs to the task's span.
func WithAttributes(attrs ...attribute.KeyValue) Option {
	return optionFunc(func(s *settings) { s.attrs = append(s.attrs, attrs...) })
}

// WithSummary writes the end-of-task summary to the log (WithLog) as
// config.SummaryText or config.SummaryMarkdown; config.SummaryOff, the
// default, writes none.
func WithSummary(format string) Option {
	return optionFunc(func(s *settings) { s.cfg.Summary = format })
}

// WithLog sends the Task's messages to w (default stderr): one line each,
// with a "jobtrace:" prefix, credentials masked; io.Discard silences them.
func WithLog(w io.Writer) Option {
	return optionFunc(func(s *settings) { s.log = w })
}

// WithErrorHandler hands the Task's warnings to handle rather than the
// log: what cost an artifact, a source of phases or the export, but not
// the task (a spool that could not be written, a collector that refused
// the spans, a phase the Task could not record for Phase or Run). handle is
// called from the Task's goroutines, one call at a time; it must return
// quickly.
func WithErrorHandler(handle func(error)) Option {
	return optionFunc(func(s *settings) { s.onError = handle })
}
