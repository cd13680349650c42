// Command childspan stands for any OpenTelemetry-aware tool that a CI job runs:
// it joins the trace named by TRACEPARENT (and TRACESTATE), the environment
// carrier that jobtrace sets for the job and for `jobtrace exec`, records one
// span and exports it over OTLP with the standard OTEL_EXPORTER_OTLP_* settings.
//
//	childspan [NAME]
//
// NAME is the span name (default "childspan"). The span carries the attribute
// e2e.child=true, and its resource has service.name=childspan, so the e2e tests
// can tell it from jobtrace's own spans. OTEL_EXPORTER_OTLP_PROTOCOL selects
// grpc (default) or http/protobuf. It prints the span's trace and span id.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

func main() {
	name := "childspan"
	if len(os.Args) > 1 {
		name = os.Args[1]
	}
	if err := run(name); err != nil {
		fmt.Fprintln(os.Stderr, "childspan:", err)
		os.Exit(1)
	}
}

func run(name string) error {
	ctx := context.Background()

	// The environment variables are the carrier; the W3C propagator reads the
	// lower-case header names, so map them across.
	carrier := propagation.MapCarrier{
		"traceparent": os.Getenv("TRACEPARENT"),
		"tracestate":  os.Getenv("TRACESTATE"),
	}
	parent := propagation.TraceContext{}.Extract(ctx, carrier)
	if !trace.SpanContextFromContext(parent).IsValid() {
		return fmt.Errorf("no valid TRACEPARENT in the environment (got %q)", carrier["traceparent"])
	}

	exporter, err := newExporter(ctx)
	if err != nil {
		return err
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithSyncer(exporter),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", "childspan"))),
	)
	_, span := tp.Tracer("github.com/jobtrace/jobtrace/e2e/cmd/childspan").Start(parent, name,
		trace.WithAttributes(attribute.Bool("e2e.child", true)))
	time.Sleep(20 * time.Millisecond)
	span.End()
	sc := span.SpanContext()

	shutdownCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := tp.Shutdown(shutdownCtx); err != nil {
		return fmt.Errorf("export: %w", err)
	}
	fmt.Printf("childspan %s trace=%s span=%s\n", name, sc.TraceID(), sc.SpanID())
	return nil
}

// newExporter follows OTEL_EXPORTER_OTLP_PROTOCOL; both exporters read the
// endpoint, insecure and header settings from the environment themselves.
func newExporter(ctx context.Context) (sdktrace.SpanExporter, error) {
	switch p := os.Getenv("OTEL_EXPORTER_OTLP_PROTOCOL"); p {
	case "", "grpc":
		return otlptracegrpc.New(ctx)
	case "http/protobuf":
		return otlptracehttp.New(ctx)
	default:
		return nil, fmt.Errorf("unsupported OTEL_EXPORTER_OTLP_PROTOCOL %q", p)
	}
}
