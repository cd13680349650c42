package protocol

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
)

func TestParse(t *testing.T) {
	ts := time.Date(2025, 3, 1, 12, 0, 0, 500_000_000, time.UTC)
	tests := []struct {
		name string
		in   string
		want Msg
	}{
		{"minimal begin", `{"type":"begin","name":"compile"}`,
			Msg{V: 1, Type: TypeBegin, Name: "compile"}},
		{"explicit version and spaces", " {\"v\" : 1 , \"type\":\"end\", \"name\":\"compile\", \"result\":\"failure\"}\r\n",
			Msg{V: 1, Type: TypeEnd, Name: "compile", Result: ResultFailure}},
		{"parent and ack", `{"type":"begin","name":"unit","parent":"test","ack":true}`,
			Msg{V: 1, Type: TypeBegin, Name: "unit", Parent: "test", Ack: true}},
		{"rfc3339 ts", `{"type":"event","name":"e","ts":"2025-03-01T12:00:00.5Z"}`,
			Msg{V: 1, Type: TypeEvent, Name: "e", Time: ts}},
		{"counter default value", `{"type":"counter","name":"retries"}`,
			Msg{V: 1, Type: TypeCounter, Name: "retries", Value: 1}},
		{"counter value", `{"type":"counter","name":"bytes","value":2.5e3}`,
			Msg{V: 1, Type: TypeCounter, Name: "bytes", Value: 2500}},
		{"unknown fields skipped", `{"type":"event","x":{"a":[1,{"b":null}],"c":"}"},"name":"e","y":[true,false,-1.5e-3]}`,
			Msg{V: 1, Type: TypeEvent, Name: "e"}},
		{"null is absent", `{"type":"event","name":"e","ts":null,"attrs":null,"parent":null,"ack":null}`,
			Msg{V: 1, Type: TypeEvent, Name: "e"}},
		{"escapes", `{"type":"event","name":"a\"b\\c\/d\n\u00e9\ud83d\ude00"}`,
			Msg{V: 1, Type: TypeEvent, Name: "a\"b\\c/d\ufffdé😀"}},
		// Invalid UTF-8 and control characters become U+FFFD where they
		// come in, in every name, key and string value; tab is kept.
		{"invalid UTF-8", "{\"type\":\"begin\",\"name\":\"a\xff\xfeb\",\"parent\":\"p\xc3\"}",
			Msg{V: 1, Type: TypeBegin, Name: "a\ufffd\ufffdb", Parent: "p\ufffd"}},
		{"control characters", `{"type":"begin","name":"\u001b[2Jx\r\ny\tz\u0085\u2028\u202e"}`,
			Msg{V: 1, Type: TypeBegin, Name: "\ufffd[2Jx\ufffd\ufffdy\tz\ufffd\ufffd\ufffd"}},
		{"raw control characters in attributes", "{\"type\":\"event\",\"name\":\"e\",\"attrs\":{\"k\\u001b\xff\":\"v\\r\xfe\",\"l\":[\"\\u0007\"]}}",
			Msg{V: 1, Type: TypeEvent, Name: "e", Attrs: []attribute.KeyValue{
				attribute.String("k\ufffd\ufffd", "v\ufffd\ufffd"), attribute.StringSlice("l", []string{"\ufffd"}),
			}}},
		{"lone surrogate", `{"type":"event","name":"x\ud800y"}`,
			Msg{V: 1, Type: TypeEvent, Name: "x\ufffdy"}},
		{"attr without name", `{"type":"attr","attrs":{"k":"v"}}`,
			Msg{V: 1, Type: TypeAttr, Attrs: []attribute.KeyValue{attribute.String("k", "v")}}},
		{"stop with a result", `{"v":1,"type":"stop","result":"cancellation","ack":true}`,
			Msg{V: 1, Type: TypeStop, Result: ResultCancellation, Ack: true}},
		{"attrs of every kind", `{"type":"begin","name":"p","attrs":{"s":"x","b":true,"i":42,"neg":-7,"f":1.5,"fi":3.0,"big":1e300,"ss":["a","b"],"bs":[true],"is":[1,2],"fs":[1,2.5],"empty":[],"skip":null}}`,
			Msg{V: 1, Type: TypeBegin, Name: "p", Attrs: []attribute.KeyValue{
				attribute.String("s", "x"), attribute.Bool("b", true), attribute.Int64("i", 42),
				attribute.Int64("neg", -7), attribute.Float64("f", 1.5), attribute.Int64("fi", 3),
				attribute.Float64("big", 1e300), attribute.StringSlice("ss", []string{"a", "b"}),
				attribute.BoolSlice("bs", []bool{true}), attribute.Int64Slice("is", []int64{1, 2}),
				attribute.Float64Slice("fs", []float64{1, 2.5}), attribute.StringSlice("empty", nil),
			}}},
		{"add", `{"type":"add","name":"Run tests","parent":"00f067aa0ba902b7","start":"2025-03-01T12:00:00Z","end":1740830400.5,"result":"failure"}`,
			Msg{V: 1, Type: TypeAdd, Name: "Run tests", Parent: "00f067aa0ba902b7", Result: ResultFailure,
				Start: time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC), End: ts}},
		{"invalid utf-8 in attr value", "{\"type\":\"event\",\"name\":\"e\",\"attrs\":{\"k\":\"a\xffb\"}}",
			Msg{V: 1, Type: TypeEvent, Name: "e", Attrs: []attribute.KeyValue{attribute.String("k", "a\ufffdb")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatalf("Parse(%s): %v", tt.in, err)
			}
			if !sameTimes(got, tt.want) {
				t.Errorf("times = %v %v %v, want %v %v %v", got.Time, got.Start, got.End, tt.want.Time, tt.want.Start, tt.want.End)
			}
			if !reflect.DeepEqual(withoutTimes(got), withoutTimes(tt.want)) {
				t.Errorf("Parse(%s)\n got %#v\nwant %#v", tt.in, got, tt.want)
			}
		})
	}
}

