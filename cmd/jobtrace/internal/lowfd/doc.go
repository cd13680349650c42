// Package lowfd tells, before jobtrace opens anything, whether the process
// has the file descriptors jobtrace needs to run a command under it (Min).
// With fewer, `jobtrace run` and `jobtrace exec` step aside for their
// command and the marker commands record nothing, so that jobtrace is
// never the reason a command that would run without it does not.
package lowfd

import "github.com/jobtrace/jobtrace/supervise"

// Min is the fewest free file descriptors with which `jobtrace run`,
// `jobtrace exec` and `jobtrace phase|event|counter` do their work. With
// fewer (a low `ulimit -n`, or descriptors inherited open), jobtrace
// replaces itself with the command, or a marker records nothing, and one
// warning says so: the Go runtime cannot survive failing to make its
// poller, and a start without the descriptors it needs would fail the
// command. From Min on, what jobtrace cannot open degrades what it records,
// never the command, which runs at worst on jobtrace's own output
// (supervise.RetryDirect).
//
// Min is what jobtrace holds at once before the command starts: the
// runtime's poller (pollerFDs), the descriptors held for the command's
// start (supervise.SpareFDs), and the files jobtrace opens on the way and
// goes on without when it cannot (passingFDs).
const Min = pollerFDs + supervise.SpareFDs + passingFDs

const (
	// pollerFDs is what the Go runtime's poller takes at most: an epoll
	// instance and an eventfd on Linux (see package internal/poller).
	pollerFDs = 2
	// passingFDs is what jobtrace holds besides the poller and the spare
	// descriptors before the command starts: the configuration file, then
	// the socket to the enclosing run, or a step's private spool and its
	// lock, or a phase's state file.
	passingFDs = 2
)
