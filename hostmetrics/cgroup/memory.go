package cgroup

// parseMemoryEvents parses memory.events (flat-keyed counts).
func parseMemoryEvents(path string, data []byte, s *MemoryEvents) error {
	return flatKeyed(path, data, func(key []byte, v uint64) {
		switch string(key) {
		case "oom":
			s.OOM = some(v)
		case "oom_kill":
			s.OOMKill = some(v)
		}
	})
}
