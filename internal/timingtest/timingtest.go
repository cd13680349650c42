// Package timingtest splits the checks that depend on time from the rest.
//
// `go test ./...` must pass on a loaded machine, every time. A check whose
// outcome depends on how soon the scheduler runs something — a wall-clock
// budget ("the end is delayed by at most 100 ms"), a count of samples in a
// window, a phase boundary within a few ms of the work it brackets, the CPU
// a sampler sees at a given interval — belongs to the timing suite, built
// with the tag "timing" and run on its own:
//
//	go test -tags timing ./...
//
// A test that is about time as a whole lives in a file with the constraint
// `//go:build timing`. A test that checks behaviour and also measures how
// long it took keeps the behaviour in every build and passes the figure to
// Within, which fails the test only in the timing suite.
//
// Waits in the ordinary tests are for a condition, with a Patience that no
// loaded machine reaches, never for a fixed time.
package timingtest

import (
	"fmt"
	"os"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// Patience bounds a wait for something that takes milliseconds on an idle
// machine: long enough for any loaded machine, so that reaching it means the
// thing will not happen at all.
const Patience = time.Minute

// Within checks that took, what was measured for what, is at most limit.
// It always logs the figure; it fails the test only when built with the tag
// "timing".
func Within(tb testing.TB, what string, took, limit time.Duration) {
	tb.Helper()
	if took <= limit {
		tb.Logf("%s: %v (at most %v)", what, took, limit)
		return
	}
	if Enabled {
		tb.Errorf("%s: %v, more than %v", what, took, limit)
		return
	}
	tb.Logf("%s: %v, more than %v (checked only with -tags timing)", what, took, limit)
}

// Eventually polls cond until it holds, and fails the test if it does not
// within Patience.
func Eventually(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(Patience)
	for wait := time.Millisecond; !cond(); wait = min(2*wait, 50*time.Millisecond) {
		if time.Now().After(deadline) {
			tb.Fatalf("%s: not after %v", what, Patience)
		}
		time.Sleep(wait)
	}
}

// VerifyTestMain runs the tests, then checks with goleak that they left no
// goroutine running. goleak alone gives a goroutine that is ending about
// 0.4 s to go, which a loaded machine can overrun; this gives it Patience.
func VerifyTestMain(m *testing.M, opts ...goleak.Option) {
	code := m.Run()
	if code == 0 {
		deadline := time.Now().Add(Patience)
		for {
			err := goleak.Find(opts...)
			if err == nil {
				break
			}
			if time.Now().After(deadline) {
				fmt.Fprintf(os.Stderr, "goleak: errors on successful test run: %v\n", err)
				code = 1
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	os.Exit(code)
}
