package otlp

import (
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	"go.opentelemetry.io/otel"
)

// RouteErrors sends the OpenTelemetry SDK's errors and its internal log's
// errors to warn, so that they never write to the job's stdout or stderr.
// The job's output belongs to the job. Call it once at startup.
func RouteErrors(warn func(string)) {
	if warn == nil {
		warn = func(string) {}
	}
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		warn("opentelemetry: " + err.Error())
	}))
	otel.SetLogger(logr.New(warnSink{warn: warn}))
}

// warnSink is a logr sink that drops info messages and passes errors on.
type warnSink struct {
	warn   func(string)
	name   string
	values []any
}

func (warnSink) Init(logr.RuntimeInfo)  {}
func (warnSink) Enabled(level int) bool { return false }
func (warnSink) Info(int, string, ...any) {
}

func (s warnSink) Error(err error, msg string, kv ...any) {
	var b strings.Builder
	b.WriteString("opentelemetry: ")
	if s.name != "" {
		b.WriteString(s.name + ": ")
	}
	b.WriteString(msg)
	if err != nil {
		b.WriteString(": " + err.Error())
	}
	all := append(append([]any{}, s.values...), kv...)
	for i := 0; i+1 < len(all); i += 2 {
		fmt.Fprintf(&b, " %v=%v", all[i], all[i+1])
	}
	s.warn(b.String())
}

func (s warnSink) WithValues(kv ...any) logr.LogSink {
	s.values = append(append([]any{}, s.values...), kv...)
	return s
}

func (s warnSink) WithName(name string) logr.LogSink {
	if s.name != "" {
		name = s.name + "/" + name
	}
	s.name = name
	return s
}
