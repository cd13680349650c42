package e2e

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// TestSmokeCollectorToJaeger proves the harness without jobtrace: one span sent
// with the OTel Go SDK to the collector must come back from Jaeger's query API
// with its name, parent, attributes and resource.
func TestSmokeCollectorToJaeger(t *testing.T) {
	jaeger := StartJaeger(t)
	collector := StartCollector(t, jaeger.OTLPGRPC)

	ctx := context.Background()
	exp, err := otlptracegrpc.New(ctx,
		otlptracegrpc.WithEndpoint(collector.GRPC),
		otlptracegrpc.WithInsecure())
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSyncer(exp),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "e2e-smoke"))),
	)
	tracer := tp.Tracer("github.com/jobtrace/jobtrace/e2e")
	pctx, parent := tracer.Start(ctx, "smoke-parent")
	_, child := tracer.Start(pctx, "smoke-child", trace.WithAttributes(attribute.Int("e2e.n", 42)))
	child.End()
	parent.End()
	shutdownCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := tp.Shutdown(shutdownCtx); err != nil {
		t.Fatalf("exporting to the collector: %v", err)
	}

	traceID := parent.SpanContext().TraceID().String()
	spans := jaeger.WaitForSpans(t, traceID, 2, 30*time.Second)
	if len(spans) != 2 {
		t.Fatalf("Jaeger has %d spans, want 2", len(spans))
	}
	got := renderTree(spans, func(span) bool { return true })
	want := "smoke-parent\n  smoke-child\n"
	if got != want {
		t.Fatalf("trace tree:\n%s\nwant:\n%s", got, want)
	}
	c, _ := findSpan(spans, "smoke-child")
	if c.SpanID != child.SpanContext().SpanID().String() {
		t.Errorf("child span id %s, want %s", c.SpanID, child.SpanContext().SpanID())
	}
	if c.Attrs["e2e.n"] != "42" {
		t.Errorf("child attribute e2e.n = %q, want 42 (attributes %v)", c.Attrs["e2e.n"], c.Attrs)
	}
	if c.Resource["service.name"] != "e2e-smoke" {
		t.Errorf("service.name = %q, want e2e-smoke", c.Resource["service.name"])
	}
}
