// Package scan finds phase markers in a job's output.
//
// The agent copies each chunk of the job's stdout or stderr to the real
// stream first and then writes the same chunk to a Scanner, so scanning can
// never change or delay the job's output. A Scanner splits lines itself,
// skips lines that cannot hold a marker after looking at their first
// non-blank byte, and keeps at most MaxLineBytes of a partial line.
//
// Recognised markers, each at the start of a line after optional blanks and
// ANSI escape sequences:
//
//	BEGIN_PHASE name [key=value ...]       (Syntax "phase")
//	END_PHASE name [result=failure] [key=value ...]
//	::group::Title                         (Syntax "github", GitHub Actions)
//	::endgroup::
//	section_start:1700000000:name[collapsed=true]\r\x1b[0KHeader   (Syntax "gitlab")
//	section_end:1700000000:name\r\x1b[0K
//
// plus user patterns (Syntax "pattern"): a regular expression that turns
// every matching line into an event and, optionally, a counter increment.
// docs/markers.md describes the syntaxes for users.
package scan
