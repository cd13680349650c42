package figure

import "strconv"

// iecUnits are the units of sizes above 1000 bytes, each 1024 of the one
// before.
var iecUnits = [...]string{"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}

// Bytes writes a size by the rule of sizes (see the package
// documentation): 999 B, 0.98 KiB, 1.5 KiB, 12.3 MiB, 300 MiB.
func Bytes(v float64) string { return format(AppendBytes, v) }

// AppendBytes appends v as Bytes writes it.
func AppendBytes(b []byte, v float64) []byte {
	switch {
	case missing(v):
		return append(b, Absent...)
	case v <= 0:
		return append(b, "0 B"...)
	}
	if n, ok := appendDigits(b, v, 0); ok {
		return append(n, " B"...)
	}
	for i, u := range iecUnits {
		v /= 1024
		n, ok := appendDigits(b, v, 2)
		if !ok && i == len(iecUnits)-1 {
			// Beyond the last unit the figure keeps all its digits.
			n, ok = strconv.AppendFloat(b, v, 'f', 0, 64), true
		}
		if ok {
			n = append(n, ' ')
			return append(n, u...)
		}
	}
	return b // not reached
}

// Rate writes a throughput in bytes per second: Bytes with "/s".
func Rate(bps float64) string { return format(AppendRate, bps) }

// AppendRate appends bps as Rate writes it.
func AppendRate(b []byte, bps float64) []byte {
	if missing(bps) {
		return append(b, Absent...)
	}
	return append(AppendBytes(b, bps), "/s"...)
}

// appendDigits appends v ≥ 0 with three significant digits at most and
// at most maxDec decimals, the zeros at the end of the decimals dropped;
// it appends nothing and returns false when v takes four digits or more
// before the point, rounded. Each precision is tried by writing it, so
// that the figure is judged by its digits as written, not by a bound
// that rounding in binary may miss.
func appendDigits(b []byte, v float64, maxDec int) ([]byte, bool) {
	for dec := maxDec; dec >= 0; dec-- {
		n := strconv.AppendFloat(b, v, 'f', dec, 64)
		whole := len(n) - len(b)
		if dec > 0 {
			whole -= dec + 1
		}
		if whole > 3-dec {
			continue
		}
		return trimZeros(n, dec), true
	}
	return b, false
}

// trimZeros drops the zeros at the end of b's dec decimals, and the point
// when none is left.
func trimZeros(b []byte, dec int) []byte {
	if dec == 0 {
		return b
	}
	for b[len(b)-1] == '0' {
		b = b[:len(b)-1]
	}
	if b[len(b)-1] == '.' {
		b = b[:len(b)-1]
	}
	return b
}
