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
	var seen uint8 // a bit per counter read
	for lineNo := 1; len(data) > 0; lineNo++ {
		var line []byte
		line, data = kernfmt.NextLine(data)
		key, rest := kernfmt.NextField(line)
		var dst *uint64
		var bit uint8
		switch string(key) {
		case "pgfault":
			dst, bit = &out.PgFault, 1
		case "pgmajfault":
			dst, bit = &out.PgMajFault, 2
		default:
			continue
		}
		v, _ := kernfmt.NextField(rest)
		n, ok := kernfmt.ParseUint(v)
		if !ok {
			return parseErr(lineNo, "bad value")
		}
		*dst = n
		if seen |= bit; seen == 3 {
			break // the rest of the file's 170 or so lines
		}
	}
	if seen == 0 {
		return parseErr(1, "no pgfault or pgmajfault line")
	}
	return nil
}
