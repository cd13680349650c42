package procfs

import (
	"fmt"
	"time"

	"github.com/jobtrace/jobtrace/internal/kernfmt"
)

// PressureResource names a host-wide pressure file under <proc>/pressure.
type PressureResource int

const (
	PressureCPU    PressureResource = iota // /proc/pressure/cpu
	PressureMemory                         // /proc/pressure/memory
	PressureIO                             // /proc/pressure/io
	PressureIRQ                            // /proc/pressure/irq (kernel 6.1+, CONFIG_IRQ_TIME_ACCOUNTING)
	numPressureResources
)

func (r PressureResource) String() string {
	switch r {
	case PressureCPU:
		return "cpu"
	case PressureMemory:
		return "memory"
	case PressureIO:
		return "io"
	case PressureIRQ:
		return "irq"
	}
	return "PressureResource(?)"
}

// PressureLine is one line of a pressure file: the share of wall time in
// which tasks were stalled on the resource, as percentages averaged over the
// last 10, 60 and 300 seconds, and the total stall time since boot (or since
// the cgroup was created).
type PressureLine struct {
	Avg10, Avg60, Avg300 float64 // percent, 0–100
	Total                time.Duration
}

// Pressure is the content of a PSI file: /proc/pressure/{cpu,memory,io,irq}
// or a cgroup v2 {cpu,memory,io,irq}.pressure file.
//
// Some is time in which at least one task was stalled; Full is time in which
// all non-idle tasks were stalled at once. HasFull is false when the file has
// no "full" line (cpu before kernel 5.13). The irq file has only a "full"
// line, so HasSome is false there. System-wide CPU "full" is always zero.
type Pressure struct {
	Some, Full       PressureLine
	HasSome, HasFull bool
}

// Pressure reads <proc>/pressure/<res> into out. When the kernel has no PSI
// (not built, disabled with psi=0, or too old) the error satisfies
// errors.Is(err, fs.ErrNotExist).
func (f FS) Pressure(res PressureResource, out *Pressure) error {
	if res < 0 || res >= numPressureResources {
		return fmt.Errorf("procfs: unknown pressure resource %d", int(res))
	}
	return f.ReadPressure(f.paths.pressure[res], out)
}

// ReadPressure reads and parses any pressure file, such as a cgroup's
// cpu.pressure, with the FS's reused buffer.
func (f FS) ReadPressure(path string, out *Pressure) error {
	data, err := f.r.readFile(path, oneShow)
	if err != nil {
		return err
	}
	return withPath(ParsePressure(data, out), path)
}

// ParsePressure parses the content of a pressure file into out:
//
//	some avg10=0.12 avg60=0.05 avg300=0.01 total=123456
//	full avg10=0.00 avg60=0.00 avg300=0.00 total=0
//
// total is in microseconds. Unknown keys on a line are ignored so that new
// kernels can add some; a line whose kind is not some or full is an error.
// Errors wrap [ErrParse] and are [*ParseError] values with the line number.
func ParsePressure(data []byte, out *Pressure) error {
	*out = Pressure{}
	for lineNo := 1; len(data) > 0; lineNo++ {
		var line []byte
		line, data = kernfmt.NextLine(data)
		kind, rest := kernfmt.NextField(line)
		var dst *PressureLine
		switch string(kind) {
		case "":
			continue
		case "some":
			dst, out.HasSome = &out.Some, true
		case "full":
			dst, out.HasFull = &out.Full, true
		default:
			return parseErr(lineNo, "line is neither some nor full")
		}
		if err := parsePressureLine(rest, dst, lineNo); err != nil {
			return err
		}
	}
	if !out.HasSome && !out.HasFull {
		return parseErr(1, "no some or full line")
	}
	return nil
}

func parsePressureLine(rest []byte, dst *PressureLine, lineNo int) error {
	const (
		seenAvg10 = 1 << iota
		seenAvg60
		seenAvg300
		seenTotal
		seenAll = seenAvg10 | seenAvg60 | seenAvg300 | seenTotal
	)
	seen := 0
	for {
		var kv []byte
		kv, rest = kernfmt.NextField(rest)
		if len(kv) == 0 {
			break
		}
		eq := -1
		for i, c := range kv {
			if c == '=' {
				eq = i
				break
			}
		}
		if eq < 0 {
			return parseErr(lineNo, "field without '='")
		}
		key, val := kv[:eq], kv[eq+1:]
		var avg *float64
		switch string(key) {
		case "avg10":
			avg, seen = &dst.Avg10, seen|seenAvg10
		case "avg60":
			avg, seen = &dst.Avg60, seen|seenAvg60
		case "avg300":
			avg, seen = &dst.Avg300, seen|seenAvg300
		case "total":
			us, ok := kernfmt.ParseUint(val)
			if !ok || us > uint64(1<<63-1)/uint64(time.Microsecond) {
				return parseErr(lineNo, "bad total")
			}
			dst.Total = time.Duration(us) * time.Microsecond
			seen |= seenTotal
			continue
		default:
			continue
		}
		v, ok := kernfmt.ParseDecimal(val)
		if !ok {
			return parseErr(lineNo, "bad average")
		}
		*avg = v
	}
	if seen != seenAll {
		return parseErr(lineNo, "missing avg10, avg60, avg300 or total")
	}
	return nil
}
