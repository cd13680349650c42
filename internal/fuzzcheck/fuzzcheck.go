// Package fuzzcheck holds the properties that the fuzz targets of several
// packages check on what a parser of outside input returns: a marker
// message accepted from a line, a socket or a file keeps the protocol's
// rules whatever the bytes were.
package fuzzcheck

import (
	"flag"
	"fmt"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/wire"
)

// Msg returns what is wrong with m, a message a source passed on, or nil.
func Msg(m protocol.Msg) error {
	switch m.Type {
	case protocol.TypeBegin, protocol.TypeEnd, protocol.TypeEvent, protocol.TypeCounter, protocol.TypeAttr, protocol.TypeStop, protocol.TypeAdd:
	default:
		return fmt.Errorf("type %q", m.Type)
	}
	if m.Type == protocol.TypeAdd && (m.Start.IsZero() || m.End.IsZero() || m.End.Before(m.Start)) {
		return fmt.Errorf("add from %v to %v", m.Start, m.End)
	}
	if m.Name != "" && !protocol.ValidName(m.Name) {
		return fmt.Errorf("name %q", m.Name)
	}
	if m.Name == "" && (m.Type == protocol.TypeBegin || m.Type == protocol.TypeEvent || m.Type == protocol.TypeCounter || m.Type == protocol.TypeAdd) {
		return fmt.Errorf("%s without a name", m.Type)
	}
	if m.Parent != "" && !protocol.ValidName(m.Parent) {
		return fmt.Errorf("parent %q", m.Parent)
	}
	if m.Status != "" && !protocol.ValidName(m.Status) {
		return fmt.Errorf("status %q", m.Status)
	}
	if !protocol.ValidResult(m.Result) {
		return fmt.Errorf("result %q", m.Result)
	}
	if m.Type == protocol.TypeCounter && !wire.ValidCounterValue(m.Value) {
		return fmt.Errorf("counter value %v", m.Value)
	}
	if len(m.Attrs) > protocol.MaxAttrs {
		return fmt.Errorf("%d attributes, more than %d", len(m.Attrs), protocol.MaxAttrs)
	}
	for _, kv := range m.Attrs {
		if err := Attr(kv); err != nil {
			return err
		}
	}
	return nil
}

// Attr returns what is wrong with kv, an attribute taken from outside
// input, or nil: its key is a valid name, its value has a type, and every
// string in it is valid UTF-8.
func Attr(kv attribute.KeyValue) error {
	if !protocol.ValidName(string(kv.Key)) {
		return fmt.Errorf("attribute key %q", kv.Key)
	}
	switch kv.Value.Type() {
	case attribute.EMPTY:
		return fmt.Errorf("attribute %q without a value", kv.Key)
	case attribute.STRING:
		if !utf8.ValidString(kv.Value.AsString()) {
			return fmt.Errorf("attribute %q: invalid UTF-8 %q", kv.Key, kv.Value.AsString())
		}
	case attribute.STRINGSLICE:
		for _, s := range kv.Value.AsStringSlice() {
			if !utf8.ValidString(s) {
				return fmt.Errorf("attribute %q: invalid UTF-8 %q", kv.Key, s)
			}
		}
	}
	return nil
}

// HangAfter is how long one input may take while fuzzing before it counts
// as a hang. The fuzzing engine has no limit of its own per input.
const HangAfter = 10 * time.Second

// NoHang makes an input that runs longer than HangAfter crash the fuzzing
// worker, which reports it (and saves it under testdata/fuzz) like any
// other failure; call the returned function when the input is done:
//
//	defer fuzzcheck.NoHang(data)()
//
// It does nothing outside fuzzing (go test without -fuzz), where a loaded
// machine may take its time over the seeds.
func NoHang(input ...any) (stop func()) {
	if f := flag.Lookup("test.fuzz"); f == nil || f.Value.String() == "" {
		return func() {}
	}
	t := time.AfterFunc(HangAfter, func() {
		panic(fmt.Sprintf("fuzzcheck: input still running after %v: %q", HangAfter, input))
	})
	return func() { t.Stop() }
}

// FirstDifference says where got first differs from want, with the bytes
// around it in each; "" when they are equal.
func FirstDifference(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	if i == len(got) && i == len(want) {
		return ""
	}
	const around = 60
	return fmt.Sprintf("differs at byte %d:\n got %q\nwant %q", i,
		got[max(0, i-around):min(len(got), i+around)], want[max(0, i-around):min(len(want), i+around)])
}
