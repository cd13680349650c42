package wire

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
// ResultSuccess when r is empty. Every place that records or shows a
// result it was given (a phase's span, a standalone run, the phase
// metrics, the summary) takes it through here, so that "empty means
// success" is one rule. A result read back from a span (the report) is
// empty only when the span carries none: it is shown as not known.
func NormalResult(r string) string {
	if r == "" {
		return ResultSuccess
	}
	return r
}

// ValidResult reports whether r is a result an end message may carry: one
// of the Result* values, or empty for success.
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
