package summary

import "github.com/jobtrace/jobtrace/internal/cleantext"

// The formats of the summary's cells, for other renderers of jobtrace's
// figures (a diff of runs) to print them alike.

// MarkdownCell makes s print as itself inside a cell of a Markdown table
// (see mdEscape).
func MarkdownCell(s string) string { return mdEscape(s) }

// OneLine makes s printable on one line: control characters become
// spaces, invalid UTF-8 U+FFFD.
func OneLine(s string) string { return oneLine(s) }

// Truncate cuts s to at most n runes, ending it with "…" when it was cut
// (cleantext.CutRunes).
func Truncate(s string, n int) string { return cleantext.CutRunes(s, n) }
