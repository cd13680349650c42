package spans

import (
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// NewSampler returns the sampler jobtrace uses: a span with no parent or a
// sampled parent is sampled; a span whose parent is not sampled is still
// recorded (so the local artifacts are complete) but not sampled, so it is
// never exported. This honours the sampled flag of an outer TRACEPARENT.
func NewSampler() sdktrace.Sampler {
	return sdktrace.ParentBased(sdktrace.AlwaysSample(),
		sdktrace.WithRemoteParentNotSampled(recordOnly{}),
		sdktrace.WithLocalParentNotSampled(recordOnly{}),
	)
}

type recordOnly struct{}

func (recordOnly) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	return sdktrace.SamplingResult{
		Decision:   sdktrace.RecordOnly,
		Tracestate: trace.SpanContextFromContext(p.ParentContext).TraceState(),
	}
}

func (recordOnly) Description() string { return "RecordOnly" }
