package spool

import (
	"encoding/base64"
	"encoding/hex"
	"strconv"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/internal/jsonnumber"
	"github.com/jobtrace/jobtrace/internal/jsonstring"
	"github.com/jobtrace/jobtrace/internal/pdataattr"
)

// appendRequest appends spans as the OTLP/JSON of one
// ExportTraceServiceRequest, byte for byte what pdata's JSON encoder writes
// for the request the SDK's spans map to (the test's pdataLine, which fills
// pdata field for field; FuzzLineAsPdata): fields in the order of the
// proto, those with their zero value left out, 64-bit integers as quoted
// decimals, IDs in lower-case hex, strings escaped as json-iterator escapes
// them (only '"', '\\' and control characters), attributes with their
// repeated keys merged where the first one stood, as pcommon.Map.PutEmpty
// merges them. Spans are grouped by resource, then by scope, in the order
// they first appear.
func appendRequest(b []byte, spans []sdktrace.ReadOnlySpan) []byte {
	type scopeGroup struct {
		scope instrumentation.Scope
		spans []sdktrace.ReadOnlySpan
	}
	type resGroup struct {
		key    attribute.Distinct
		res    *resource.Resource
		scopes []*scopeGroup
	}
	var groups []*resGroup
	for _, sd := range spans {
		if sd == nil {
			continue
		}
		res := sd.Resource()
		rk := res.Equivalent()
		var rg *resGroup
		for _, g := range groups {
			if g.key == rk {
				rg = g
				break
			}
		}
		if rg == nil {
			rg = &resGroup{key: rk, res: res}
			groups = append(groups, rg)
		}
		scope := sd.InstrumentationScope()
		var sg *scopeGroup
		for _, g := range rg.scopes {
			if g.scope == scope {
				sg = g
				break
			}
		}
		if sg == nil {
			sg = &scopeGroup{scope: scope}
			rg.scopes = append(rg.scopes, sg)
		}
		sg.spans = append(sg.spans, sd)
	}
	b = append(b, '{')
	if len(groups) > 0 {
		b = append(b, `"resourceSpans":[`...)
		for i, rg := range groups {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"resource":{`...)
			if rg.res != nil && rg.res.Len() > 0 {
				b = append(b, `"attributes":`...)
				b = appendAttrs(b, rg.res.Attributes())
			}
			b = append(b, `},"scopeSpans":[`...)
			for j, sg := range rg.scopes {
				if j > 0 {
					b = append(b, ',')
				}
				b = appendScopeSpans(b, sg.scope, sg.spans)
			}
			b = append(b, ']')
			if u := rg.res.SchemaURL(); u != "" {
				b = appendField(b, true, "schemaUrl")
				b = jsonstring.AppendAsJSONIterator(b, u)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendScopeSpans appends one ScopeSpans.
func appendScopeSpans(b []byte, scope instrumentation.Scope, spans []sdktrace.ReadOnlySpan) []byte {
	b = append(b, `{"scope":{`...)
	more := false
	if n := pdataattr.Valid(scope.Name); n != "" {
		b, more = appendField(b, more, "name"), true
		b = jsonstring.AppendAsJSONIterator(b, n)
	}
	if v := pdataattr.Valid(scope.Version); v != "" {
		b, more = appendField(b, more, "version"), true
		b = jsonstring.AppendAsJSONIterator(b, v)
	}
	if scope.Attributes.Len() > 0 {
		b = appendField(b, more, "attributes")
		b = appendAttrs(b, scope.Attributes.ToSlice())
	}
	b = append(b, `},"spans":[`...)
	for i, sd := range spans {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendSpan(b, sd)
	}
	b = append(b, ']')
	if scope.SchemaURL != "" {
		b = appendField(b, true, "schemaUrl")
		b = jsonstring.AppendAsJSONIterator(b, scope.SchemaURL)
	}
	return append(b, '}')
}

// appendSpan appends one Span.
func appendSpan(b []byte, sd sdktrace.ReadOnlySpan) []byte {
	sc := sd.SpanContext()
	b, more := appendIDs(append(b, '{'), sc)
	parent := sd.Parent()
	if pid := parent.SpanID(); pid.IsValid() {
		b, more = appendField(b, more, "parentSpanId"), true
		b = appendHex(b, pid[:])
	}
	b, more = appendField(b, more, "flags"), true
	b = strconv.AppendUint(b, uint64(spanFlags(sc.TraceFlags(), parent)), 10)
	if n := pdataattr.Valid(sd.Name()); n != "" {
		b = appendField(b, more, "name")
		b = jsonstring.AppendAsJSONIterator(b, n)
	}
	if k := spanKind(sd.SpanKind()); k != 0 {
		b = appendField(b, more, "kind")
		b = strconv.AppendInt(b, int64(k), 10)
	}
	b = appendTime(b, "startTimeUnixNano", sd.StartTime().UnixNano())
	b = appendTime(b, "endTimeUnixNano", sd.EndTime().UnixNano())
	if attrs := sd.Attributes(); len(attrs) > 0 {
		b = appendField(b, more, "attributes")
		b = appendAttrs(b, attrs)
	}
	b = appendCount(b, "droppedAttributesCount", sd.DroppedAttributes())
	b = appendList(b, "events", sd.Events(), appendEvent)
	b = appendCount(b, "droppedEventsCount", sd.DroppedEvents())
	b = appendList(b, "links", sd.Links(), appendLink)
	b = appendCount(b, "droppedLinksCount", sd.DroppedLinks())
	b = append(b, `,"status":{`...)
	st := sd.Status()
	msg := pdataattr.Valid(st.Description)
	if msg != "" {
		b = appendField(b, false, "message")
		b = jsonstring.AppendAsJSONIterator(b, msg)
	}
	code := 0
	switch st.Code {
	case codes.Ok:
		code = 1
	case codes.Error:
		code = 2
	}
	if code != 0 {
		b = appendField(b, msg != "", "code")
		b = strconv.AppendInt(b, int64(code), 10)
	}
	return append(b, "}}"...)
}

// appendList appends a span's field of items, each appended by each, left
// out when there are none; never the first field.
func appendList[T any](b []byte, name string, items []T, each func([]byte, T) []byte) []byte {
	if len(items) == 0 {
		return b
	}
	b = appendField(b, true, name)
	return appendItems(b, len(items), func(b []byte, i int) []byte { return each(b, items[i]) })
}

// appendItems appends a JSON array of n items, the i-th appended by item.
func appendItems(b []byte, n int, item func(b []byte, i int) []byte) []byte {
	b = append(b, '[')
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = item(b, i)
	}
	return append(b, ']')
}

// appendEvent appends one Span.Event.
func appendEvent(b []byte, e sdktrace.Event) []byte {
	b = append(b, '{')
	more := false
	if t := max(0, e.Time.UnixNano()); t != 0 {
		b, more = appendField(b, more, "timeUnixNano"), true
		b = appendQuotedUint(b, uint64(t))
	}
	if n := pdataattr.Valid(e.Name); n != "" {
		b, more = appendField(b, more, "name"), true
		b = jsonstring.AppendAsJSONIterator(b, n)
	}
	if len(e.Attributes) > 0 {
		b, more = appendField(b, more, "attributes"), true
		b = appendAttrs(b, e.Attributes)
	}
	if n := clampUint32(e.DroppedAttributeCount); n != 0 {
		b = appendField(b, more, "droppedAttributesCount")
		b = strconv.AppendUint(b, uint64(n), 10)
	}
	return append(b, '}')
}

// appendLink appends one Span.Link.
func appendLink(b []byte, l sdktrace.Link) []byte {
	sc := l.SpanContext
	b, more := appendIDs(append(b, '{'), sc)
	if len(l.Attributes) > 0 {
		b, more = appendField(b, more, "attributes"), true
		b = appendAttrs(b, l.Attributes)
	}
	if n := clampUint32(l.DroppedAttributeCount); n != 0 {
		b, more = appendField(b, more, "droppedAttributesCount"), true
		b = strconv.AppendUint(b, uint64(n), 10)
	}
	b = appendField(b, more, "flags")
	b = strconv.AppendUint(b, uint64(spanFlags(sc.TraceFlags(), sc)), 10)
	return append(b, '}')
}

// appendIDs appends the first fields of a span or a link: its trace and
// span IDs and its trace state, each left out when empty. more tells
// whether it appended any.
func appendIDs(b []byte, sc trace.SpanContext) (_ []byte, more bool) {
	if tid := sc.TraceID(); tid.IsValid() {
		b, more = appendField(b, more, "traceId"), true
		b = appendHex(b, tid[:])
	}
	if sid := sc.SpanID(); sid.IsValid() {
		b, more = appendField(b, more, "spanId"), true
		b = appendHex(b, sid[:])
	}
	if ts := sc.TraceState().String(); ts != "" {
		b, more = appendField(b, more, "traceState"), true
		b = jsonstring.AppendAsJSONIterator(b, ts)
	}
	return b, more
}

// appendField appends an object's field name, after a comma when a field
// came before it.
func appendField(b []byte, more bool, name string) []byte {
	if more {
		b = append(b, ',')
	}
	b = append(b, '"')
	b = append(b, name...)
	return append(b, `":`...)
}

// appendTime appends a span's time field, left out at 0 (a time before
// 1970 is 0, as timestamp makes it). A span's flags come before it, so it
// is never the first field.
func appendTime(b []byte, name string, ns int64) []byte {
	if ns <= 0 {
		return b
	}
	b = appendField(b, true, name)
	return appendQuotedUint(b, uint64(ns))
}

// appendCount appends a span's dropped count, left out at 0; never the
// first field.
func appendCount(b []byte, name string, n int) []byte {
	if c := clampUint32(n); c != 0 {
		b = appendField(b, true, name)
		b = strconv.AppendUint(b, uint64(c), 10)
	}
	return b
}

func appendQuotedUint(b []byte, v uint64) []byte {
	b = append(b, '"')
	b = strconv.AppendUint(b, v, 10)
	return append(b, '"')
}

func appendHex(b []byte, id []byte) []byte {
	b = append(b, '"')
	b = hex.AppendEncode(b, id)
	return append(b, '"')
}

// maxScannedKeys bounds the attributes whose repeated keys appendAttrs
// finds by comparing every pair, without allocating; longer lists, and
// those with a key that is not valid UTF-8, are merged through a map
// (mergeKeys).
const maxScannedKeys = 32

// appendAttrs appends attributes as an array of KeyValue, a repeated key
// merged into the first of its name with the last value, as
// pcommon.Map.PutEmpty merges them.
func appendAttrs(b []byte, kvs []attribute.KeyValue) []byte {
	if len(kvs) > maxScannedKeys || !validKeys(kvs) {
		return appendKeyValues(b, mergeKeys(kvs))
	}
	b = append(b, '[')
	n := 0
next:
	for i, kv := range kvs {
		for _, before := range kvs[:i] {
			if sameKey(before.Key, kv.Key) {
				continue next
			}
		}
		v := kv.Value
		for _, after := range kvs[i+1:] {
			if sameKey(after.Key, kv.Key) {
				v = after.Value
			}
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = appendKeyValue(b, string(kv.Key), v)
	}
	return append(b, ']')
}

// sameKey is a == b, the last bytes compared first: the keys of one list
// often share a long prefix (jobtrace.usage.).
func sameKey(a, b attribute.Key) bool {
	n := len(a)
	return n == len(b) && (n == 0 || a[n-1] == b[n-1]) && a == b
}

// validKeys reports whether every key is valid UTF-8.
func validKeys(kvs []attribute.KeyValue) bool {
	for _, kv := range kvs {
		if !utf8.ValidString(string(kv.Key)) {
			return false
		}
	}
	return true
}

// keyValue is an attribute whose key has been made valid UTF-8.
type keyValue struct {
	key   string
	value attribute.Value
}

// mergeKeys returns kvs with valid keys, a repeated key merged into the
// first of its name with the last value.
func mergeKeys(kvs []attribute.KeyValue) []keyValue {
	out := make([]keyValue, 0, len(kvs))
	at := make(map[string]int, len(kvs))
	for _, kv := range kvs {
		k := pdataattr.Valid(string(kv.Key))
		if i, ok := at[k]; ok {
			out[i].value = kv.Value
			continue
		}
		at[k] = len(out)
		out = append(out, keyValue{k, kv.Value})
	}
	return out
}

// appendKeyValues appends merged attributes as an array of KeyValue.
func appendKeyValues(b []byte, kvs []keyValue) []byte {
	return appendItems(b, len(kvs), func(b []byte, i int) []byte { return appendKeyValue(b, kvs[i].key, kvs[i].value) })
}

// appendKeyValue appends one KeyValue.
func appendKeyValue(b []byte, key string, v attribute.Value) []byte {
	b = append(b, '{')
	if key != "" {
		b = append(b, `"key":`...)
		b = jsonstring.AppendAsJSONIterator(b, key)
		b = append(b, ',')
	}
	b = append(b, `"value":`...)
	b = appendValue(b, v)
	return append(b, '}')
}

// appendValue appends an AnyValue, as pdataattr.PutValue maps v.
func appendValue(b []byte, v attribute.Value) []byte {
	switch v.Type() {
	case attribute.BOOL:
		return appendBool(b, v.AsBool())
	case attribute.INT64:
		return appendInt(b, v.AsInt64())
	case attribute.FLOAT64:
		return appendDoubleValue(b, v.AsFloat64())
	case attribute.STRING:
		return appendStringValue(b, v.AsString())
	case attribute.BOOLSLICE:
		s := v.AsBoolSlice()
		return appendArray(b, len(s), func(b []byte, i int) []byte { return appendBool(b, s[i]) })
	case attribute.INT64SLICE:
		s := v.AsInt64Slice()
		return appendArray(b, len(s), func(b []byte, i int) []byte { return appendInt(b, s[i]) })
	case attribute.FLOAT64SLICE:
		s := v.AsFloat64Slice()
		return appendArray(b, len(s), func(b []byte, i int) []byte { return appendDoubleValue(b, s[i]) })
	case attribute.STRINGSLICE:
		s := v.AsStringSlice()
		return appendArray(b, len(s), func(b []byte, i int) []byte { return appendStringValue(b, s[i]) })
	case attribute.BYTESLICE:
		b = append(b, `{"bytesValue":"`...)
		b = base64.StdEncoding.AppendEncode(b, v.AsByteSlice())
		return append(b, `"}`...)
	case attribute.SLICE:
		s := v.AsSlice()
		return appendArray(b, len(s), func(b []byte, i int) []byte { return appendValue(b, s[i]) })
	case attribute.MAP:
		b = append(b, `{"kvlistValue":{`...)
		if m := v.AsMap(); len(m) > 0 {
			b = append(b, `"values":`...)
			b = appendAttrs(b, m)
		}
		return append(b, "}}"...)
	case attribute.EMPTY:
		return append(b, "{}"...)
	}
	return append(b, `{"stringValue":"INVALID"}`...)
}

func appendBool(b []byte, v bool) []byte {
	return append(strconv.AppendBool(append(b, `{"boolValue":`...), v), '}')
}

func appendInt(b []byte, v int64) []byte {
	return append(strconv.AppendInt(append(b, `{"intValue":"`...), v, 10), `"}`...)
}

func appendDoubleValue(b []byte, v float64) []byte {
	return append(jsonnumber.AppendAsJSONIterator(append(b, `{"doubleValue":`...), v), '}')
}

func appendStringValue(b []byte, v string) []byte {
	return append(jsonstring.AppendAsJSONIterator(append(b, `{"stringValue":`...), pdataattr.Valid(v)), '}')
}

// appendArray appends an arrayValue of n values, each appended by value.
func appendArray(b []byte, n int, value func(b []byte, i int) []byte) []byte {
	b = append(b, `{"arrayValue":{`...)
	if n > 0 {
		b = append(b, `"values":`...)
		b = appendItems(b, n, value)
	}
	return append(b, "}}"...)
}
