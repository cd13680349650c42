package warnlimit

import (
	"reflect"
	"strconv"
	"testing"
)

func TestLimiter(t *testing.T) {
	var out []string
	l := New("socket: ", func(s string) { out = append(out, s) }, 2)
	for range 12 {
		l.Warnf("bad %d", 1)
	}
	l.Flush()
	l.Flush()
	want := []string{
		"socket: bad 1", "socket: bad 1", "socket: further warnings are counted, not shown",
		"socket: 10 warnings suppressed so far",
	}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("warnings = %q, want %q", out, want)
	}
	if l.Count() != 12 {
		t.Errorf("Count = %d", l.Count())
	}
	l.Warn("again")
	l.Flush()
	if last := out[len(out)-1]; last != "socket: 11 warnings suppressed in total" {
		t.Errorf("last = %q", last)
	}
}

func TestCountsAtPowersOfTen(t *testing.T) {
	var out []string
	l := New("", func(s string) { out = append(out, s) }, 1)
	for range 1 + 1000 {
		l.Warn("x")
	}
	want := []string{"x", "further warnings are counted, not shown",
		"10 warnings suppressed so far", "100 warnings suppressed so far", "1000 warnings suppressed so far"}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("warnings = %q, want %q", out, want)
	}
	l.Flush()
	if len(out) != len(want) {
		t.Errorf("Flush printed %q with nothing new to count", out[len(want):])
	}
}

func TestWithoutAWarnFuncOnlyCounts(t *testing.T) {
	l := New("p: ", nil, 1)
	l.Warn("a")
	l.WarnKey("k", "b")
	l.Flush()
	if l.Count() != 2 {
		t.Errorf("Count = %d, want 2", l.Count())
	}
}

func TestWarnKeySaysEachProblemOnce(t *testing.T) {
	var out []string
	l := New("sampling: ", func(s string) { out = append(out, s) }, 2)
	for range 3 {
		l.WarnKey("a", "a failed")
		l.WarnKey("b", "b failed")
		l.WarnKey("c", "c failed")
	}
	l.Flush()
	want := []string{"sampling: a failed", "sampling: b failed", "sampling: further warnings are counted, not shown",
		"sampling: 1 warnings suppressed in total"}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("warnings = %q, want %q", out, want)
	}
	if l.Count() != 3 {
		t.Errorf("Count = %d, want 3 (one per key)", l.Count())
	}
}

func TestKeysAreBounded(t *testing.T) {
	l := New("", func(string) {}, 0)
	for i := range MaxKeys + 10 {
		l.WarnKey(strconv.Itoa(i), "problem")
	}
	if len(l.keys) != MaxKeys {
		t.Fatalf("%d keys held, want MaxKeys (%d)", len(l.keys), MaxKeys)
	}
	// A key beyond the bound is not held: it is counted every time.
	before := l.Count()
	l.WarnKey(strconv.Itoa(MaxKeys+1), "problem")
	l.WarnKey("0", "problem")
	if got := l.Count() - before; got != 1 {
		t.Errorf("%d warnings counted for a key beyond the bound and a key held, want 1", got)
	}
}
