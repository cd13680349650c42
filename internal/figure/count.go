package figure

import "strconv"

// Count writes a count, or a number of things per second, by the rule of
// counts (see the package documentation): 0.05, 0.33, 2.1, 12, 1234.
func Count(v float64) string { return format(AppendCount, v) }

// AppendCount appends v as Count writes it.
func AppendCount(b []byte, v float64) []byte {
	switch {
	case missing(v):
		return append(b, Absent...)
	case v <= 0:
		return append(b, '0')
	}
	dec := 0
	switch {
	case v < 1:
		dec = 2
	case v < 10:
		dec = 1
	}
	return trimZeros(strconv.AppendFloat(b, v, 'f', dec, 64), dec)
}

// Percent writes a percentage, 0 to 100 (not a share of 1), by the rule of
// Count with "%": 0.5%, 3.1%, 35%, 100%.
func Percent(p float64) string { return format(AppendPercent, p) }

// AppendPercent appends p as Percent writes it.
func AppendPercent(b []byte, p float64) []byte {
	if missing(p) {
		return append(b, Absent...)
	}
	return append(AppendCount(b, p), '%')
}
