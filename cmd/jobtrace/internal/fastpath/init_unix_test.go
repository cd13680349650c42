//go:build unix

package fastpath

import (
	"strings"
	"testing"

	"github.com/jobtrace/jobtrace/spans/wire"
)

// The warning says the wait the fast path really had.
func TestTimeoutSaysTheReplyTimeout(t *testing.T) {
	if !strings.HasSuffix(string(errTimeout), " "+wire.ReplyTimeout.String()) {
		t.Errorf("%q does not say %v", errTimeout, wire.ReplyTimeout)
	}
}
