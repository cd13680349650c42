package usagecsv

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// timeLayout is RFC 3339 with milliseconds, fixed width so that the column
// sorts as text; in UTC the zone is written "Z".
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

func appendTime(b []byte, t time.Time) []byte {
	return t.UTC().AppendFormat(b, timeLayout)
}

func appendUint(b []byte, v uint64) []byte { return strconv.AppendUint(b, v, 10) }

// appendSeconds writes seconds with up to six decimals (microseconds, the
// finest any source gives), without trailing zeros: 1.5, 2, 0.000125. The
// value is rounded to whole microseconds first and written from integers,
// so float noise (0.1+0.2) never shows.
func appendSeconds(b []byte, s float64) []byte {
	return appendMicros(b, int64(math.Round(s*1e6)))
}

// appendDuration is appendSeconds for a time.Duration, rounded to the
// nearest microsecond.
func appendDuration(b []byte, d time.Duration) []byte {
	return appendMicros(b, d.Round(time.Microsecond).Microseconds())
}

func appendMicros(b []byte, us int64) []byte {
	if us < 0 {
		b = append(b, '-')
		us = -us
	}
	b = strconv.AppendInt(b, us/1e6, 10)
	frac := us % 1e6
	if frac == 0 {
		return b
	}
	b = append(b, '.')
	for div := int64(1e5); frac > 0; div /= 10 {
		b = append(b, byte('0'+frac/div))
		frac %= div
	}
	return b
}

// appendFixed2 writes v with two decimals: percentages and load averages.
func appendFixed2(b []byte, v float64) []byte {
	return strconv.AppendFloat(b, v, 'f', 2, 64)
}

// appendField writes a text field, quoted as RFC 4180 says only when it
// holds a comma, a double quote, CR or LF: the quotes around it, and each
// quote inside doubled.
func appendField(b []byte, s string) []byte {
	if !strings.ContainsAny(s, ",\"\r\n") {
		return append(b, s...)
	}
	b = append(b, '"')
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			break
		}
		b = append(b, s[:i+1]...)
		b = append(b, '"')
		s = s[i+1:]
	}
	b = append(b, s...)
	return append(b, '"')
}
