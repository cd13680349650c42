package main

import (
	"fmt"
	"os"

	"github.com/jobtrace/jobtrace/cmd/jobtrace/internal/fastpath"
	"github.com/jobtrace/jobtrace/cmd/jobtrace/internal/lowfd"
	"github.com/jobtrace/jobtrace/supervise"
)

// stepAside answers `jobtrace run`, `jobtrace exec` and the marker
// commands when the process has fewer than lowfd.Min file descriptors
// free, before anything takes one (the Go runtime's poller, made at the
// first timer, which the runtime cannot survive failing to make): run and
// exec replace jobtrace with their command, which runs as it would have
// without jobtrace (its files, its environment, its exit code; 127 or 126
// when it cannot be run), and a marker records nothing and exits 0, one
// warning saying so. A command line that is not well-formed is answered as
// usual, which opens nothing. done is false when jobtrace goes on as usual.
func (c *cli) stepAside(args []string) (code int, done bool) {
	if len(args) == 0 {
		return 0, false
	}
	switch args[0] {
	case "run", "exec", "phase", "event", "counter":
	default:
		return 0, false
	}
	free := lowfd.Free(lowfd.Min)
	if free >= lowfd.Min {
		return 0, false
	}
	log := supervise.NewLogger(os.Stderr)
	short := fmt.Sprintf("too few file descriptors (%d free, jobtrace needs %d; ulimit -n %d)", free, lowfd.Min, lowfd.Limit())
	var argv []string
	var err error
	switch args[0] {
	case "run":
		if argv, _, err = parseRun(args[1:]); err == nil {
			log.Warn(short + ": running " + argv[0] + " without jobtrace: no spans, no artifacts")
		}
	case "exec":
		var l execLine
		if l, err = parseExec(args[1:]); err == nil {
			argv = l.argv
			log.Warn(short + ": running " + argv[0] + " without a span")
		}
	default:
		r, err := fastpath.Parse(args)
		if err != nil {
			return c.dispatch(args), true
		}
		log.Warn(short + ": " + r.What() + " not recorded")
		return 0, true
	}
	if err != nil {
		return exitCode(err), true
	}
	return startCode(0, supervise.Replace(argv, os.Environ()), log), true
}
