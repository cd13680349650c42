package telemetry

import (
	"testing"

	"github.com/jobtrace/jobtrace/internal/timingtest"
)

// TestMain checks that the tests leave no goroutine running.
func TestMain(m *testing.M) { timingtest.VerifyTestMain(m) }
