package cgroup

import "bytes"

// parsePressure parses a PSI file (cpu.pressure, memory.pressure,
// io.pressure, or /proc/pressure/*):
//
//	some avg10=0.00 avg60=0.00 avg300=0.00 total=0
//	full avg10=0.00 avg60=0.00 avg300=0.00 total=0
//
// avg* are percentages, total is µs. Kernels before 5.13 have no "full" line
// in cpu.pressure; it is then absent. See
// https://docs.kernel.org/accounting/psi.html.
func parsePressure(path string, data []byte, p *Pressure) error {
	for n := 1; len(data) > 0; n++ {
		var line []byte
		line, data = nextLine(data)
		if len(line) == 0 {
			continue
		}
		kind, rest := nextField(line)
		var l *PressureLine
		switch string(kind) {
		case "some":
			l = &p.Some
		case "full":
			l = &p.Full
		default:
			return parseErr(path, n, "want some or full")
		}
		var got PressureLine
		for len(rest) > 0 {
			var kv []byte
			kv, rest = nextField(rest)
			if len(kv) == 0 {
				continue
			}
			i := bytes.IndexByte(kv, '=')
			if i < 0 {
				return parseErr(path, n, "want key=value")
			}
			k, v := kv[:i], kv[i+1:]
			var ok bool
			switch string(k) {
			case "avg10":
				got.Avg10, ok = parseDecimal(v)
			case "avg60":
				got.Avg60, ok = parseDecimal(v)
			case "avg300":
				got.Avg300, ok = parseDecimal(v)
			case "total":
				got.TotalUsec, ok = parseUint(v)
			default:
				ok = true
			}
			if !ok {
				return parseErr(path, n, "bad value for "+string(k))
			}
		}
		got.Present = true
		*l = got
	}
	return nil
}
