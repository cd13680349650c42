package spool

import (
	"context"
	"sort"
	"testing"
	"time"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/jobtrace/jobtrace/internal/otlptest"
)

// rssClient keeps what the SDK's transform to OTLP hands it.
type rssClient struct{ rss []*tracepb.ResourceSpans }

func (c *rssClient) Start(context.Context) error { return nil }
func (c *rssClient) Stop(context.Context) error  { return nil }
func (c *rssClient) UploadTraces(_ context.Context, rss []*tracepb.ResourceSpans) error {
	c.rss = rss
	return nil
}

// sortRequest orders resources and scopes, whose order the SDK's transform
// leaves to a map.
func sortRequest(r *coltracepb.ExportTraceServiceRequest) {
	key := func(m proto.Message) string { return prototext.Format(m) }
	for _, rs := range r.ResourceSpans {
		sort.Slice(rs.ScopeSpans, func(i, j int) bool {
			return key(rs.ScopeSpans[i].GetScope()) < key(rs.ScopeSpans[j].GetScope())
		})
	}
	sort.Slice(r.ResourceSpans, func(i, j int) bool {
		return key(r.ResourceSpans[i].GetResource()) < key(r.ResourceSpans[j].GetResource())
	})
}

// encodeSpans writes what the SDK's transform to OTLP and encodeLine
// write: the lines read back the same, span for span.
func TestEncodeSpansMatchesTheSDKTransform(t *testing.T) {
	stubs := []tracetest.SpanStub{}
	t0 := time.Unix(1_700_000_000, 123456789)
	tid := trace.TraceID{1, 2, 3}
	parent := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{9}, TraceFlags: trace.FlagsSampled, Remote: true})
	ts, _ := trace.ParseTraceState("vendor=value")
	resA := resource.NewSchemaless(attribute.String("service.name", "jobtrace"), attribute.String("host.name", "ci-1"))
	resB := resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0", attribute.String("service.name", "other"))
	scopeA := instrumentation.Scope{Name: "jobtrace", Version: "1.2.3"}
	scopeB := instrumentation.Scope{Name: "jobtrace/exec", SchemaURL: "https://example.com/s", Attributes: attribute.NewSet(attribute.Bool("x", true))}
	all := []attribute.KeyValue{
		attribute.Bool("b", true), attribute.Int64("i", -7), attribute.Float64("f", 1.5), attribute.String("s", "é \"q\""),
		attribute.BoolSlice("bs", []bool{true, false}), attribute.Int64Slice("is", []int64{1, 2}),
		attribute.Float64Slice("fs", []float64{0.25}), attribute.StringSlice("ss", []string{"a", ""}),
		attribute.StringSlice("empty", []string{}),
	}
	for i := range 40 {
		sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{byte(i + 1), 0xaa}, TraceFlags: trace.TraceFlags(i % 2), TraceState: ts})
		st := tracetest.SpanStub{
			Name: "span", SpanContext: sc, Parent: parent,
			SpanKind: trace.SpanKind(i % 6), StartTime: t0.Add(time.Duration(i) * time.Millisecond), EndTime: t0.Add(time.Second),
			Attributes: all[:i%len(all)], DroppedAttributes: i % 3,
			Resource: resA, InstrumentationScope: scopeA,
		}
		if i%3 == 0 {
			st.Resource = resB
		}
		if i%4 == 0 {
			st.InstrumentationScope = scopeB
			st.Parent = trace.SpanContext{}
		}
		if i%5 == 0 {
			st.Status = sdktrace.Status{Code: codes.Error, Description: "exit 2"}
			st.Events = []sdktrace.Event{{Name: "ev", Time: t0.Add(time.Millisecond), Attributes: all[:3], DroppedAttributeCount: 1}}
			st.Links = []sdktrace.Link{{SpanContext: parent, Attributes: all[3:5], DroppedAttributeCount: 2}}
			st.DroppedEvents, st.DroppedLinks = 1, 2
		}
		if i%7 == 0 {
			st.Status = sdktrace.Status{Code: codes.Ok}
		}
		stubs = append(stubs, st)
	}
	spans := tracetest.SpanStubs(stubs).Snapshots()

	c := &rssClient{}
	exp := otlptrace.NewUnstarted(c)
	if err := exp.ExportSpans(context.Background(), spans); err != nil {
		t.Fatal(err)
	}
	want, err := encodeLine(c.rss)
	if err != nil {
		t.Fatal(err)
	}
	got, err := encodeSpans(spans)
	if err != nil {
		t.Fatal(err)
	}
	wreq, wn, err := decodeLine(t, want[:len(want)-1])
	if err != nil {
		t.Fatal(err)
	}
	greq, gn, err := decodeLine(t, got[:len(got)-1])
	if err != nil {
		t.Fatal(err)
	}
	sortRequest(wreq)
	sortRequest(greq)
	if gn != wn || gn != len(spans) || !proto.Equal(greq, wreq) {
		t.Errorf("%d and %d spans; the lines differ:\ngot  %s\nwant %s", gn, wn, got, want)
	}

	// The line is the JSON of an ExportTraceServiceRequest, byte for byte.
	td, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(got)
	if err != nil {
		t.Fatal(err)
	}
	req, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(req)+"\n" {
		t.Errorf("the line is not the JSON of an export request:\ngot  %s\nwant %s", got, req)
	}
}

