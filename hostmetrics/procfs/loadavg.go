package procfs

import "github.com/jobtrace/jobtrace/internal/kernfmt"

// Loadavg is the content of /proc/loadavg.
type Loadavg struct {
	Load1, Load5, Load15 float64 // runnable and uninterruptible tasks, averaged over 1, 5, 15 minutes
	Running              uint64  // runnable tasks (threads) now
	Total                uint64  // tasks (threads) that exist now
	LastPID              uint64  // the most recently assigned pid
}

// Loadavg reads <proc>/loadavg into out.
func (f FS) Loadavg(out *Loadavg) error {
	data, err := f.r.readFile(f.paths.loadavg, oneShow)
	if err != nil {
		return err
	}
	return withPath(parseLoadavg(data, out), f.paths.loadavg)
}

// parseLoadavg parses the single line "0.00 0.33 1.07 1/84 25900".
func parseLoadavg(data []byte, out *Loadavg) error {
	*out = Loadavg{}
	line, _ := kernfmt.NextLine(data)
	var ok bool
	for _, dst := range [...]*float64{&out.Load1, &out.Load5, &out.Load15} {
		var v []byte
		v, line = kernfmt.NextField(line)
		if *dst, ok = kernfmt.ParseDecimal(v); !ok {
			return parseErr(1, "bad load average")
		}
	}
	tasks, line := kernfmt.NextField(line)
	slash := -1
	for i, c := range tasks {
		if c == '/' {
			slash = i
			break
		}
	}
	if slash < 0 {
		return parseErr(1, "bad running/total tasks")
	}
	if out.Running, ok = kernfmt.ParseUint(tasks[:slash]); !ok {
		return parseErr(1, "bad running tasks")
	}
	if out.Total, ok = kernfmt.ParseUint(tasks[slash+1:]); !ok {
		return parseErr(1, "bad total tasks")
	}
	pid, _ := kernfmt.NextField(line)
	if out.LastPID, ok = kernfmt.ParseUint(pid); !ok {
		return parseErr(1, "bad last pid")
	}
	return nil
}
