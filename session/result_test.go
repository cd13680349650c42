package session

import (
	"errors"
	"testing"
)

// A job that a cancel killed (SIGINT, SIGTERM, SIGHUP) was cancelled; one
// that another signal killed (a crash, the OOM killer's SIGKILL) failed.
// Before, every signal was a cancellation, and a job the OOM killer ended
// was not an error.
func TestResultOf(t *testing.T) {
	for _, c := range []struct {
		code int
		err  error
		want string
	}{
		{0, nil, "success"},
		{3, nil, "failure"},
		{127, errors.New("not found"), "error"},
		{128 + 1, nil, "cancellation"},  // SIGHUP
		{128 + 2, nil, "cancellation"},  // SIGINT
		{128 + 15, nil, "cancellation"}, // SIGTERM
		{128 + 9, nil, "failure"},       // SIGKILL
		{128 + 6, nil, "failure"},       // SIGABRT
		{128 + 11, nil, "failure"},      // SIGSEGV
		{128, nil, "failure"},
		{255, nil, "failure"},
	} {
		if got := ResultOf(c.code, c.err); got != c.want {
			t.Errorf("ResultOf(%d, %v) = %s, want %s", c.code, c.err, got, c.want)
		}
	}
}

// The status of a command's span says why it could not start, or its exit
// code.
func TestDescribeExit(t *testing.T) {
	if got := DescribeExit("make", 2, nil); got != "make exited with code 2" {
		t.Errorf("exit 2: %q", got)
	}
	if got := DescribeExit("make", 127, errors.New("make: command not found")); got != "make: command not found" {
		t.Errorf("not found: %q", got)
	}
}
