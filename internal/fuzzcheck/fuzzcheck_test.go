package fuzzcheck

import (
	"strings"
	"testing"
)

func TestFirstDifference(t *testing.T) {
	if d := FirstDifference([]byte("same"), []byte("same")); d != "" {
		t.Errorf("equal: %q", d)
	}
	for _, c := range [][2]string{{"abcX", "abcY"}, {"abc", "abcY"}, {"abcY", "abc"}} {
		if d := FirstDifference([]byte(c[0]), []byte(c[1])); !strings.HasPrefix(d, "differs at byte 3:") {
			t.Errorf("%q, %q: %q", c[0], c[1], d)
		}
	}
}
