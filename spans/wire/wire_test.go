package wire

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// A line is one JSON object that encoding/json reads back as written.
func TestMessageLine(t *testing.T) {
	ts := time.Date(2026, 11, 29, 12, 0, 0, 123456789, time.UTC)
	m := Msg{Type: TypeEnd, Name: "de\"ploy\n\u2028", Result: "failure", Time: ts, Ack: true}
	b := m.AppendHead(nil)
	b = AppendAttrKey(b, 0, "s")
	b = AppendString(b, "bad\xffutf8\x01")
	b = AppendAttrKey(b, 1, "f")
	b = AppendFloat(b, 1.5)
	b = AppendAttrKey(b, 2, "nan")
	b = AppendFloat(b, math.NaN())
	b = AppendAttrKey(b, 3, "b")
	b = AppendBool(b, true)
	b = m.AppendTail(b, 4)
	if strings.Count(string(b), "\n") != 1 || !strings.HasSuffix(string(b), "}\n") {
		t.Fatalf("not one line: %q", b)
	}
	if strings.Contains(string(b), "\u2028") {
		t.Errorf("U+2028 not escaped: %q", b)
	}
	var got struct {
		V      int
		Type   string
		Name   string
		Result string
		TS     time.Time
		Attrs  map[string]any
		Ack    bool
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if got.V != Version || got.Type != m.Type || got.Name != m.Name || got.Result != m.Result || !got.TS.Equal(ts) || !got.Ack {
		t.Errorf("%s read back as %+v", b, got)
	}
	want := map[string]any{"s": "bad\ufffdutf8\x01", "f": 1.5, "nan": nil, "b": true}
	for k, v := range want {
		if got.Attrs[k] != v {
			t.Errorf("attribute %s = %#v, want %#v", k, got.Attrs[k], v)
		}
	}
	if !strings.HasSuffix(string(b), `,"ack":true}`+"\n") {
		t.Errorf("ack is not last: %s", b)
	}
}

// A counter's value is written even when it is 0: a receiver reads a
// missing value as 1.
func TestCounterValue(t *testing.T) {
	for _, c := range []struct {
		m    Msg
		want string
	}{
		{Msg{Type: TypeCounter, Name: "n"}, `{"v":1,"type":"counter","name":"n","value":0}` + "\n"},
		{Msg{Type: TypeCounter, Name: "n", Value: 2.5}, `{"v":1,"type":"counter","name":"n","value":2.5}` + "\n"},
		{Msg{Type: TypeEvent, Name: "e"}, `{"v":1,"type":"event","name":"e"}` + "\n"},
	} {
		if got := string(c.m.AppendTail(c.m.AppendHead(nil), 0)); got != c.want {
			t.Errorf("%+v: %s, want %s", c.m, got, c.want)
		}
	}
}

func TestReply(t *testing.T) {
	for _, r := range []Reply{
		{OK: true, Traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"},
		{Error: `no open phase "x"` + "\n\\"},
		{},
	} {
		line := r.AppendLine(nil)
		var std Reply
		if err := json.Unmarshal(line, &std); err != nil || std != r {
			t.Errorf("%s: encoding/json reads %+v, %v", line, std, err)
		}
		got, err := ParseReply(line)
		if err != nil || got != r {
			t.Errorf("%s: read back as %+v, %v", line, got, err)
		}
	}
	got, err := ParseReply([]byte(` {"ok" : false, "extra":{"a":[1,{"b":null}]}, "error":"caf\u00e9 \ud83d\ude00", "traceparent":null} `))
	if err != nil || got != (Reply{Error: "café 😀"}) {
		t.Errorf("got %+v, %v", got, err)
	}
	for _, bad := range []string{``, `{"ok":true`, `{"ok":tru}`, `["ok"]`, `{"ok":true} x`, `{"error":"a` + "\x01" + `"}`, `{"x":` + strings.Repeat("[", 100)} {
		if _, err := ParseReply([]byte(bad)); err == nil {
			t.Errorf("%q read without error", bad)
		}
	}
}

// An added phase carries its start and end, read back by encoding/json as
// written.
func TestAddLine(t *testing.T) {
	start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
	end := start.Add(1500 * time.Millisecond)
	m := Msg{Type: TypeAdd, Name: "Run tests", Result: ResultFailure, Start: start, End: end}
	b := m.AppendTail(m.AppendHead(nil), 0)
	var got struct {
		Type       string
		Start, End time.Time
		TS         *time.Time
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	if got.Type != TypeAdd || !got.Start.Equal(start) || !got.End.Equal(end) || got.TS != nil {
		t.Errorf("%s read back as %+v", b, got)
	}
}

// A marker's scope is its TRACEPARENT when that is one (ParseTraceparent),
// a later version's first 55 characters, and nothing otherwise: no
// environment makes a marker too long to be taken.
func TestScopeOf(t *testing.T) {
	tp := "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	later := "01" + tp[2:]
	for in, want := range map[string]string{
		tp:                        tp,
		"":                        "",
		"garbage":                 "",
		strings.Repeat(tp, 10):    "",
		tp + "-and-a-future-part": "",
		later + "-a-future-part":  later,
		"ff" + tp[2:]:             "",
	} {
		if got := ScopeOf(in); got != want {
			t.Errorf("ScopeOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// A traceparent is read by the W3C rules: lower-case hex fields at their
// places, version 00 of exactly 55 characters, a later one by its first
// 55 followed by "-" or nothing, never version ff nor all-zero ids.
func TestParseTraceparent(t *testing.T) {
	const tid, sid = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	for in, want := range map[string]bool{
		"00-" + tid + "-" + sid + "-01":                     true,
		"00-" + tid + "-" + sid + "-00":                     true,
		"01-" + tid + "-" + sid + "-01":                     true,
		"cc-" + tid + "-" + sid + "-01-more-to-it":          true,
		"00-" + tid + "-" + sid + "-01-more":                false, // version 00 is 55 characters
		"cc-" + tid + "-" + sid + "-01more":                 false,
		"ff-" + tid + "-" + sid + "-01":                     false,
		"00-" + strings.Repeat("0", 32) + "-" + sid + "-01": false,
		"00-" + tid + "-" + strings.Repeat("0", 16) + "-01": false,
		"00-" + strings.ToUpper(tid) + "-" + sid + "-01":    false,
		"00-" + tid + "-" + sid + "-0g":                     false,
		"00_" + tid + "-" + sid + "-01":                     false,
		"00-" + tid + sid + "--01":                          false,
		"0-" + tid + "-" + sid + "-01":                      false,
		"":                                                  false,
	} {
		gotT, gotS, flags, ok := ParseTraceparent(in)
		if ok != want {
			t.Errorf("ParseTraceparent(%q): %v, want %v", in, ok, want)
			continue
		}
		if ok && (fmt.Sprintf("%x", gotT) != tid || fmt.Sprintf("%x", gotS) != sid || flags != map[byte]byte{'0': 0, '1': 1}[in[54]]) {
			t.Errorf("ParseTraceparent(%q) = %x %x %x", in, gotT, gotS, flags)
		}
	}
}