// sameTimes reports whether a and b have the same instants (their
// locations aside).
func sameTimes(a, b Msg) bool {
	return a.Time.Equal(b.Time) && a.Start.Equal(b.Start) && a.End.Equal(b.End)
}

func withoutTimes(m Msg) Msg {
	m.Time, m.Start, m.End = time.Time{}, time.Time{}, time.Time{}
	return m
}

func TestParseUnixTS(t *testing.T) {
	for in, want := range map[string]time.Time{
		`1700000000`:            time.Unix(1700000000, 0),
		`1700000000.123456789`:  time.Unix(1700000000, 123456789),
		`1700000000.5`:          time.Unix(1700000000, 500000000),
		`1700000000.1234567891`: time.Unix(1700000000, 123456789),
		`1.7e9`:                 time.Unix(1700000000, 0),
		`-1.5`:                  time.Unix(-1, -500000000),
	} {
		m, err := Parse([]byte(`{"type":"event","name":"e","ts":` + in + `}`))
		if err != nil {
			t.Fatalf("ts %s: %v", in, err)
		}
		if !m.Time.Equal(want) {
			t.Errorf("ts %s = %v, want %v", in, m.Time, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	long := strings.Repeat("x", MaxNameBytes+1)
	var many strings.Builder
	for i := range MaxAttrs + 1 {
		if i > 0 {
			many.WriteString(",")
		}
		many.WriteString(`"k` + string(rune('A'+i%26)) + strings.Repeat("x", i) + `":1`)
	}
	tests := []struct{ in, reason string }{
		{``, "not a JSON object"},
		{`[]`, "not a JSON object"},
		{`{"type":"begin","name":"x"`, "end of line"},
		{`{"type":"begin","name":"x"} x`, "trailing data"},
		{`{"type":"begin","name":"x",}`, "field name"},
		{`{"type":"begin" "name":"x"}`, "want '}'"},
		{`{"type":"begin","name":"x\q"}`, "bad escape"},
		{"{\"type\":\"begin\",\"name\":\"x\ny\"}", "control character"},
		{`{"type":"begin","name":"x\u12"}`, "\\u escape"},
		{`{"type":"begin","name":"x`, "unterminated"},
		{`{"v":2,"type":"begin","name":"x"}`, "unsupported version 2"},
		{`{"v":0,"type":"begin","name":"x"}`, "bad version"},
		{`{"v":1.5,"type":"begin","name":"x"}`, "bad version"},
		{`{"name":"x"}`, "missing type"},
		{`{"type":"start","name":"x"}`, `unknown type "start"`},
		{`{"type":"begin"}`, "begin without name"},
		{`{"type":"begin","name":""}`, "begin without name"},
		{`{"type":"end","name":"x","result":"ok"}`, `unknown result "ok"`},
		{`{"type":"begin","name":"` + long + `"}`, "name longer than 256"},
		{`{"type":"begin","name":"x","parent":"` + long + `"}`, "parent longer"},
		{`{"type":"attr","attrs":{}}`, "attr without attrs"},
		{`{"type":"stop","result":"cancelled"}`, "unknown result"},
		{`{"type":"event","name":"e","attrs":{"":1}}`, "bad attribute key"},
		{`{"type":"event","name":"e","attrs":{"` + long + `":1}}`, "bad attribute key"},
		{`{"type":"event","name":"e","attrs":{` + many.String() + `}}`, "more than 64 attributes"},
		{`{"type":"event","name":"e","attrs":{"k":{"a":1}}}`, "cannot be objects"},
		{`{"type":"counter","name":"c","value":-1}`, "counter value -1 is not a finite non-negative number"},
		{`{"type":"event","name":"e","attrs":{"k":[1,"a"]}}`, "only strings"},
		{`{"type":"event","name":"e","attrs":{"k":[[1]]}}`, "only strings"},
		{`{"type":"event","name":"e","attrs":[1]}`, "not an object"},
		{`{"type":"event","name":"e","ts":"yesterday"}`, "not RFC 3339"},
		{`{"type":"event","name":"e","ts":1e30}`, "out of range"},
		{`{"type":"add","name":"x","start":"2025-03-01T12:00:00Z"}`, "add: start and end are required"},
		{`{"type":"add","name":"x","end":"2025-03-01T12:00:00Z"}`, "add: start and end are required"},
		{`{"type":"add","start":1,"end":2}`, "add without name"},
		{`{"type":"add","name":"x","start":"2025-03-01T12:00:01Z","end":"2025-03-01T12:00:00Z"}`, "add: end is before start"},
		{`{"type":"add","name":"x","start":"today","end":"2025-03-01T12:00:00Z"}`, `start "today" is not RFC 3339`},
		{`{"type":"add","name":"x","start":1,"end":1e30}`, "end 1e30 out of range"},
		{`{"type":"counter","name":"c","value":"1"}`, "want a number"},
		{`{"type":"counter","name":"c","value":1e999}`, "bad value"},
		{`{"type":"event","name":"e","ack":1}`, "true or false"},
		{`{"type":"event","name":"e","x":01}`, "want '}'"},
		{`{"type":"event","name":"e","x":-}`, "want a number"},
		{`{"type":"event","name":"e","x":1.}`, "bad number"},
		{`{"type":"event","name":"e","x":tru}`, "bad literal"},
		{`{"type":"event","name":"e","x":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, "nested too deeply"},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.in))
		if err == nil {
			t.Errorf("Parse(%.80s): no error, want %q", tt.in, tt.reason)
			continue
		}
		if !errors.Is(err, ErrParse) {
			t.Errorf("Parse(%.80s): %v does not wrap ErrParse", tt.in, err)
		}
		if !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("Parse(%.80s): %v, want it to say %q", tt.in, err, tt.reason)
		}
	}
}

// An attribute key is checked by Validate, whatever the message's source:
// a message a program builds itself (a Go call, a marker command outside a
// run) is refused for the key Parse refuses on the socket. Before, Parse
// alone checked it, and a Go call's empty key was dropped by the SDK
// without a word.
func TestValidateChecksAttributeKeys(t *testing.T) {
	for _, key := range []string{"", strings.Repeat("k", MaxNameBytes+1), "bad\xffkey"} {
		m := Msg{Type: TypeEvent, Name: "e", Attrs: []attribute.KeyValue{attribute.String("ok", "v"), attribute.String(key, "v")}}
		if err := Validate(&m); !errors.Is(err, ErrParse) || !strings.Contains(err.Error(), "bad attribute key") {
			t.Errorf("key %.20q: %v, want the bad attribute key refused", key, err)
		}
	}
	m := Msg{Type: TypeEvent, Name: "e", Attrs: []attribute.KeyValue{attribute.String(strings.Repeat("k", MaxNameBytes), "v")}}
	if err := Validate(&m); err != nil {
		t.Errorf("a key of %d bytes: %v", MaxNameBytes, err)
	}
}

func TestParseErrorKeepsAck(t *testing.T) {
	m, err := Parse([]byte(`{"type":"nope","name":"x","ack":true}`))
	if err == nil || !m.Ack {
		t.Fatalf("got ack=%v err=%v; want ack kept with an error", m.Ack, err)
	}
}

func TestAppendJSONRoundTrip(t *testing.T) {
	msgs := []Msg{
		{V: 1, Type: TypeBegin, Name: "compile \"all\"\n\t\x01é\u2028", Parent: "build", Ack: true,
			Time: time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)},
		{V: 1, Type: TypeEnd, Name: "compile", Result: ResultTimeout},
		{V: 1, Type: TypeEnd, Name: "test", Span: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", Result: ResultFailure, Ack: true,
			Status: "make exited with code 2"},
		// A marker sent from inside a step carries its TRACEPARENT.
		{V: 1, Type: TypeBegin, Name: "lint", Scope: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", Ack: true},
		{V: 1, Type: TypeCounter, Name: "c", Value: 0.25},
		// A counter of 0 (jobtrace counter c --value 0) adds 0, not the
		// 1 a missing value means.
		{V: 1, Type: TypeCounter, Name: "c", Value: 0},
		{V: 1, Type: TypeEvent, Name: "e", Attrs: []attribute.KeyValue{
			attribute.String("s", "v"), attribute.Bool("b", false), attribute.Int64("i", -3),
			attribute.Float64("f", 0.5), attribute.StringSlice("ss", []string{"x", "y"}),
			attribute.BoolSlice("bs", []bool{true, false}), attribute.Int64Slice("is", []int64{7}),
			attribute.Float64Slice("fs", []float64{0.5, 1.5}),
		}},
		{V: 1, Type: TypeAttr, Attrs: []attribute.KeyValue{attribute.String("vcs.ref.head.name", "main")}},
		{V: 1, Type: TypeAdd, Name: "Run tests", Parent: "00f067aa0ba902b7", Result: ResultCancellation, Ack: true,
			Start: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC), End: time.Date(2025, 1, 2, 4, 4, 9, 0, time.FixedZone("", 3600)),
			Attrs: []attribute.KeyValue{attribute.Int64("github.step.number", 3)}},
	}
	for _, m := range msgs {
		b := m.AppendJSON(nil)
		if !strings.HasSuffix(string(b), "}\n") || strings.Count(string(b), "\n") != 1 {
			t.Fatalf("AppendJSON = %q, want one line", b)
		}
		got, err := Parse(b)
		if err != nil {
			t.Fatalf("Parse(%s): %v", b, err)
		}
		if !sameTimes(got, m) {
			t.Errorf("times %v %v %v != %v %v %v", got.Time, got.Start, got.End, m.Time, m.Start, m.End)
		}
		m.Clean() // what Parse gives for text with control characters
		if !reflect.DeepEqual(withoutTimes(got), withoutTimes(m)) {
			t.Errorf("round trip of %s\n got %#v\nwant %#v", b, got, m)
		}
	}
}

func TestAppendJSONOddValues(t *testing.T) {
	m := Msg{Type: TypeEvent, Name: "bad\xffname", Attrs: []attribute.KeyValue{
		attribute.Float64("nan", math.NaN()), attribute.String("k", "v"),
	}}
	b := m.AppendJSON(nil)
	want := `{"v":1,"type":"event","name":"bad\ufffdname","attrs":{"nan":null,"k":"v"}}` + "\n"
	if string(b) != want {
		t.Fatalf("AppendJSON = %s, want %s", b, want)
	}
	got, err := Parse(b)
	if err != nil || len(got.Attrs) != 1 {
		t.Fatalf("Parse = %#v, %v; want the null attribute skipped", got, err)
	}
}

func TestExcerpt(t *testing.T) {
	if got := Excerpt([]byte(strings.Repeat("a", ExcerptBytes))); got != `"`+strings.Repeat("a", ExcerptBytes)+`"` {
		t.Errorf("Excerpt of ExcerptBytes = %s", got)
	}
	if got := Excerpt([]byte(strings.Repeat("a", ExcerptBytes+1))); got != `"`+strings.Repeat("a", ExcerptBytes)+`"… (81 bytes)` {
		t.Errorf("Excerpt of one more = %s", got)
	}
}

// An over-long line is quoted from its head, at most ExcerptBytes of it,
// with its whole size.
func TestLongExcerpt(t *testing.T) {
	head := []byte(strings.Repeat("b", ExcerptBytes+5))
	want := `"` + strings.Repeat("b", ExcerptBytes) + `"… (5000 bytes)`
	if got := LongExcerpt(head, 5000); got != want {
		t.Errorf("LongExcerpt = %s, want %s", got, want)
	}
	if got := LongExcerpt([]byte("ab\n"), 3); got != `"ab\n"… (3 bytes)` {
		t.Errorf("LongExcerpt of a short head = %s", got)
	}
}

var (
	benchLine = []byte(`{"v":1,"type":"begin","name":"compile","parent":"build","ts":"2025-03-01T12:00:00.123456Z","attrs":{"target":"linux/amd64","jobs":8}}`)
	benchSink Msg
)

func BenchmarkParse(b *testing.B) {
	b.SetBytes(int64(len(benchLine)))
	b.ReportAllocs()
	for b.Loop() {
		m, err := Parse(benchLine)
		if err != nil {
			b.Fatal(err)
		}
		benchSink = m
	}
}

func BenchmarkParseMinimal(b *testing.B) {
	line := []byte(`{"type":"end","name":"compile"}`)
	b.ReportAllocs()
	for b.Loop() {
		m, err := Parse(line)
		if err != nil {
			b.Fatal(err)
		}
		benchSink = m
	}
}

func BenchmarkAppendJSON(b *testing.B) {
	m, _ := Parse(benchLine)
	buf := make([]byte, 0, 512)
	b.ReportAllocs()
	for b.Loop() {
		buf = m.AppendJSON(buf[:0])
	}
}
