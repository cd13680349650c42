package main

import (
	"testing"

	"github.com/jobtrace/jobtrace/spans/protocol"
)

// Every --result ends the job: an exit code outside 0–255 (Buildkite's -1
// for a command ended by a signal) and a word not known are not usage
// errors that leave the agent running.
func TestStopResultEndsTheJobWhateverItIsGiven(t *testing.T) {
	type want struct {
		in, want string
		code     bool
		warn     bool
	}
	for _, c := range []want{
		{"success", protocol.ResultSuccess, false, false},
		{"canceled", protocol.ResultCancellation, false, false},
		{"0", protocol.ResultSuccess, true, false},
		{"1", protocol.ResultFailure, true, false},
		{"143", protocol.ResultCancellation, true, false}, // SIGTERM
		{"137", protocol.ResultFailure, true, false},      // SIGKILL
		{"-1", protocol.ResultFailure, true, false},
		{"256", protocol.ResultFailure, true, false},
		{"running", protocol.ResultError, false, true},
		{"", protocol.ResultError, false, true},
	} {
		r, attrs, warning := stopResult(c.in)
		if r != c.want || (len(attrs) > 0) != c.code || (warning != "") != c.warn {
			t.Errorf("--result %q: %s, %v, warning %q; want %s, exit code %v, warning %v", c.in, r, attrs, warning, c.want, c.code, c.warn)
		}
	}
}
