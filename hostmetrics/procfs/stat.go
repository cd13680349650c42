package procfs

import (
	"bytes"

	"github.com/jobtrace/jobtrace/internal/kernfmt"
)

// UserHZ is the unit of the CPU times in /proc/stat, and of the clock-tick
// fields of /proc/<pid>/stat: ticks of 1/USER_HZ
// second. The kernel converts its internal clock (CONFIG_HZ, which varies
// between 100 and 1000 by build) to USER_HZ before printing, precisely so that
// user space sees one fixed unit. USER_HZ is 100 on every architecture Go
// supports (only alpha and ia64 differed, at 1024). glibc's
// sysconf(_SC_CLK_TCK) reports the same number from the AT_CLKTCK auxiliary
// vector entry; reading that from Go would need cgo or the auxv, for a value
// that cannot change, so it is a constant here.
const UserHZ = 100

// CPUTimes is time spent by CPUs in each mode, in seconds. Guest time is
// already counted in User and Nice by the kernel, so it is not listed apart.
type CPUTimes struct {
	User, Nice, System, Idle, IOWait, IRQ, SoftIRQ, Steal float64
}

// CPUStat is one "cpuN" line of /proc/stat.
type CPUStat struct {
	CPU int // N; offline CPUs have no line, so numbers can have gaps
	CPUTimes
}

// Stat holds the host-wide figures of /proc/stat.
type Stat struct {
	Total CPUTimes  // the "cpu" line: all CPUs together
	CPUs  []CPUStat // the "cpuN" lines, in file order; reused between reads
}

// Stat reads <proc>/stat into out, reusing out.CPUs.
func (f FS) Stat(out *Stat) error {
	data, err := f.r.readFile(f.paths.stat, oneShow)
	if err != nil {
		return err
	}
	return withPath(parseStat(data, out), f.paths.stat)
}

var cpuPrefix = []byte("cpu")

func parseStat(data []byte, out *Stat) error {
	cpus := out.CPUs[:0]
	*out = Stat{}
	sawTotal := false
	for lineNo := 1; len(data) > 0; lineNo++ {
		var line []byte
		line, data = kernfmt.NextLine(data)
		key, rest := kernfmt.NextField(line)
		if len(key) == 0 {
			continue
		}
		if bytes.HasPrefix(key, cpuPrefix) {
			var times CPUTimes
			if err := parseCPUTimes(rest, &times, lineNo); err != nil {
				return err
			}
			if len(key) == len(cpuPrefix) {
				out.Total = times
				sawTotal = true
				continue
			}
			id, ok := kernfmt.ParseUint(key[len(cpuPrefix):])
			if !ok || id > 1<<31 {
				return parseErr(lineNo, "bad CPU name")
			}
			cpus = append(cpus, CPUStat{CPU: int(id), CPUTimes: times})
			continue
		}
		if sawTotal {
			// The kernel writes the cpu lines first; what follows
			// (intr, a line of thousands of numbers, ctxt, btime,
			// processes, procs_running, procs_blocked, softirq) is not
			// read.
			break
		}
	}
	out.CPUs = cpus
	if !sawTotal {
		return parseErr(1, "no cpu line")
	}
	return nil
}

// parseCPUTimes reads the tick counts after a "cpu" key. Kernels before
// 2.6.11 print fewer columns; at least user, nice, system and idle are needed.
func parseCPUTimes(rest []byte, t *CPUTimes, lineNo int) error {
	dst := [...]*float64{&t.User, &t.Nice, &t.System, &t.Idle, &t.IOWait, &t.IRQ, &t.SoftIRQ, &t.Steal}
	i := 0
	for ; i < len(dst); i++ {
		var v []byte
		v, rest = kernfmt.NextField(rest)
		if len(v) == 0 {
			break
		}
		n, ok := kernfmt.ParseUint(v)
		if !ok {
			return parseErr(lineNo, "bad CPU time")
		}
		*dst[i] = float64(n) / UserHZ
	}
	if i < 4 {
		return parseErr(lineNo, "too few CPU times")
	}
	return nil
}
