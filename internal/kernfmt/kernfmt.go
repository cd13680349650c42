// Package kernfmt parses the text the kernel writes in /proc and /sys:
// lines, blank-separated fields, unsigned decimals and the "%lu.%02lu"
// fixed-point numbers of load averages and pressure files. Everything works
// on []byte and allocates nothing, so the readers built on it sample without
// allocating (strconv's parsers take strings, and the conversion escapes
// into their error values).
package kernfmt

import "bytes"

// NextLine splits data at the first newline.
func NextLine(data []byte) (line, rest []byte) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return data[:i], data[i+1:]
	}
	return data, nil
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\n' }

// NextField skips leading blanks (spaces, tabs, newlines) and returns the
// next blank-separated field and what follows it. field is empty when b has
// no more fields.
func NextField(b []byte) (field, rest []byte) {
	i := 0
	for i < len(b) && isBlank(b[i]) {
		i++
	}
	j := i
	for j < len(b) && !isBlank(b[j]) {
		j++
	}
	return b[i:j], b[j:]
}

// ParseUint parses a non-empty run of decimal digits that makes up all of
// b, rejecting overflow.
func ParseUint(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n uint64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if n > (1<<64-1-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// ParseInt parses a decimal integer with an optional minus sign.
func ParseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && b[0] == '-' {
		neg, b = true, b[1:]
	}
	u, ok := ParseUint(b)
	if !ok || u > 1<<63-1 {
		return 0, false
	}
	if neg {
		return -int64(u), true
	}
	return int64(u), true
}

// ParseDecimal parses digits, optionally followed by a dot and more digits
// (at most 18): the fixed-point numbers the kernel prints with "%lu.%02lu".
// No sign, no exponent.
func ParseDecimal(b []byte) (float64, bool) {
	dot := bytes.IndexByte(b, '.')
	if dot < 0 {
		n, ok := ParseUint(b)
		return float64(n), ok
	}
	ip, ok := ParseUint(b[:dot])
	if !ok {
		return 0, false
	}
	frac := b[dot+1:]
	if len(frac) == 0 || len(frac) > 18 {
		return 0, false
	}
	fp, ok := ParseUint(frac)
	if !ok {
		return 0, false
	}
	scale := 1.0
	for range frac {
		scale *= 10
	}
	return float64(ip) + float64(fp)/scale, true
}

// AppendUint appends the decimal form of n to dst.
func AppendUint(dst []byte, n uint64) []byte {
	var tmp [20]byte
	i := len(tmp)
	for {
		i--
		tmp[i] = byte('0' + n%10)
		n /= 10
		if n == 0 {
			break
		}
	}
	return append(dst, tmp[i:]...)
}
