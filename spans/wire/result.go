package wire

import "math"

// Results of a phase, the OpenTelemetry semantic conventions'
// cicd.pipeline.task.run.result values. An empty result means success.
// They are here, with the rules below, so that the fast path checks
// --result exactly as the agent does.
const (
	ResultSuccess      = "success"
	ResultFailure      = "failure"
	ResultError        = "error"
	ResultTimeout      = "timeout"
	ResultCancellation = "cancellation"
	ResultSkip         = "skip"
)

// NormalResult is the result of a phase that ended with r: r, or
// ResultSuccess when r is empty. A result is taken through here where it
// comes in (the tracker's end and add, a standalone phase, a background
// agent's stop, the Go API's Stop), so that "empty means success" is one
// rule; what records or shows it after (spans, metrics, the summary) has
// it so. A result read back from a span (the report) is empty only when
// the span carries none: it is shown as not known.
func NormalResult(r string) string {
	if r == "" {
		return ResultSuccess
	}
	return r
}

// ValidResult reports whether r is a result an end message may carry: one
// of the Result* values, or empty for success. It is the one rule: the
// agent checks every message by it (protocol.Validate), the fast path
// checks --result by it, and what records a result after trusts it.
func ValidResult(r string) bool {
	switch r {
	case "", ResultSuccess, ResultFailure, ResultError, ResultTimeout, ResultCancellation, ResultSkip:
		return true
	}
	return false
}

// Failed reports whether a phase that ended with result r failed: its span
// gets the status Error, and every view shows it failed. A skipped or
// cancelled phase did not fail.
func Failed(r string) bool {
	switch r {
	case ResultFailure, ResultError, ResultTimeout:
		return true
	}
	return false
}

// ValidCounterValue reports whether v is an increment a counter message
// may carry: a finite number, not negative. It is the one rule, which
// protocol.Validate and the fast path's --value apply.
func ValidCounterValue(v float64) bool {
	return v >= 0 && !math.IsInf(v, 1) // NaN is not >= 0
}
