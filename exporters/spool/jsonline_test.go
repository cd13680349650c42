package spool

import (
	"math"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// fuzzBytes hands out the fuzzer's bytes as the choices of spans.
type fuzzBytes struct{ b []byte }

func (f *fuzzBytes) byte() byte {
	if len(f.b) == 0 {
		return 0
	}
	c := f.b[0]
	f.b = f.b[1:]
	return c
}

func (f *fuzzBytes) n(max int) int { return int(f.byte()) % max }

// text is a short string with what a JSON encoder must take care of:
// quotes, backslashes, control characters, DEL, HTML characters, U+2028,
// non-ASCII letters and invalid UTF-8.
func (f *fuzzBytes) text() string {
	pieces := []string{"", "a", "\"", "\\", "\n", "\r", "\t", "\x00", "\x01", "\x1f", "\x7f", "<&>", "\u2028", "é", "日本", "\xff", "\xc3", "span", "/"}
	s := ""
	for range f.n(5) {
		s += pieces[f.n(len(pieces))]
	}
	return s
}

func (f *fuzzBytes) float() float64 {
	fs := []float64{0, 1.5, -2, 1e-7, 1e21, 123456789.125, 1e-300, math.MaxFloat64, math.SmallestNonzeroFloat64, math.NaN(), math.Inf(1), math.Inf(-1), 0.1, -0.0}
	return fs[f.n(len(fs))]
}

func (f *fuzzBytes) value(depth int) attribute.Value {
	switch f.n(12) {
	case 0:
		return attribute.BoolValue(f.byte()%2 == 0)
	case 1:
		return attribute.Int64Value(int64(f.byte())*-1_000_000_007 + math.MaxInt64/int64(f.byte()|1))
	case 2:
		return attribute.Float64Value(f.float())
	case 3:
		return attribute.BoolSliceValue([]bool{f.byte()%2 == 0, true}[:f.n(3)%3])
	case 4:
		return attribute.Int64SliceValue([]int64{int64(f.byte()), -1, math.MinInt64}[:f.n(4)])
	case 5:
		return attribute.Float64SliceValue([]float64{f.float(), f.float()}[:f.n(3)])
	case 6:
		return attribute.StringSliceValue([]string{f.text(), f.text()}[:f.n(3)])
	case 7:
		return attribute.ByteSliceValue([]byte(f.text()))
	case 8:
		if depth < 2 {
			return attribute.SliceValue(f.value(depth+1), f.value(depth+1))
		}
	case 9:
		if depth < 2 {
			return attribute.MapValue(f.attrs(depth + 1)...)
		}
	case 10:
		return attribute.Value{}
	}
	return attribute.StringValue(f.text())
}

// attrs may repeat a key, or give keys that are the same once made valid
// UTF-8.
func (f *fuzzBytes) attrs(depth int) []attribute.KeyValue {
	keys := []string{"k", "service.name", "", "a\xff", "a\xfe", "a\ufffd", "q\"", "日"}
	var kvs []attribute.KeyValue
	n := f.n(6)
	if f.byte()%8 == 0 {
		n = maxScannedKeys + 8 // merged through a map
	}
	for range n {
		kvs = append(kvs, attribute.KeyValue{Key: attribute.Key(keys[f.n(len(keys))]), Value: f.value(depth)})
	}
	return kvs
}

func (f *fuzzBytes) spanContext() trace.SpanContext {
	ts, _ := trace.ParseTraceState([]string{"", "vendor=value", "a=1,b=2"}[f.n(3)])
	return trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{f.byte(), 2}, SpanID: trace.SpanID{f.byte(), 3},
		TraceFlags: trace.TraceFlags(f.byte()), TraceState: ts, Remote: f.byte()%2 == 0,
	})
}

// spans are up to 8 spans of 3 resources and 3 scopes.
func (f *fuzzBytes) spans() []sdktrace.ReadOnlySpan {
	resources := []*resource.Resource{
		resource.NewSchemaless(attribute.String("service.name", "jobtrace")),
		resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0", attribute.String("s", f.text()), attribute.Float64("f", f.float())),
		resource.Empty(),
	}
	scopes := []instrumentation.Scope{
		{Name: "jobtrace", Version: "dev"},
		{Name: f.text(), Version: f.text(), SchemaURL: "https://example.com/s", Attributes: attribute.NewSet(f.attrs(1)...)},
		{},
	}
	t0 := time.Unix(1_700_000_000, 123)
	var stubs []tracetest.SpanStub
	for range f.n(9) {
		st := tracetest.SpanStub{
			Name: f.text(), SpanContext: f.spanContext(), SpanKind: trace.SpanKind(f.n(7)),
			StartTime: t0.Add(time.Duration(f.byte()) * time.Millisecond), EndTime: t0.Add(time.Second),
			Attributes: f.attrs(0), DroppedAttributes: f.n(3), DroppedEvents: f.n(2), DroppedLinks: f.n(2),
			Resource: resources[f.n(len(resources))], InstrumentationScope: scopes[f.n(len(scopes))],
		}
		switch f.n(4) {
		case 0:
			st.Parent = f.spanContext()
		case 1:
			st.StartTime = time.Unix(-5, 0)
			st.EndTime = time.Time{}
		}
		st.Status = sdktrace.Status{Code: codes.Code(f.n(3)), Description: f.text()}
		for range f.n(3) {
			st.Events = append(st.Events, sdktrace.Event{Name: f.text(), Time: t0.Add(time.Duration(f.n(3)-1) * time.Hour * 500000), Attributes: f.attrs(0), DroppedAttributeCount: f.n(2)})
		}
		for range f.n(3) {
			st.Links = append(st.Links, sdktrace.Link{SpanContext: f.spanContext(), Attributes: f.attrs(0), DroppedAttributeCount: f.n(2)})
		}
		stubs = append(stubs, st)
	}
	return tracetest.SpanStubs(stubs).Snapshots()
}

// The spool's line is, byte for byte, what pdata's JSON encoder wrote for
// the same spans filled into pdata (pdataLine), whatever the spans hold.
func FuzzLineAsPdata(f *testing.F) {
	for _, seed := range []string{"", "\x05\x01\x02\x03", "spans of every kind of attribute and text", "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6\xf5\xf4\xf3\xf2\xf1\xf0"} {
		f.Add([]byte(seed))
	}
	for i := range 64 {
		seed := make([]byte, 256)
		for j := range seed {
			seed[j] = byte(i*131 + j*j*7 + j)
		}
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		spans := (&fuzzBytes{data}).spans()
		want, err := pdataLine(spans)
		if err != nil {
			t.Skip(err)
		}
		got, err := encodeSpans(spans)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("line differs from pdata's:\ngot  %s\nwant %s", got, want)
		}
	})
}
