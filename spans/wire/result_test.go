package wire

import (
	"math"
	"testing"
)

// The results an end message may carry, which of them fail a phase, and
// that an empty one is success: the one list the fast path, the agent and a standalone run all use.
func TestResults(t *testing.T) {
	for _, c := range []struct {
		r, normal     string
		valid, failed bool
	}{
		{"", "success", true, false}, {"success", "success", true, false}, {"skip", "skip", true, false},
		{"cancellation", "cancellation", true, false},
		{"failure", "failure", true, true}, {"error", "error", true, true}, {"timeout", "timeout", true, true},
		{"Success", "Success", false, false}, {"meh", "meh", false, false}, {"failed", "failed", false, false},
	} {
		if ValidResult(c.r) != c.valid || Failed(c.r) != c.failed || NormalResult(c.r) != c.normal {
			t.Errorf("%q: valid %v failed %v normal %q, want %v %v %q", c.r, ValidResult(c.r), Failed(c.r), NormalResult(c.r), c.valid, c.failed, c.normal)
		}
	}
}

// A counter's increment is a finite number, not negative: the one rule of
// the fast path's --value and the agent's messages.
func TestValidCounterValue(t *testing.T) {
	for v, want := range map[float64]bool{
		0: true, math.Copysign(0, -1): true, 1.5: true, math.MaxFloat64: true,
		-1: false, -math.SmallestNonzeroFloat64: false, math.Inf(1): false, math.Inf(-1): false, math.NaN(): false,
	} {
		if ValidCounterValue(v) != want {
			t.Errorf("ValidCounterValue(%v) = %v, want %v", v, !want, want)
		}
	}
}
