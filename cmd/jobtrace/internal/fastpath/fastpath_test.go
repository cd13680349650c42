package fastpath

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/spans/protocol"
)

func TestParseTakesOnlyTheSimpleForms(t *testing.T) {
	good := map[string]Request{
		"phase begin compile":                          {Type: "begin", Name: "compile"},
		"phase begin compile --attr lang=go --attr a=": {Type: "begin", Name: "compile", Attrs: [][2]string{{"lang", "go"}, {"a", ""}}},
		"phase begin --attr=k=v=w compile":             {Type: "begin", Name: "compile", Attrs: [][2]string{{"k", "v=w"}}},
		"phase begin x --parent outer":                 {Type: "begin", Name: "x", Parent: "outer"},
		"phase end compile --result failure":           {Type: "end", Name: "compile", Result: "failure"},
		"phase end compile -result=skip":               {Type: "end", Name: "compile", Result: "skip"},
		"event cache-miss --attr key=deps":             {Type: "event", Name: "cache-miss", Attrs: [][2]string{{"key", "deps"}}},
		"counter tests.failed --value 3":               {Type: "counter", Name: "tests.failed", Value: 3},
		"counter hits":                                 {Type: "counter", Name: "hits", Value: 1},
	}
	for args, want := range good {
		got, ok := Parse(strings.Fields(args))
		if !ok || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %+v %v, want %+v", args, got, ok, want)
		}
	}
	for _, args := range []string{
		"", "phase", "phase begin", "phase start x", "phase begin x y", "phase begin --help",
		"phase begin x --result failure", "phase end x --result meh", "phase end x --parent p",
		"event x --value 2", "counter x --value -1", "counter x --value NaN", "counter x --value 1 --value 2",
		"event x --attr novalue", "event x --attr", "event x ---attr k=v", "run -- true", "version",
		"event --help", "counter -h",
	} {
		if r, ok := Parse(strings.Fields(args)); ok {
			t.Errorf("%q taken as %+v; main should handle it", args, r)
		}
	}
}

// TestLineIsWhatTheFullCommandSends: the line parses to the message that
// cmd/jobtrace builds for the same arguments.
func TestLineIsWhatTheFullCommandSends(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 123456789, time.UTC)
	cases := []struct {
		req  Request
		want protocol.Msg
	}{
		{Request{Type: "begin", Name: "deploy \"prod\"", Parent: "outer", Attrs: [][2]string{{"env", "stag\ning"}, {"ü", "\xff"}}},
			protocol.Msg{V: 1, Type: protocol.TypeBegin, Name: "deploy \"prod\"", Parent: "outer", Time: now, Ack: true,
				Attrs: []attribute.KeyValue{attribute.String("env", "stag\ufffding"), attribute.String("ü", "\ufffd")}}},
		{Request{Type: "end", Name: "x", Result: "failure"},
			protocol.Msg{V: 1, Type: protocol.TypeEnd, Name: "x", Result: "failure", Time: now, Ack: true}},
		{Request{Type: "counter", Name: "n", Value: 2.5},
			protocol.Msg{V: 1, Type: protocol.TypeCounter, Name: "n", Value: 2.5, Ack: true}},
	}
	for _, c := range cases {
		line := c.req.AppendJSON(nil, now)
		if !strings.HasSuffix(string(line), "\n") || strings.Count(string(line), "\n") != 1 {
			t.Errorf("not one line: %q", line)
		}
		got, err := protocol.Parse(line[:len(line)-1])
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		got.Syntax = ""
		if !got.Time.Equal(c.want.Time) {
			t.Errorf("time %v, want %v", got.Time, c.want.Time)
		}
		got.Time, c.want.Time = time.Time{}, time.Time{}
		if len(got.Attrs) == 0 {
			got.Attrs = nil
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", line, got, c.want)
		}
	}
}

func TestReplyError(t *testing.T) {
	for line, want := range map[string]string{
		`{"ok":true,"traceparent":"00-x"}`:                "",
		`{"ok":false,"error":"no open phase \"x\" here"}`: `no open phase "x" here`,
		`{"ok":false}`: "the socket refused the message",
	} {
		if got := ReplyError(line); got != want {
			t.Errorf("%s: %q, want %q", line, got, want)
		}
	}
}
