package procfs

import "github.com/jobtrace/jobtrace/internal/kernfmt"

// Vmstat holds the paging counters of /proc/vmstat that jobtrace uses,
// counted since boot.
type Vmstat struct {
	PgFault    uint64 // "pgfault": all page faults, minor and major
	PgMajFault uint64 // "pgmajfault": faults that needed IO
}

// MinorFaults returns PgFault − PgMajFault: pgfault counts both kinds.
func (v *Vmstat) MinorFaults() uint64 { return sub(v.PgFault, v.PgMajFault) }

// Vmstat reads <proc>/vmstat into out.
func (f FS) Vmstat(out *Vmstat) error {
	data, err := f.r.readFile(f.paths.vmstat, records)
	if err != nil {
		return err
	}
	return withPath(parseVmstat(data, out), f.paths.vmstat)
}

func parseVmstat(data []byte, out *Vmstat) error {
	*out = Vmstat{}
	seen := 0
	for lineNo := 1; len(data) > 0; lineNo++ {
		var line []byte
		line, data = kernfmt.NextLine(data)
		key, rest := kernfmt.NextField(line)
		var dst *uint64
		switch string(key) {
		case "pgfault":
			dst = &out.PgFault
		case "pgmajfault":
			dst = &out.PgMajFault
		default:
			continue
		}
		v, _ := kernfmt.NextField(rest)
		n, ok := kernfmt.ParseUint(v)
		if !ok {
			return parseErr(lineNo, "bad value")
		}
		*dst = n
		if seen++; seen == 2 {
			break // the rest of the file's 170 or so lines
		}
	}
	if seen == 0 {
		return parseErr(1, "no pgfault or pgmajfault line")
	}
	return nil
}
