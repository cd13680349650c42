package spans

import (
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/insight/sizing"
	"github.com/jobtrace/jobtrace/insight/verdict"
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
//
// The job's own attributes and events (those of its messages, its
// counters) are bounded by MaxUserAttributes and MaxUserEvents per span,
// which the Tracker keeps and counts when hit; the span's limits are those
// bounds plus the room for what jobtrace itself sets (OwnAttributes,
// OwnEventAttributes), so that the job can never crowd out a span's usage,
// result or counts.
const (
	// MaxUserAttributes bounds the distinct attributes the job's messages
	// (begin, end, attr) and counters set on one span: the SDK's default.
	// Past it, new ones are dropped and counted (jobtrace.dropped.attributes).
	MaxUserAttributes = sdktrace.DefaultAttributeCountLimit
	// MaxUserEvents bounds the events of one span (`jobtrace event`,
	// marker patterns): the SDK's default. Past it, events are dropped and
	// counted (jobtrace.dropped.events). jobtrace adds no events of its own
	// to a phase's or the job's span.
	MaxUserEvents = sdktrace.DefaultEventCountLimit
	// MaxJobAttributes is the room for the attributes jobtrace sets on the
	// job's span besides its usage: its name, run id, command, pid, result,
	// exit code, and what was dropped at a bound (jobtrace.dropped.*).
	MaxJobAttributes = 32
)

// ownPhaseKeys are the attributes the Tracker sets on a phase's span.
var ownPhaseKeys = []attribute.Key{AttrPhaseSource, AttrPhaseTitle, semconv.CICDPipelineTaskRunResultKey}

// ownEventKeys are the attributes the Tracker sets on an event.
var ownEventKeys = []attribute.Key{AttrEventSource}

// OwnAttributes is how many attributes jobtrace itself may set on one span:
// a span's usage (usage.AttributeKeys), its verdict (verdict.AttributeKeys)
// and the window it was measured over or why it has none
// (usage.NumWindowKeys), the Tracker's own on a phase, the job's right-sizing
// advice (sizing.AttributeKeys) and the job's span's
// other attributes (MaxJobAttributes).
func OwnAttributes() int {
	return usage.NumAttributeKeys + verdict.NumAttributeKeys + usage.NumWindowKeys + len(ownPhaseKeys) + sizing.NumAttributeKeys + MaxJobAttributes
}

// MaxSpanAttributes bounds the attributes of one span: MaxUserAttributes
// and OwnAttributes.
func MaxSpanAttributes() int { return MaxUserAttributes + OwnAttributes() }

// MaxEventAttributes bounds the attributes of one event: those of its
// message, at most protocol.MaxAttrs, and the Tracker's own.
func MaxEventAttributes() int { return protocol.MaxAttrs + len(ownEventKeys) }

// SpanLimits returns the limits of jobtrace's spans, every one set, for
// sdktrace.WithRawSpanLimits: MaxSpanAttributes, MaxUserEvents and
// MaxEventAttributes; attribute values of any length (text is bounded
// where it comes in: limits.max_line_bytes, limits.max_message_bytes);
// the SDK's defaults for nesting of values and for links, which jobtrace
// does not make.
func SpanLimits() sdktrace.SpanLimits {
	return sdktrace.SpanLimits{
		AttributeValueLengthLimit:   -1,
		AttributeValueDepthLimit:    sdktrace.DefaultAttributeValueDepthLimit,
		AttributeCountLimit:         MaxSpanAttributes(),
		EventCountLimit:             MaxUserEvents,
		AttributePerEventCountLimit: MaxEventAttributes(),
		LinkCountLimit:              sdktrace.DefaultLinkCountLimit,
		AttributePerLinkCountLimit:  sdktrace.DefaultAttributePerLinkCountLimit,
	}
}
