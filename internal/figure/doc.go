// Package figure writes the figures of a run the one way every renderer
// shows them: the end-of-job summary (text and Markdown), report.html and
// usage.svg, profile.json's marker details, the verdicts' reasons, the
// right-sizing advice and jobtrace diff. A phase's duration or peak memory
// reads the same in all of them.
//
// Each kind of figure has one rule, in an allocation-free Append form for
// the renderers that write into a byte slice, and a string form:
//
//   - Duration (and Seconds, for a duration held in seconds): at most three
//     significant digits in the largest unit that keeps the figure under
//     1000 (ns, µs, ms) or under a minute (s), then minutes with whole
//     seconds, then hours with whole minutes: 850ns, 850µs, 12.3ms, 4.56s,
//     59.9s, 2m03s, 1h05m, 50h00m. No space before the unit.
//   - Bytes: IEC units (1 KiB is 1024 B) with at most three significant
//     digits, whole bytes below 1000: 0 B, 999 B, 1.5 KiB, 12.3 MiB,
//     300 MiB. A figure would take four digits from 999.5 of a unit: it is
//     written in the next unit, with two decimals, so 1000 B is 0.98 KiB,
//     1023 B is 1 KiB and 999.95 KiB is 0.98 MiB.
//   - Rate: bytes per second by the rule of Bytes, "/s" after it.
//   - Count (CPUs busy, operations per second, a ratio): two decimals below
//     1, one below 10, whole from 10: 0.05, 0.33, 2.1, 12, 1234. These are
//     averages and quantiles of samples, whose third digit is noise (the
//     CPUs busy at p95 are known within 3 %); a whole number is never cut.
//   - Percent: a percentage (0 to 100, not a share of 1) by the rule of
//     Count, "%" after it: 0.5%, 3.1%, 35%, 100%.
//
// Zeros at the end of the decimals are dropped: 1.5s, not 1.50s; 2 GiB,
// not 2.00 GiB. Figures are rounded to the nearest; a duration, counted in
// whole nanoseconds, is rounded half up by integer arithmetic, so that
// DurationJS gives the same text.
//
// A figure that is not a number (NaN or an infinity, from a damaged file)
// was not measured: it is written as Absent, the dash every renderer
// shows for a missing figure, never as a measured 0. A negative figure (a
// counter that went back, a clock that stepped) is written as 0.
//
// The axes of report.html's charts need no rule of their own: their ticks
// are round values (whole steps of time; 1, 2 or 5 times a power of ten
// percent; powers of two of a byte unit) which these rules write exactly.
package figure

import "math"

// Absent is what a figure that was not measured is written as: a dash,
// never read as a measured zero.
const Absent = "–"

// missing reports whether v is not a measured figure: NaN or an infinity.
func missing(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

// format returns what appendFigure appends for v, as a string form does.
func format[T any](appendFigure func([]byte, T) []byte, v T) string {
	return string(appendFigure(make([]byte, 0, 16), v))
}
