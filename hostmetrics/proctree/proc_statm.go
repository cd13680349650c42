package proctree

import "github.com/jobtrace/jobtrace/internal/kernfmt"

// parseStatm parses /proc/<pid>/statm and returns its second field,
// resident, in pages. The fields are described in proc_pid_statm(5):
// size resident shared text lib data dt.
func parseStatm(data []byte) (residentPages uint64, ok bool) {
	f, rest := kernfmt.NextField(data)
	if len(f) == 0 {
		return 0, false
	}
	f, _ = kernfmt.NextField(rest)
	return kernfmt.ParseUint(f)
}
