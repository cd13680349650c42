// Package procstat parses /proc/<pid>/stat: the one parser of it, for the
// process tree's sampler (hostmetrics/proctree) and for the guard
// (supervise/guard), which imports only the standard library and packages
// that import only it.
package procstat

import (
	"bytes"

	"github.com/jobtrace/jobtrace/internal/kernfmt"
)

// Stat holds the fields of /proc/<pid>/stat that jobtrace uses. The format
// is described in proc_pid_stat(5) and
// https://docs.kernel.org/filesystems/proc.html (table 1-4); the times are
// in clock ticks (procfs.UserHZ a second).
//
// rss (field 24) is not used: on the kernels this runs on it disagrees
// with statm and VmRSS, so a process's RSS comes from /proc/<pid>/statm.
type Stat struct {
	PID     int    // field 1
	Comm    []byte // field 2, without the parentheses; aliases the input
	State   byte   // field 3: R, S, D, Z, T, ...
	PPID    int    // field 4
	PGRP    int    // field 5, the process group
	Session int    // field 6
	UTime   uint64 // field 14
	STime   uint64 // field 15
	// CUTime and CSTime (fields 16 and 17) are of the children the
	// process waited for.
	CUTime, CSTime uint64
	Threads        int    // field 20
	StartTime      uint64 // field 22, after boot
}

// Exited reports whether the process has exited: a zombie (Z) or dead (X).
func (s *Stat) Exited() bool { return s.State == 'Z' || s.State == 'X' }

// Parse parses the content of /proc/<pid>/stat.
//
// The command name (field 2) is in parentheses and may itself hold spaces
// and parentheses, as in "(my (weird) prog)": it runs from the first '(' to
// the LAST ')' of the line, and the numeric fields follow that last ')'.
func Parse(data []byte) (Stat, bool) {
	var s Stat
	open := bytes.IndexByte(data, '(')
	end := bytes.LastIndexByte(data, ')')
	if open < 0 || end < open {
		return s, false
	}
	f, rest := kernfmt.NextField(data[:open])
	pid, ok := kernfmt.ParseInt(f)
	if !ok || pid <= 0 || pid >= 1<<31 {
		return s, false
	}
	if f, _ := kernfmt.NextField(rest); len(f) != 0 {
		return s, false
	}
	s.PID = int(pid)
	s.Comm = data[open+1 : end]
	rest = data[end+1:]
	// Field numbers as in proc_pid_stat(5); the state is field 3.
	for n := 3; n <= 22; n++ {
		f, rest = kernfmt.NextField(rest)
		if len(f) == 0 {
			return s, false
		}
		switch n {
		case 3:
			if len(f) != 1 {
				return s, false
			}
			s.State, ok = f[0], true
		case 4:
			s.PPID, ok = parseInt(f)
		case 5:
			s.PGRP, ok = parseInt(f)
		case 6:
			s.Session, ok = parseInt(f)
		case 14:
			s.UTime, ok = kernfmt.ParseUint(f)
		case 15:
			s.STime, ok = kernfmt.ParseUint(f)
		case 16:
			s.CUTime, ok = parseTicks(f)
		case 17:
			s.CSTime, ok = parseTicks(f)
		case 20:
			s.Threads, ok = parseInt(f)
		case 22:
			s.StartTime, ok = kernfmt.ParseUint(f)
		default:
			continue
		}
		if !ok {
			return s, false
		}
	}
	return s, true
}

func parseInt(f []byte) (int, bool) {
	v, ok := kernfmt.ParseInt(f)
	return int(v), ok && v >= -1<<31 && v < 1<<31
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
