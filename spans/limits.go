package spans

import (
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/jobtrace/jobtrace/spans/protocol"
)

// Limits of the spans jobtrace records. The SDK's tracer provider would
// otherwise take them from OTEL_SPAN_ATTRIBUTE_COUNT_LIMIT,
// OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT, OTEL_ATTRIBUTE_COUNT_LIMIT,
// OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT, OTEL_SPAN_EVENT_COUNT_LIMIT,
// OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT, OTEL_SPAN_LINK_COUNT_LIMIT and
// OTEL_LINK_ATTRIBUTE_COUNT_LIMIT, which the job's environment (jobtrace's
// own) may set for the job's tools: a limit of 3 attributes there would
// drop the usage jobtrace sets on its spans and reads back for the
// summary, report.html and profile.json. So every limit is set here
// (SpanLimits), and a span past one says so the OTLP way: its
// dropped_attributes_count or dropped_events_count.
const (
	// MaxSpanAttributes bounds the attributes of one span: those of its
	// messages (begin, end, attr), the job's counters, and jobtrace's own
	// (usage, result, source). It is the SDK's default, so that a phase
	// flooded with attributes holds no more than it would elsewhere.
	MaxSpanAttributes = sdktrace.DefaultAttributeCountLimit
	// MaxSpanEvents bounds the events of one span (`jobtrace event`,
	// marker patterns): the SDK's default.
	MaxSpanEvents = sdktrace.DefaultEventCountLimit
	// MaxEventAttributes bounds the attributes of one event: those of its
	// message, at most protocol.MaxAttrs.
	MaxEventAttributes = protocol.MaxAttrs
)

// SpanLimits returns the limits of jobtrace's spans, every one set, for
// sdktrace.WithRawSpanLimits: MaxSpanAttributes, MaxSpanEvents and
// MaxEventAttributes; attribute values of any length (text is bounded
// where it comes in: limits.max_line_bytes, limits.max_message_bytes);
// the SDK's defaults for nesting of values and for links, which jobtrace
// does not make.
func SpanLimits() sdktrace.SpanLimits {
	return sdktrace.SpanLimits{
		AttributeValueLengthLimit:   -1,
		AttributeValueDepthLimit:    sdktrace.DefaultAttributeValueDepthLimit,
		AttributeCountLimit:         MaxSpanAttributes,
		EventCountLimit:             MaxSpanEvents,
		AttributePerEventCountLimit: MaxEventAttributes,
		LinkCountLimit:              sdktrace.DefaultLinkCountLimit,
		AttributePerLinkCountLimit:  sdktrace.DefaultAttributePerLinkCountLimit,
	}
}
