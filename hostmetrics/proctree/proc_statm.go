package proctree

// parseStatm parses /proc/<pid>/statm and returns its second field,
// resident, in pages. The fields are described in proc_pid_statm(5):
// size resident shared text lib data dt.
func parseStatm(data []byte) (residentPages uint64, ok bool) {
	f, rest := nextField(data)
	if len(f) == 0 {
		return 0, false
	}
	f, _ = nextField(rest)
	return parseUint(f)
}
