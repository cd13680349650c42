// Package supervise runs the child process of a job: it starts it in a
// process group of its own (on a pseudo-terminal where jobtrace's stdout is
// one), passes its output through byte for byte while a tap (the marker
// scanner) sees a copy it never holds up, keeps jobtrace's own messages out
// of the job's lines (Gate, Logger), forwards signals with a grace period,
// and returns the exit code as a shell reports it.
package supervise
