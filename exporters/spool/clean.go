package spool

import (
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"github.com/jobtrace/jobtrace/internal/cleantext"
)

// cleanSpans makes every string of rss valid UTF-8 without control
// characters (cleantext.String), in place. Text is cleaned where it enters
// jobtrace; this is the net under that, used only when a line could not be
// encoded, so that one string that slipped through costs no span.
func cleanSpans(rss []*tracepb.ResourceSpans) {
	for _, rs := range rss {
		if rs.Resource != nil {
			cleanAttrs(rs.Resource.Attributes)
		}
		rs.SchemaUrl = cleantext.String(rs.SchemaUrl)
		for _, ss := range rs.ScopeSpans {
			if ss.Scope != nil {
				ss.Scope.Name = cleantext.String(ss.Scope.Name)
				ss.Scope.Version = cleantext.String(ss.Scope.Version)
				cleanAttrs(ss.Scope.Attributes)
			}
			ss.SchemaUrl = cleantext.String(ss.SchemaUrl)
			for _, s := range ss.Spans {
				s.Name = cleantext.String(s.Name)
				s.TraceState = cleantext.String(s.TraceState)
				cleanAttrs(s.Attributes)
				for _, e := range s.Events {
					e.Name = cleantext.String(e.Name)
					cleanAttrs(e.Attributes)
				}
				for _, l := range s.Links {
					l.TraceState = cleantext.String(l.TraceState)
					cleanAttrs(l.Attributes)
				}
				if s.Status != nil {
					s.Status.Message = cleantext.String(s.Status.Message)
				}
			}
		}
	}
}

func cleanAttrs(kvs []*commonpb.KeyValue) {
	for _, kv := range kvs {
		kv.Key = cleantext.String(kv.Key)
		cleanValue(kv.Value)
	}
}

func cleanValue(v *commonpb.AnyValue) {
	if v == nil {
		return
	}
	switch x := v.Value.(type) {
	case *commonpb.AnyValue_StringValue:
		x.StringValue = cleantext.String(x.StringValue)
	case *commonpb.AnyValue_ArrayValue:
		if x.ArrayValue != nil {
			for _, e := range x.ArrayValue.Values {
				cleanValue(e)
			}
		}
	case *commonpb.AnyValue_KvlistValue:
		if x.KvlistValue != nil {
			cleanAttrs(x.KvlistValue.Values)
		}
	}
}
