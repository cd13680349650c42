package summary

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// absent is what a figure that could not be measured prints as: a dash,
// so that it is never read as a measured zero.
const absent = "–"

// Duration prints a duration with a precision that suits its size
// (850µs, 12.3ms, 4.56s, 2m3s), as all of jobtrace's end-of-job lines do.
func Duration(d time.Duration) string {
	d = max(d, 0)
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%dµs", d.Microseconds())
	case d < time.Second:
		return fmt.Sprintf("%.1fms", float64(d)/float64(time.Millisecond))
	case d < time.Minute:
		return fmt.Sprintf("%.2fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

var iecUnits = [...]string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}

// fmtBytes prints a size in IEC units with one decimal. It moves to the
// next unit from 1000 of the current one, so that a figure never takes more
// than three digits before the point ("1000.0 MiB" prints as "1.0 GiB"),
// which keeps columns narrow.
func fmtBytes(b float64) string {
	if b < 1024 {
		return strconv.FormatFloat(max(b, 0), 'f', 0, 64) + " B"
	}
	v, u := b/1024, 0
	for v >= 999.95 && u < len(iecUnits)-1 {
		v /= 1024
		u++
	}
	return strconv.FormatFloat(v, 'f', 1, 64) + " " + iecUnits[u]
}

// Bytes prints a size as the summary does (fmtBytes), for the other
// renderers of a run.
func Bytes(b float64) string { return fmtBytes(b) }

// Percent prints a utilisation given in percent (0–100) as the summary
// does (fmtPercent), for the other renderers of a run.
func Percent(p float64) string { return fmtPercent(p) }

// fmtRate prints a throughput in bytes per second.
func fmtRate(bps float64) string { return fmtBytes(bps) + "/s" }

// fmtPercent prints a utilisation given in percent (0–100): one decimal
// below 10 %, where the decimal still says something, none above.
func fmtPercent(p float64) string {
	if p < 9.95 {
		return strconv.FormatFloat(max(p, 0), 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(p, 'f', 0, 64) + "%"
}

// fmtCount prints a rate of operations per second.
func fmtCount(v float64) string {
	if v < 9.95 {
		return strconv.FormatFloat(max(v, 0), 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 0, 64)
}

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

// truncate cuts s to at most n runes, ending it with "…" when it was cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n <= 1 {
		return "…"
	}
	i, k := 0, 0
	for j := range s {
		if k == n-1 {
			i = j
			break
		}
		k++
	}
	return s[:i] + "…"
}

// width is the number of columns s takes on a terminal, counted in runes.
func width(s string) int { return utf8.RuneCountInString(s) }
