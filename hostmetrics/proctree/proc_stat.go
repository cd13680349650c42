package proctree

import (
	"bytes"

	"github.com/jobtrace/jobtrace/hostmetrics/internal/kernfmt"
)

// procStat holds the fields used from /proc/<pid>/stat. The format is
// described in proc_pid_stat(5) and
// https://docs.kernel.org/filesystems/proc.html (table 1-4).
//
// rss (field 24) is not used: on the kernels this runs on it disagrees with
// statm and VmRSS, so RSS comes from /proc/<pid>/statm.
type procStat struct {
	comm      []byte // field 2, without the parentheses; aliases the input
	state     byte   // field 3
	ppid      int    // field 4
	utime     uint64 // field 14, clock ticks
	stime     uint64 // field 15, clock ticks
	cutime    uint64 // field 16, clock ticks, of waited-for children
	cstime    uint64 // field 17, clock ticks, of waited-for children
	threads   int    // field 20
	starttime uint64 // field 22, clock ticks after boot
}

// parseStat parses the content of /proc/<pid>/stat.
//
// The command name (field 2) is in parentheses and may itself hold spaces
// and parentheses, as in "(my (weird) prog)": it runs from the first '(' to
// the LAST ')' of the line, and the numeric fields follow that last ')'.
func parseStat(data []byte) (procStat, bool) {
	var s procStat
	open := bytes.IndexByte(data, '(')
	end := bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return s, false
	}
	s.comm = data[open+1 : end]
	rest := data[end+1:]
	// Field numbers as in proc_pid_stat(5); the state is field 3.
	var ok bool
	for n := 3; n <= 22; n++ {
		var f []byte
		f, rest = kernfmt.NextField(rest)
		if len(f) == 0 {
			return s, false
		}
		switch n {
		case 3:
			if len(f) != 1 {
				return s, false
			}
			s.state, ok = f[0], true
		case 4:
			var v int64
			v, ok = kernfmt.ParseInt(f)
			s.ppid = int(v)
		case 14:
			s.utime, ok = kernfmt.ParseUint(f)
		case 15:
			s.stime, ok = kernfmt.ParseUint(f)
		case 16:
			s.cutime, ok = parseTicks(f)
		case 17:
			s.cstime, ok = parseTicks(f)
		case 20:
			var v int64
			v, ok = kernfmt.ParseInt(f)
			s.threads = int(v)
		case 22:
			s.starttime, ok = kernfmt.ParseUint(f)
		default:
			continue
		}
		if !ok {
			return s, false
		}
	}
	return s, true
}

// parseTicks parses cutime and cstime, which the kernel prints as signed
// longs although they are never negative.
func parseTicks(f []byte) (uint64, bool) {
	v, ok := kernfmt.ParseInt(f)
	if v < 0 {
		v = 0
	}
	return uint64(v), ok
}
