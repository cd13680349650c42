package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/exporters/otlp"
	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/internal/otlptest"
	"github.com/jobtrace/jobtrace/spans"
)

// An exporter that cannot be built costs its signal, with one warning; the
// pipeline and its local artifacts stay.
func TestPipelineDegradesWhenAnExporterFails(t *testing.T) {
	s := otlp.DefaultSettings()
	s.Endpoint = "http://" + otlptest.Refused(t)
	exp, err := otlp.Resolve(s, otlp.Signals{Traces: true, Metrics: true})
	if err != nil {
		t.Fatal(err)
	}
	var warns []string
	dir := filepath.Join(t.TempDir(), "out")
	p, err := New(dir, sdkresource.Empty(), ExportSettings{
		Traces: exp.Traces, Metrics: exp.Metrics,
		MetricExporter: func(*otlp.Endpoint) (sdkmetric.Exporter, error) { return nil, errors.New("boom") },
	}, func(s string) { warns = append(warns, s) })
	if err != nil {
		t.Fatalf("NewPipeline: %v", err)
	}
	_, span := p.TracerProvider.Tracer("t").Start(context.Background(), "kept")
	span.End()
	r := p.Shutdown(context.Background(), 2*time.Second, true)
	if r.Spans != 1 {
		t.Errorf("%d spans spooled, want 1", r.Spans)
	}
	if data, err := os.ReadFile(filepath.Join(dir, spool.TracesFile)); err != nil || !strings.Contains(string(data), "kept") {
		t.Errorf("spool: %v", err)
	}
	if len(warns) == 0 || !strings.Contains(warns[0], "OTLP metrics to http://") || !strings.Contains(warns[0], "boom") {
		t.Errorf("warnings %q", warns)
	}
}

// The telemetry of a session leaves the process's OpenTelemetry error
// handler as it found it: a Go program embedding a session keeps its own
// (jobtrace run routes OpenTelemetry's errors at its top, in agent.Run).
func TestNewLeavesTheProcessErrorHandler(t *testing.T) {
	var got []string
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) { got = append(got, err.Error()) }))
	t.Cleanup(func() { otlp.RouteErrors(nil) })
	p, err := New(filepath.Join(t.TempDir(), "out"), sdkresource.Empty(), ExportSettings{}, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	p.Shutdown(context.Background(), time.Second, true)
	otel.Handle(errors.New("the embedding program's"))
	if len(got) != 1 {
		t.Errorf("the process's handler got %q after telemetry.New", got)
	}
}

// deadlineExporter is a metric exporter that keeps how far off the
// deadline of each export was.
type deadlineExporter struct {
	sdkmetric.Exporter // nil: only the methods below are called
	left               chan time.Duration
}

func (e *deadlineExporter) Temporality(k sdkmetric.InstrumentKind) metricdata.Temporality {
	return sdkmetric.DefaultTemporalitySelector(k)
}

func (e *deadlineExporter) Aggregation(k sdkmetric.InstrumentKind) sdkmetric.Aggregation {
	return sdkmetric.DefaultAggregationSelector(k)
}

func (e *deadlineExporter) Export(ctx context.Context, _ *metricdata.ResourceMetrics) error {
	d, ok := ctx.Deadline()
	if !ok {
		d = time.Now().Add(time.Hour)
	}
	select {
	case e.left <- time.Until(d):
	default:
	}
	return nil
}

func (e *deadlineExporter) ForceFlush(context.Context) error { return nil }
func (e *deadlineExporter) Shutdown(context.Context) error   { return nil }

// TestMetricExportTimeout: an export of the metrics is bounded by the
// resolved endpoint's timeout; OTEL_METRIC_EXPORT_TIMEOUT, which the SDK's
// periodic reader reads when it is given no timeout, is not read.
// (Shutdown's export is bounded by the deadline Pipeline.Shutdown gives.)
func TestMetricExportTimeout(t *testing.T) {
	t.Setenv("OTEL_METRIC_EXPORT_TIMEOUT", "1") // 1 ms, if it were read
	s := otlp.DefaultSettings()
	s.Endpoint = "http://" + otlptest.Refused(t)
	s.Timeout = time.Hour
	exp, err := otlp.Resolve(s, otlp.Signals{Metrics: true})
	if err != nil {
		t.Fatal(err)
	}
	e := &deadlineExporter{left: make(chan time.Duration, 1)}
	p, err := New(filepath.Join(t.TempDir(), "out"), sdkresource.Empty(), ExportSettings{
		Metrics:        exp.Metrics,
		MetricExporter: func(*otlp.Endpoint) (sdkmetric.Exporter, error) { return e, nil },
	}, func(s string) { t.Error(s) })
	if err != nil {
		t.Fatal(err)
	}
	// A flush without a deadline of its own is bounded by the reader's
	// timeout, as the export every MetricExportInterval is.
	if err := p.mp.ForceFlush(context.Background()); err != nil {
		t.Fatal(err)
	}
	p.Shutdown(context.Background(), time.Minute, true)
	select {
	case left := <-e.left:
		if left < 30*time.Minute {
			t.Errorf("an export had %v left before its deadline: the endpoint's timeout is an hour", left)
		}
	default:
		t.Fatal("no export at shutdown")
	}
}

