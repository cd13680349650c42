package spans

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// SetResult: the result as the attribute, the status Error with its
// description only for a failing result, the default description when none
// is given, and text made safe.
func TestSetResult(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	cases := []struct {
		result, desc string
		code         codes.Code
		want         string
	}{
		{"success", "ignored", codes.Unset, ""},
		{"skip", "", codes.Unset, ""},
		{"cancellation", "", codes.Unset, ""},
		{"failure", "", codes.Error, "phase ended with result failure"},
		{"timeout", "", codes.Error, "phase ended with result timeout"},
		{"error", "make: command not found\x1b[2J", codes.Error, "make: command not found\ufffd[2J"},
	}
	for _, c := range cases {
		_, sp := tp.Tracer("t").Start(context.Background(), c.result)
		SetResult(sp, c.result, c.desc)
		sp.End()
	}
	for i, s := range exp.GetSpans() {
		c := cases[i]
		result := ""
		for _, kv := range s.Attributes {
			if kv.Key == "cicd.pipeline.task.run.result" {
				result = kv.Value.AsString()
			}
		}
		if result != c.result || s.Status.Code != c.code || s.Status.Description != c.want {
			t.Errorf("%s %q: result %q, status %v %q; want %v %q", c.result, c.desc, result, s.Status.Code, s.Status.Description, c.code, c.want)
		}
	}
}