// A string that is not valid UTF-8 does not cost the line: it is written
// with U+FFFD and reads back.
func TestEncodeSpansRepairsUTF8(t *testing.T) {
	spans := tracetest.SpanStubs{{Name: "bad \xff name", Attributes: []attribute.KeyValue{attribute.String("k\xfe", "v\xff")}}}.Snapshots()
	line, err := encodeSpans(spans)
	if err != nil {
		t.Fatal(err)
	}
	req, n, err := decodeLine(t, line[:len(line)-1])
	if err != nil || n != 1 {
		t.Fatalf("read back: %d spans, %v", n, err)
	}
	s := req.ResourceSpans[0].ScopeSpans[0].Spans[0]
	if s.Name != "bad \uFFFD name" || s.Attributes[0].Key != "k\uFFFD" || s.Attributes[0].Value.GetStringValue() != "v\uFFFD" {
		t.Errorf("span %v", s)
	}
}

func BenchmarkEncodeSpans(b *testing.B) {
	var stubs tracetest.SpanStubs
	for range MaxLineSpans {
		st := tracetest.SpanStub{Name: "step", SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{1}, SpanID: trace.SpanID{2}})}
		for k := range 15 {
			st.Attributes = append(st.Attributes, attribute.Float64("jobtrace.usage.x"+string(rune('a'+k)), 1.5))
		}
		stubs = append(stubs, st)
	}
	spans := stubs.Snapshots()
	b.Run("sdk-transform+encodeLine", func(b *testing.B) {
		c := &rssClient{}
		exp := otlptrace.NewUnstarted(c)
		for b.Loop() {
			exp.ExportSpans(context.Background(), spans)
			encodeLine(c.rss)
		}
	})
	b.Run("encodeSpans", func(b *testing.B) {
		for b.Loop() {
			encodeSpans(spans)
		}
	})
}

// decodeLine reads one line of the spool (without its newline) into the
// proto structs a test compares field by field.
func decodeLine(t testing.TB, line []byte) (*coltracepb.ExportTraceServiceRequest, int, error) {
	var dec ptrace.JSONUnmarshaler
	td, err := unmarshalLine(&dec, line)
	if err != nil {
		return nil, 0, err
	}
	return otlptest.Proto(t, td), td.SpanCount(), nil
}

// encodeLine is the reference encodeSpans is checked against: the proto
// form the SDK's transform makes, handed to pdata for its JSON.
func encodeLine(rss []*tracepb.ResourceSpans) ([]byte, error) {
	pb, err := proto.Marshal(&coltracepb.ExportTraceServiceRequest{ResourceSpans: rss})
	if err != nil {
		return nil, err
	}
	req := ptraceotlp.NewExportRequest()
	if err := req.UnmarshalProto(pb); err != nil {
		return nil, err
	}
	js, err := req.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return append(js, '\n'), nil
}