// The limits of jobtrace's spans are its own: the OTEL_*_LIMIT variables
// the SDK would read, set in the job's environment for the job's tools,
// drop nothing; past spans.MaxSpanAttributes a span says how many it
// dropped.
func TestSpanLimitsIgnoreTheEnvironment(t *testing.T) {
	for _, k := range []string{
		"OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT", "OTEL_ATTRIBUTE_COUNT_LIMIT",
		"OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT",
		"OTEL_SPAN_EVENT_COUNT_LIMIT", "OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT",
	} {
		t.Setenv(k, "1")
	}
	rec := tracetest.NewSpanRecorder()
	p, err := New(filepath.Join(t.TempDir(), "out"), sdkresource.Empty(), ExportSettings{}, func(string) {}, sdktrace.WithSpanProcessor(rec))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(context.Background(), time.Second, false)
	attrs := func(n int) []attribute.KeyValue {
		a := make([]attribute.KeyValue, n)
		for i := range a {
			a[i] = attribute.String(fmt.Sprintf("k%d", i), "a long value")
		}
		return a
	}
	tr := p.TracerProvider.Tracer("t")
	_, kept := tr.Start(context.Background(), "kept", trace.WithAttributes(attrs(10)...))
	kept.AddEvent("e1", trace.WithAttributes(attrs(3)...))
	kept.AddEvent("e2")
	kept.End()
	_, over := tr.Start(context.Background(), "over", trace.WithAttributes(attrs(spans.MaxSpanAttributes()+5)...))
	over.End()
	got := map[string]sdktrace.ReadOnlySpan{}
	for _, s := range rec.Ended() {
		got[s.Name()] = s
	}
	k := got["kept"]
	if k == nil || len(k.Attributes()) != 10 || k.DroppedAttributes() != 0 || len(k.Events()) != 2 ||
		len(k.Events()[0].Attributes) != 3 || k.Attributes()[0].Value.AsString() != "a long value" {
		t.Errorf("a span under the OTEL_*_LIMIT variables: %+v", k)
	}
	if o := got["over"]; o == nil || len(o.Attributes()) != spans.MaxSpanAttributes() || o.DroppedAttributes() != 5 {
		t.Errorf("a span of %d attributes: %+v", spans.MaxSpanAttributes()+5, o)
	}
}

// TestShutdownInterrupted: a caller that cancels Shutdown's context (a
// signal once the job has ended) stops the wait for a collector that never
// answers long before the export timeout; the spool holds every span, the
// spans not delivered are pending, and Err is the cause the caller gave.
func TestShutdownInterrupted(t *testing.T) {
	s := otlp.DefaultSettings()
	s.Endpoint = "http://" + otlptest.Hanging(t)
	exp, err := otlp.Resolve(s, otlp.Signals{Traces: true, Metrics: true})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	p, err := New(dir, sdkresource.Empty(), ExportSettings{Traces: exp.Traces, Metrics: exp.Metrics}, func(string) {})
	if err != nil {
		t.Fatal(err)
	}
	_, span := p.TracerProvider.Tracer("t").Start(context.Background(), "kept")
	span.End()
	ctx, cancel := context.WithCancelCause(context.Background())
	cause := errors.New("interrupted by a test")
	time.AfterFunc(100*time.Millisecond, func() { cancel(cause) })
	start := time.Now()
	r := p.Shutdown(ctx, time.Hour, true)
	if took := time.Since(start); took > 30*time.Minute {
		t.Errorf("Shutdown took %v: the cancellation did not end the export", took)
	}
	if !errors.Is(r.Err, cause) || !errors.Is(r.Interrupted, cause) {
		t.Errorf("Err %v, Interrupted %v: want the cause given", r.Err, r.Interrupted)
	}
	if r.Pending != 1 || r.Spans != 1 {
		t.Errorf("%d spans spooled, %d pending; want 1 and 1", r.Spans, r.Pending)
	}
	if data, err := os.ReadFile(filepath.Join(dir, spool.TracesFile)); err != nil || !strings.Contains(string(data), "kept") {
		t.Errorf("spool: %v", err)
	}
}
