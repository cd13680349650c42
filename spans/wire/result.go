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
