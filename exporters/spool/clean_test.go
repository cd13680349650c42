package spool

import (
	"context"
	"path/filepath"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/internal/otlptest"
)

// A string that is not valid UTF-8 and reached the spool anyway (every
// door cleans them; this is the net under the doors) costs no span: the
// batch is cleaned and written.
func TestInvalidUTF8ReachingTheSpoolIsCleaned(t *testing.T) {
	path := filepath.Join(t.TempDir(), TracesFile)
	c := NewTraceClient(path)
	var warned []string
	p := NewSpanProcessor(c, WithWarn(func(s string) { warned = append(warned, s) }))
	res := resource.NewSchemaless(attribute.String("a", "\xff\xfe"))
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(p), sdktrace.WithResource(res))
	_, s := tp.Tracer("t").Start(context.Background(), "bad\xffname")
	s.AddEvent("ev\xfe", trace.WithAttributes(attribute.String("k", "v\xff")))
	s.End()
	_, ok := tp.Tracer("t").Start(context.Background(), "good")
	ok.End()
	if err := tp.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 0 {
		t.Errorf("warnings: %q", warned)
	}
	names := map[string]bool{}
	var resVal string
	err := ReadLines(path, 0, func(td ptrace.Traces, _ int, _ int64) error {
		req := otlptest.Proto(t, td)
		for _, rs := range req.ResourceSpans {
			for _, kv := range rs.Resource.Attributes {
				if kv.Key == "a" {
					resVal = kv.Value.GetStringValue()
				}
			}
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					names[sp.Name] = true
					for _, e := range sp.Events {
						names[e.Name] = true
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"bad\uFFFDname", "ev\uFFFD", "good"} {
		if !names[n] {
			t.Errorf("%q not in the spool: %v", n, names)
		}
	}
	if resVal != "\uFFFD\uFFFD" {
		t.Errorf("resource attribute a = %q", resVal)
	}
}
