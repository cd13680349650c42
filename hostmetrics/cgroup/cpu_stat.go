package cgroup

// parseCPUStat parses cpu.stat (flat-keyed, µs and counts). Keys this
// package does not use (nice_usec, nr_bursts, core_sched.*) are skipped.
func parseCPUStat(path string, data []byte, s *CPUStat) error {
	return flatKeyed(path, data, func(key []byte, v uint64) {
		switch string(key) {
		case "usage_usec":
			s.UsageUsec = some(v)
		case "user_usec":
			s.UserUsec = some(v)
		case "system_usec":
			s.SystemUsec = some(v)
		case "throttled_usec":
			s.ThrottledUsec = some(v)
		}
	})
}
