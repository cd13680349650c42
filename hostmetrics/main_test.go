package hostmetrics

import (
	"testing"

	"github.com/jobtrace/jobtrace/internal/sleeptree"
	"github.com/jobtrace/jobtrace/internal/timingtest"
)

// TestMain checks that no test leaves a goroutine running: the Sampler's
// goroutine must have stopped when Stop returns.
func TestMain(m *testing.M) {
	sleeptree.RunThreadForker()
	timingtest.VerifyTestMain(m)
}
