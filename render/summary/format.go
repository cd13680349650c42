package summary

import (
	"strings"
	"unicode/utf8"

	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/internal/figure"
)

// absent is what a figure that could not be measured prints as
// (figure.Absent), so that it is never read as a measured zero.
const absent = figure.Absent

// oneLine makes a name or message printable on one line by the project's
// rule for text from outside (cleantext.String: invalid UTF-8, line
// breaks, escapes and the other unsafe characters become U+FFFD), and a
// tab, which that rule keeps, a space: the tables line their columns up by
// characters (width), which a tab's is not.
func oneLine(s string) string {
	s = cleantext.String(s)
	if strings.IndexByte(s, '\t') < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\t", " ")
}

// width is the number of columns s takes on a terminal, counted in runes.
func width(s string) int { return utf8.RuneCountInString(s) }
