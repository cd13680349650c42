package session

import (
	"errors"
	"os/exec"
	"strings"
	"testing"

	"github.com/jobtrace/jobtrace/spans/protocol"
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
	// os/exec's error, which the Go API's Task.Run has, in a shell's
	// words as `jobtrace exec` says it.
	if got := DescribeExit("make", 127, exec.Command("no-such-command-jobtrace").Start()); got != "no-such-command-jobtrace: command not found" {
		t.Errorf("os/exec's not found: %q", got)
	}
}

// A command's phase ends with its result, and a status only when it
// failed, cleaned and cut to what a phase message carries.
func TestCommandEnd(t *testing.T) {
	for _, c := range []struct {
		what           string
		code           int
		err            error
		result, status string
	}{
		{"make", 0, nil, "success", ""},
		{"make", 128 + 15, nil, "cancellation", ""},
		{"make", 2, nil, "failure", "make exited with code 2"},
		{"make", 127, errors.New("make: command not found\x1b[2J"), "error", "make: command not found\ufffd[2J"},
	} {
		if r, s := CommandEnd(c.what, c.code, c.err); r != c.result || s != c.status {
			t.Errorf("CommandEnd(%q, %d, %v) = %q %q, want %q %q", c.what, c.code, c.err, r, s, c.result, c.status)
		}
	}
	long := strings.Repeat("x", protocol.MaxNameBytes)
	if _, s := CommandEnd(long, 2, nil); len(s) > protocol.MaxNameBytes || !strings.HasPrefix(s, "xxx") {
		t.Errorf("a long command's status is %d bytes, at most %d", len(s), protocol.MaxNameBytes)
	}
}
