// Package guardmain makes the jobtrace binary the guard process of a
// `jobtrace run` (see package supervise/guard) when its only argument is
// guard.Arg. It runs in an init function and depends only on the standard
// library and the guard package, which depends on nothing but the standard
// library and three small packages of its own kind, so the guard
// starts before the OpenTelemetry SDK, gRPC and the exporters are
// initialized: that is most of what starting jobtrace costs.
package guardmain

import (
	"os"

	"github.com/jobtrace/jobtrace/supervise/guard"
)

func init() {
	if len(os.Args) == 2 && os.Args[1] == guard.Arg {
		guard.Main()
	}
}
