package summary

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jobtrace/jobtrace/internal/figure"
)

// absent is what a figure that could not be measured prints as
// (figure.Absent), so that it is never read as a measured zero.
const absent = figure.Absent

// oneLine makes a name or message printable on one line: control
// characters (newlines, tabs, escapes) become spaces, invalid UTF-8 becomes
// U+FFFD, and runs of spaces this makes are kept as they are.
func oneLine(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if unicode.IsControl(r) {
			r = ' '
		}
		b.WriteRune(r)
	}
	return b.String()
}

// width is the number of columns s takes on a terminal, counted in runes.
func width(s string) int { return utf8.RuneCountInString(s) }
