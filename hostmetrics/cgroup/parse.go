package cgroup

import (
	"fmt"

	"github.com/jobtrace/jobtrace/internal/kernfmt"
)

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
	v, ok := kernfmt.ParseUint(trimSpace(data))
	if !ok {
		return Opt[uint64]{}, parseErr(path, 1, "not a number")
	}
	return some(v), nil
}

// flatKeyed calls fn for each "key value" line of a flat-keyed file
// (cpu.stat, memory.events). Keys are matched by name, never by
// position: the kernel documentation says new keys may appear anywhere.
func flatKeyed(path string, data []byte, fn func(key []byte, v uint64)) error {
	for n := 1; len(data) > 0; n++ {
		var line []byte
		line, data = kernfmt.NextLine(data)
		if len(line) == 0 {
			continue
		}
		key, rest := kernfmt.NextField(line)
		val, _ := kernfmt.NextField(rest)
		v, ok := kernfmt.ParseUint(val)
		if !ok {
			return parseErr(path, n, "want \"key value\"")
		}
		fn(key, v)
	}
	return nil
}

// ParseDescendants reads nr_descendants from the content of cgroup.stat,
// read from path: how many live cgroups are below this one.
func ParseDescendants(path string, data []byte) (uint64, error) {
	var n uint64
	found := false
	err := flatKeyed(path, data, func(key []byte, v uint64) {
		if string(key) == "nr_descendants" {
			n, found = v, true
		}
	})
	if err == nil && !found {
		err = parseErr(path, 1, "no nr_descendants")
	}
	return n, err
}
