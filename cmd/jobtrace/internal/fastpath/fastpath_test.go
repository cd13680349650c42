package fastpath

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/spans/protocol"
)

func TestParse(t *testing.T) {
	good := map[string]Request{
		"phase begin compile":                          {Type: "begin", Name: "compile"},
		"phase begin compile --attr lang=go --attr a=": {Type: "begin", Name: "compile", Attrs: [][2]string{{"lang", "go"}, {"a", ""}}},
		"phase begin --attr=k=v=w compile":             {Type: "begin", Name: "compile", Attrs: [][2]string{{"k", "v=w"}}},
		"phase begin --attr k=v compile":               {Type: "begin", Name: "compile", Attrs: [][2]string{{"k", "v"}}},
		"phase begin x --parent outer":                 {Type: "begin", Name: "x", Parent: "outer"},
		"phase begin -- -x":                            {Type: "begin", Name: "-x"},
		"phase end compile --result failure":           {Type: "end", Name: "compile", Result: "failure"},
		"phase end compile -result=skip":               {Type: "end", Name: "compile", Result: "skip"},
		"phase end x --result failure --result skip":   {Type: "end", Name: "x", Result: "skip"},
		"event cache-miss --attr key=deps":             {Type: "event", Name: "cache-miss", Attrs: [][2]string{{"key", "deps"}}},
		"counter tests.failed --value 3":               {Type: "counter", Name: "tests.failed", Value: 3},
		"counter tests.failed --value 0":               {Type: "counter", Name: "tests.failed", Value: 0},
		"counter hits":                                 {Type: "counter", Name: "hits", Value: 1},
		"phase add tests --start 2026-11-29T12:00:00Z --end 2026-11-29T13:00:07.5+01:00 --result failure --parent 00f067aa0ba902b7": {
			Type: "add", Name: "tests", Result: "failure", Parent: "00f067aa0ba902b7",
			Start: time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC), End: time.Date(2026, 11, 29, 13, 0, 7, 5e8, time.FixedZone("", 3600))},
	}
	for args, want := range good {
		got, err := Parse(strings.Fields(args))
		if err == nil && got.Start.Equal(want.Start) && got.End.Equal(want.End) {
			got.Start, got.End, want.Start, want.End = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		}
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%q: got %+v %v, want %+v", args, got, err, want)
		}
	}
	bad := map[string]string{
		"phase": "want 'begin', 'end' or 'add'",
		"phase add x --start 2026-11-29T12:00:00Z":                                     "--start and --end are required",
		"phase add x --end 2026-11-29T12:00:00Z":                                       "--start and --end are required",
		"phase add x --start 2026-11-29T12:00:01Z --end 2026-11-29T12:00:00Z":          "--end is before --start",
		"phase add x --start yesterday --end 2026-11-29T12:00:00Z":                     `--start "yesterday" is not an RFC 3339 time`,
		"phase add x --start 2026-11-29T12:00:00Z --end 2026-11-29T12:00:00Z -value 1": "not defined: -value",
		"phase begin":                    "phase begin: NAME is missing",
		"phase start x":                  `unknown action "start"`,
		"phase begin x y":                `unexpected argument "y"`,
		"phase begin x --result failure": "not defined: -result",
		"phase end x --result meh":       `--result "meh"`,
		"phase end x --parent p":         "not defined: -parent",
		"event x --value 2":              "not defined: -value",
		"counter x --value -1":           "not a non-negative number",
		"counter x --value NaN":          "not a non-negative number",
		"event x --attr novalue":         "is not key=value",
		"event x --attr":                 "flag needs an argument: -attr",
		"event x ---attr k=v":            "bad flag syntax",
	}
	for args, want := range bad {
		r, err := Parse(strings.Fields(args))
		var ue UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %+v, %v; want a usage error saying %q", args, r, err, want)
		}
	}
	for _, args := range []string{"phase begin --help", "phase -h", "event --help", "counter -h", "event x -help"} {
		if _, err := Parse(strings.Fields(args)); err != ErrHelp {
			t.Errorf("%q: %v, want ErrHelp", args, err)
		}
	}
	for _, args := range []string{"", "run -- true", "version", "exec x -- true"} {
		if _, err := Parse(strings.Fields(args)); err != ErrNotMarker {
			t.Errorf("%q: %v, want ErrNotMarker", args, err)
		}
	}
}

