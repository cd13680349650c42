package procfs

// Small helpers shared by the parsers. They work on []byte so that parsing
// never converts to string (strconv's parsers take strings and would allocate
// when the conversion escapes into their error values).

// nextLine splits data at the first newline.
func nextLine(data []byte) (line, rest []byte) {
	for i, c := range data {
		if c == '\n' {
			return data[:i], data[i+1:]
		}
	}
	return data, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' }

// nextField skips leading blanks and returns the next blank-separated field.
// field is empty when the line has no more fields.
func nextField(line []byte) (field, rest []byte) {
	i := 0
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	j := i
	for j < len(line) && !isSpace(line[j]) {
		j++
	}
	return line[i:j], line[j:]
}

// parseUint parses a non-empty run of decimal digits, rejecting overflow.
func parseUint(b []byte) (uint64, bool) {
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

// parseDecimal parses the fixed-point numbers the kernel prints with
// "%lu.%02lu" (load average, PSI averages): digits, optionally a dot and
// more digits. No sign, no exponent.
func parseDecimal(b []byte) (float64, bool) {
	dot := -1
	for i, c := range b {
		if c == '.' {
			dot = i
			break
		}
	}
	if dot < 0 {
		n, ok := parseUint(b)
		return float64(n), ok
	}
	ip, ok := parseUint(b[:dot])
	if !ok {
		return 0, false
	}
	frac := b[dot+1:]
	if len(frac) == 0 || len(frac) > 18 {
		return 0, false
	}
	fp, ok := parseUint(frac)
	if !ok {
		return 0, false
	}
	scale := 1.0
	for range frac {
		scale *= 10
	}
	return float64(ip) + float64(fp)/scale, true
}
