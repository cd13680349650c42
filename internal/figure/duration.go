package figure

import (
	"math"
	"strconv"
	"time"
)

// Duration writes d by the rule of durations (see the package
// documentation): 850µs, 12.3ms, 4.56s, 2m03s, 1h05m; 0s when d is not
// positive.
func Duration(d time.Duration) string { return format(AppendDuration, d) }

// durationBands are the units a duration under a minute is written in,
// each up to where the next takes over.
var durationBands = [...]struct {
	unit, below time.Duration
	name        string
}{
	{time.Microsecond, 1000 * time.Microsecond, "µs"},
	{time.Millisecond, 1000 * time.Millisecond, "ms"},
	{time.Second, time.Minute, "s"},
}

// AppendDuration appends d as Duration writes it.
func AppendDuration(b []byte, d time.Duration) []byte {
	switch {
	case d <= 0:
		return append(b, "0s"...)
	case d < time.Microsecond:
		b = strconv.AppendInt(b, int64(d), 10)
		return append(b, "ns"...)
	}
	for _, band := range durationBands {
		if d >= band.below {
			continue
		}
		// Two decimals, then one, then none: the first that keeps three
		// digits and stays under the band's end.
		step := band.unit / 100
		for dec := 2; dec >= 0; dec-- {
			q := (d + step/2) / step
			if q < 1000 && q*step < band.below {
				b = appendDecimal(b, int64(q), dec)
				return append(b, band.name...)
			}
			step *= 10
		}
	}
	if s := roundTo(d, time.Second); s < 3600 {
		b = strconv.AppendInt(b, s/60, 10)
		b = append(b, 'm')
		b = append2(b, s%60)
		return append(b, 's')
	}
	m := roundTo(d, time.Minute)
	b = strconv.AppendInt(b, m/60, 10)
	b = append(b, 'h')
	b = append2(b, m%60)
	return append(b, 'm')
}

// Seconds writes a duration given in seconds by the rule of Duration;
// Absent when s is not a number.
func Seconds(s float64) string { return format(AppendSeconds, s) }

// AppendSeconds appends s as Seconds writes it.
func AppendSeconds(b []byte, s float64) []byte {
	switch {
	case missing(s):
		return append(b, Absent...)
	case s >= float64(math.MaxInt64)/1e9:
		return AppendDuration(b, math.MaxInt64)
	}
	return AppendDuration(b, time.Duration(math.Round(s*1e9)))
}

// roundTo is d in whole units, rounded half up (d > 0).
func roundTo(d, unit time.Duration) int64 {
	q, r := d/unit, d%unit
	if r >= unit-r {
		q++
	}
	return int64(q)
}

// appendDecimal appends q / 10^dec with dec decimals (0 to 2), the zeros
// at the end of the decimals dropped.
func appendDecimal(b []byte, q int64, dec int) []byte {
	p := int64(1)
	for range dec {
		p *= 10
	}
	b = strconv.AppendInt(b, q/p, 10)
	f := q % p
	for dec > 0 && f%10 == 0 {
		f /= 10
		dec--
	}
	if dec == 0 {
		return b
	}
	b = append(b, '.')
	if dec == 2 && f < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, f, 10)
}

// append2 appends v (0 to 59) in two digits.
func append2(b []byte, v int64) []byte {
	if v < 10 {
		b = append(b, '0')
	}
	return strconv.AppendInt(b, v, 10)
}
