package cgroup

import (
	"bytes"
	"fmt"
	"math"
)

// nextLine splits data at the first newline.
func nextLine(data []byte) (line, rest []byte) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return data[:i], data[i+1:]
	}
	return data, nil
}

// nextField returns the next space-separated field of line.
func nextField(line []byte) (field, rest []byte) {
	for len(line) > 0 && line[0] == ' ' {
		line = line[1:]
	}
	if i := bytes.IndexByte(line, ' '); i >= 0 {
		return line[:i], line[i+1:]
	}
	return line, nil
}

// parseUint parses a decimal uint64 without allocating.
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
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// parseDecimal parses the fixed-point numbers of pressure files ("12.34")
// without allocating.
func parseDecimal(b []byte) (float64, bool) {
	ip, fp := b, []byte(nil)
	if i := bytes.IndexByte(b, '.'); i >= 0 {
		ip, fp = b[:i], b[i+1:]
		if len(fp) == 0 || len(fp) > 9 {
			return 0, false
		}
	}
	n, ok := parseUint(ip)
	if !ok {
		return 0, false
	}
	v := float64(n)
	if fp != nil {
		f, ok := parseUint(fp)
		if !ok {
			return 0, false
		}
		v += float64(f) / math.Pow10(len(fp))
	}
	return v, true
}

// trimSpace removes trailing newlines and spaces.
func trimSpace(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

func parseErr(path string, line int, what string) error {
	return fmt.Errorf("%w: %s line %d: %s", ErrParse, path, line, what)
}

// parseSingle parses a file holding one number, such as memory.current.
func parseSingle(path string, data []byte) (Opt[uint64], error) {
	v, ok := parseUint(trimSpace(data))
	if !ok {
		return Opt[uint64]{}, parseErr(path, 1, "not a number")
	}
	return some(v), nil
}

// parseLimit parses a limit file: a number, or "max" for no limit.
func parseLimit(path string, data []byte) (Limit, error) {
	b := trimSpace(data)
	if string(b) == "max" {
		return Limit{Unlimited: true, Present: true}, nil
	}
	v, ok := parseUint(b)
	if !ok {
		return Limit{}, parseErr(path, 1, "neither a number nor max")
	}
	return Limit{Value: v, Present: true}, nil
}

// flatKeyed calls fn for each "key value" line of a flat-keyed file
// (cpu.stat, memory.events, memory.stat). Keys are matched by name, never by
// position: the kernel documentation says new keys may appear anywhere.
func flatKeyed(path string, data []byte, fn func(key []byte, v uint64)) error {
	for n := 1; len(data) > 0; n++ {
		var line []byte
		line, data = nextLine(data)
		if len(line) == 0 {
			continue
		}
		key, rest := nextField(line)
		val, _ := nextField(rest)
		v, ok := parseUint(val)
		if !ok {
			return parseErr(path, n, "want \"key value\"")
		}
		fn(key, v)
	}
	return nil
}
