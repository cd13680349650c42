package cgrouptree

import "bytes"

// ParsePopulated reads the "populated" line of a cgroup.events file: 1
// when a process is in the cgroup or below it. ok is false when the file
// has no such line.
func ParsePopulated(events []byte) (populated, ok bool) {
	for len(events) > 0 {
		line := events
		if i := bytes.IndexByte(events, '\n'); i >= 0 {
			line, events = events[:i], events[i+1:]
		} else {
			events = nil
		}
		if f := bytes.Fields(line); len(f) > 0 && string(f[0]) == "populated" {
			return len(f) < 2 || string(f[1]) != "0", true
		}
	}
	return false, false
}
