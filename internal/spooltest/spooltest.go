// Package spooltest reads a spool back for tests: its spans by name, each
// with its parent's name, its attributes and its trace.
package spooltest

import (
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/jobtrace/jobtrace/exporters/spool"
)

// Span is what a test reads back of a span.
type Span struct {
	Name, Parent string
	Attrs        map[string]any
	// DroppedAttrs is the span's dropped_attributes_count.
	DroppedAttrs uint32
	TraceID      pcommon.TraceID
	SpanID       pcommon.SpanID
	// Status is the span's status code, StatusMessage its description.
	Status        ptrace.StatusCode
	StatusMessage string
}

// Read returns the spans of the spool at path by name (the last of a
// name), with their parent's name; it fails the test when the spool cannot
// be read.
func Read(t testing.TB, path string) map[string]Span {
	t.Helper()
	names := map[pcommon.SpanID]string{}
	var all []ptrace.Span
	_, err := spool.ReadSpans(path, spool.MaxReadSpans, func(_ pcommon.Resource, s ptrace.Span) {
		names[s.SpanID()] = s.Name()
		all = append(all, s)
	})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Span{}
	for _, s := range all {
		out[s.Name()] = Span{
			Name: s.Name(), Parent: names[s.ParentSpanID()], Attrs: s.Attributes().AsRaw(),
			DroppedAttrs: s.DroppedAttributesCount(), TraceID: s.TraceID(), SpanID: s.SpanID(), Status: s.Status().Code(),
			StatusMessage: s.Status().Message(),
		}
	}
	return out
}
