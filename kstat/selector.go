package kstat

import (
	"fmt"
	"strconv"
	"strings"
)

// Selector picks kstats by module, instance and name, the way kstat(1)
// names them: module:instance:name. An empty Module or Name, or an Instance
// of -1, matches anything.
type Selector struct {
	Module   string
	Instance int
	Name     string
}

// SelectAll returns the Selector that matches every kstat.
func SelectAll() Selector { return Selector{Instance: -1} }

// ParseSelector parses "module[:instance[:name]]". A missing or empty part,
// or "*", matches anything; the name is everything after the second colon,
// so it may hold colons of its own. "" is SelectAll.
func ParseSelector(s string) (Selector, error) {
	sel := SelectAll()
	parts := strings.SplitN(s, ":", 3)
	if p := parts[0]; p != "*" {
		sel.Module = p
	}
	if len(parts) > 1 && parts[1] != "" && parts[1] != "*" {
		n, err := strconv.Atoi(parts[1])
		if err != nil || n < 0 {
			return Selector{}, fmt.Errorf("kstat selector %q: instance %q is not a number", s, parts[1])
		}
		sel.Instance = n
	}
	if len(parts) > 2 && parts[2] != "*" {
		sel.Name = parts[2]
	}
	return sel, nil
}

// Match says whether k is one of the kstats s picks.
func (s Selector) Match(k KStat) bool {
	return (s.Module == "" || k.Module == s.Module) &&
		(s.Instance < 0 || k.Instance == s.Instance) &&
		(s.Name == "" || k.Name == s.Name)
}

func (s Selector) String() string {
	part := func(p string) string {
		if p == "" {
			return "*"
		}
		return p
	}
	inst := "*"
	if s.Instance >= 0 {
		inst = strconv.Itoa(s.Instance)
	}
	return part(s.Module) + ":" + inst + ":" + part(s.Name)
}
