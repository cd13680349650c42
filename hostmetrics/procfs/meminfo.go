package procfs

import (
	"bytes"

	"github.com/jobtrace/jobtrace/internal/kernfmt"
)

// Meminfo holds the figures of /proc/meminfo that jobtrace uses, in bytes.
type Meminfo struct {
	MemTotal, MemFree, MemAvailable uint64
	Buffers, Cached                 uint64
	SwapTotal, SwapFree             uint64

	// HasMemAvailable is false on kernels before 3.14, which do not print
	// MemAvailable; Used then falls back to the older estimate.
	HasMemAvailable bool
}

// Used returns memory in use: MemTotal − MemAvailable, the memory that
// cannot be given to new work without swapping. Without MemAvailable it is
// MemTotal − MemFree − Buffers − Cached, what free(1) printed before 3.14.
func (m *Meminfo) Used() uint64 {
	if m.HasMemAvailable {
		return sub(m.MemTotal, m.MemAvailable)
	}
	return sub(m.MemTotal, m.MemFree+m.Buffers+m.Cached)
}

// SwapUsed returns SwapTotal − SwapFree.
func (m *Meminfo) SwapUsed() uint64 { return sub(m.SwapTotal, m.SwapFree) }

func sub(a, b uint64) uint64 {
	if b > a {
		return 0
	}
	return a - b
}

// Meminfo reads <proc>/meminfo into out.
func (f FS) Meminfo(out *Meminfo) error {
	data, err := f.r.readFile(f.paths.meminfo, oneShow)
	if err != nil {
		return err
	}
	return withPath(parseMeminfo(data, out), f.paths.meminfo)
}

var kB = []byte("kB")

func parseMeminfo(data []byte, out *Meminfo) error {
	*out = Meminfo{}
	sawTotal := false
	for lineNo := 1; len(data) > 0; lineNo++ {
		var line []byte
		line, data = kernfmt.NextLine(data)
		key, rest := kernfmt.NextField(line)
		if len(key) == 0 {
			continue
		}
		if key[len(key)-1] != ':' {
			return parseErr(lineNo, "key without ':'")
		}
		var dst *uint64
		switch string(key[:len(key)-1]) {
		case "MemTotal":
			dst, sawTotal = &out.MemTotal, true
		case "MemFree":
			dst = &out.MemFree
		case "MemAvailable":
			dst, out.HasMemAvailable = &out.MemAvailable, true
		case "Buffers":
			dst = &out.Buffers
		case "Cached":
			dst = &out.Cached
		case "SwapTotal":
			dst = &out.SwapTotal
		case "SwapFree":
			dst = &out.SwapFree
		default:
			continue
		}
		v, rest := kernfmt.NextField(rest)
		n, ok := kernfmt.ParseUint(v)
		if !ok {
			return parseErr(lineNo, "bad value")
		}
		switch unit, _ := kernfmt.NextField(rest); {
		case len(unit) == 0:
		case bytes.Equal(unit, kB):
			// The kernel prints "kB" but means KiB (it shifts pages by PAGE_SHIFT-10).
			if n > (1<<64-1)>>10 {
				return parseErr(lineNo, "value overflows")
			}
			n <<= 10
		default:
			return parseErr(lineNo, "unknown unit")
		}
		*dst = n
	}
	if !sawTotal {
		return parseErr(1, "no MemTotal line")
	}
	return nil
}
