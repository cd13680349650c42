package monotonic

import (
	"testing"
	"time"
)

func TestClamp(t *testing.T) {
	var tot Total[time.Duration]
	for _, c := range []struct{ in, want time.Duration }{
		{-3, -3}, // the first value stands, whatever it is
		{5, 5},
		{4, 5}, // a dip is held at the highest
		{5, 5},
		{9, 9},
		{0, 9},
	} {
		if got := tot.Clamp(c.in); got != c.want {
			t.Errorf("Clamp(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestStep(t *testing.T) {
	var tot Total[float64]
	for _, c := range []struct{ in, want float64 }{
		{10, 0}, // the baseline
		{12.5, 2.5},
		{11, 0}, // a dip steps nothing
		{12, 0}, // nor does coming back to the highest
		{14, 1.5},
	} {
		if got := tot.Step(c.in); got != c.want {
			t.Errorf("Step(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	tot.Reset()
	if got := tot.Step(3); got != 0 {
		t.Errorf("after Reset, Step(3) = %v, want the baseline 0", got)
	}
	var u Total[uint64]
	u.Step(7)
	if got := u.Step(3); got != 0 {
		t.Errorf("uint64 Step below the highest = %v, want 0 (no wrap-around)", got)
	}
	if got := u.Clamp(2); got != 7 {
		t.Errorf("Clamp after Step = %v, want 7", got)
	}
}
