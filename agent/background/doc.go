// Package background is the agent of `jobtrace start` and `jobtrace stop`:
// a session (package session) without a child, held by a process of its
// own for the rest of a CI job whose steps the CI system runs one by one.
//
// `jobtrace start` starts the same binary with Arg (Spawn): detached in a
// session of its own, stdin and stdout on /dev/null, its messages in a log
// file in the out directory. That process, the agent (Run), takes the out
// directory's agent lock (one agent per directory), starts the session,
// writes the state file that later commands find it by, and tells Spawn,
// through a pipe, that it is ready and which environment the steps need.
// The steps talk to its socket and marker dir as they would inside
// `jobtrace run`.
//
// The agent ends when a stop message comes (`jobtrace stop`, SendStop), when
// the process it watches is gone, after a time without messages, or on
// SIGTERM or SIGINT: it shuts the session down, which writes every artifact
// and exports, then records how it ended in the state file and lets go of
// the lock, which is what `jobtrace stop` waits for (Wait).
package background
