package wire

import "testing"

// The results an end message may carry, and which of them fail a phase:
// the one list the fast path, the agent and a standalone run all use.
func TestResults(t *testing.T) {
	for _, c := range []struct {
		r             string
		valid, failed bool
	}{
		{"", true, false}, {"success", true, false}, {"skip", true, false}, {"cancellation", true, false},
		{"failure", true, true}, {"error", true, true}, {"timeout", true, true},
		{"Success", false, false}, {"meh", false, false}, {"failed", false, false},
	} {
		if ValidResult(c.r) != c.valid || Failed(c.r) != c.failed {
			t.Errorf("%q: valid %v failed %v, want %v %v", c.r, ValidResult(c.r), Failed(c.r), c.valid, c.failed)
		}
	}
}
