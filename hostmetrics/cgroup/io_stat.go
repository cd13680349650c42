package cgroup

import (
	"bytes"

	"github.com/jobtrace/jobtrace/internal/kernfmt"
)

// parseIOStat parses io.stat, a nested-keyed file with one line per device:
//
//	8:16 rbytes=1459200 wbytes=314773504 rios=192 wios=353 dbytes=0 dios=0
//
// and sums the byte counts over the devices. A device line may
// lack keys (the kernel omits the d* keys on older versions); unknown keys are
// skipped.
func parseIOStat(path string, data []byte, s *IOStat) error {
	var r, w uint64
	for n := 1; len(data) > 0; n++ {
		var line []byte
		line, data = kernfmt.NextLine(data)
		if len(line) == 0 {
			continue
		}
		dev, rest := kernfmt.NextField(line)
		if bytes.IndexByte(dev, ':') < 1 {
			return parseErr(path, n, "want MAJ:MIN")
		}
		for len(rest) > 0 {
			var kv []byte
			kv, rest = kernfmt.NextField(rest)
			if len(kv) == 0 {
				continue
			}
			i := bytes.IndexByte(kv, '=')
			if i < 0 {
				return parseErr(path, n, "want key=value")
			}
			v, ok := kernfmt.ParseUint(kv[i+1:])
			if !ok {
				return parseErr(path, n, "value is not a number")
			}
			switch string(kv[:i]) {
			case "rbytes":
				r += v
			case "wbytes":
				w += v
			}
		}
	}
	*s = IOStat{ReadBytes: some(r), WriteBytes: some(w)}
	return nil
}