// TestLineIsWhatTheFullCommandSends: the line parses to the message that
// cmd/jobtrace builds for the same arguments.
func TestLineIsWhatTheFullCommandSends(t *testing.T) {
	now := time.Date(2026, 11, 29, 12, 0, 0, 123456789, time.UTC)
	tp := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" // TRACEPARENT inside a step
	cases := []struct {
		req  Request
		tp   string
		want protocol.Msg
	}{
		{Request{Type: "begin", Name: "deploy \"prod\"", Parent: "outer", Attrs: [][2]string{{"env", "stag\ning"}, {"ü", "\xff"}}}, "",
			protocol.Msg{V: 1, Type: protocol.TypeBegin, Name: "deploy \"prod\"", Parent: "outer", Time: now, Ack: true,
				Attrs: []attribute.KeyValue{attribute.String("env", "stag\ufffding"), attribute.String("ü", "\ufffd")}}},
		{Request{Type: "end", Name: "x", Result: "failure"}, "",
			protocol.Msg{V: 1, Type: protocol.TypeEnd, Name: "x", Result: "failure", Time: now, Ack: true}},
		{Request{Type: "end", Name: "x"}, tp,
			protocol.Msg{V: 1, Type: protocol.TypeEnd, Name: "x", Scope: tp, Time: now, Ack: true}},
		{Request{Type: "event", Name: "e"}, tp,
			protocol.Msg{V: 1, Type: protocol.TypeEvent, Name: "e", Scope: tp, Time: now, Ack: true}},
		{Request{Type: "begin", Name: "x"}, "not a traceparent",
			protocol.Msg{V: 1, Type: protocol.TypeBegin, Name: "x", Time: now, Ack: true}},
		{Request{Type: "add", Name: "tests", Result: "failure", Parent: "00f067aa0ba902b7", Start: now.Add(-time.Minute), End: now}, "",
			protocol.Msg{V: 1, Type: protocol.TypeAdd, Name: "tests", Result: "failure", Parent: "00f067aa0ba902b7",
				Start: now.Add(-time.Minute), End: now, Time: now, Ack: true}},
		{Request{Type: "counter", Name: "n", Value: 2.5}, tp, // a counter is the job's
			protocol.Msg{V: 1, Type: protocol.TypeCounter, Name: "n", Value: 2.5, Ack: true}},
		{Request{Type: "counter", Name: "zero", Value: 0}, "",
			protocol.Msg{V: 1, Type: protocol.TypeCounter, Name: "zero", Value: 0, Ack: true}},
	}
	for _, c := range cases {
		line := c.req.AppendLine(nil, now, c.tp)
		if !strings.HasSuffix(string(line), "\n") || strings.Count(string(line), "\n") != 1 {
			t.Errorf("not one line: %q", line)
		}
		got, err := protocol.Parse(line[:len(line)-1])
		if err != nil {
			t.Fatalf("%s: %v", line, err)
		}
		got.Syntax = ""
		if !got.Time.Equal(c.want.Time) || !got.Start.Equal(c.want.Start) || !got.End.Equal(c.want.End) {
			t.Errorf("times %v %v %v, want %v %v %v", got.Time, got.Start, got.End, c.want.Time, c.want.Start, c.want.End)
		}
		got.Time, c.want.Time = time.Time{}, time.Time{}
		got.Start, c.want.Start, got.End, c.want.End = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if len(got.Attrs) == 0 {
			got.Attrs = nil
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", line, got, c.want)
		}
	}
}

func TestSplitNUL(t *testing.T) {
	for in, want := range map[string][]string{
		"jobtrace\x00phase\x00begin\x00\x00": {"jobtrace", "phase", "begin", ""},
		"a\x00b":                             {"a", "b"},
		"":                                   nil,
	} {
		if got := splitNUL([]byte(in)); !reflect.DeepEqual(got, want) {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// The fast path takes the --value and --result the agent takes, by
// package wire's rules, which protocol.Validate applies: a value or a
// result it accepts is never refused by the agent, nor the other way.
func TestValueAndResultAreTheAgentsRules(t *testing.T) {
	for _, s := range []string{"0", "-0", "1.5", "1e308", "-1", "-1e-300", "NaN", "Inf", "+Inf", "-Inf", "1e309"} {
		_, err := Parse([]string{"counter", "c", "--value", s})
		v, perr := strconv.ParseFloat(s, 64)
		agent := perr == nil && protocol.Validate(&protocol.Msg{Type: protocol.TypeCounter, Name: "c", Value: v}) == nil
		if (err == nil) != agent {
			t.Errorf("--value %s: the fast path's error %v, the agent takes it: %v", s, err, agent)
		}
	}
	for _, r := range []string{"success", "failure", "error", "timeout", "cancellation", "skip", "passed", "Success", "failed"} {
		_, err := Parse([]string{"phase", "end", "p", "--result", r})
		agent := protocol.Validate(&protocol.Msg{Type: protocol.TypeEnd, Name: "p", Result: r}) == nil
		if (err == nil) != agent {
			t.Errorf("--result %s: the fast path's error %v, the agent takes it: %v", r, err, agent)
		}
	}
}
