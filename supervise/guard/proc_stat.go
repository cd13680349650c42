package guard

import (
	"bytes"

	"github.com/jobtrace/jobtrace/internal/procstat"
)

// procStat holds the fields of /proc/<pid>/stat the guard uses (see
// proc_pid_stat(5)).
type procStat struct {
	pid    int
	ppid   int    // field 4
	pgrp   int    // field 5
	sid    int    // field 6
	start  uint64 // field 22, clock ticks after boot
	zombie bool   // field 3 is Z or X: it has exited
}

// parseStat parses /proc/<pid>/stat (package procstat).
func parseStat(data []byte) (procStat, bool) {
	st, ok := procstat.Parse(data)
	return procStat{pid: st.PID, ppid: st.PPID, pgrp: st.PGRP, sid: st.Session, start: st.StartTime, zombie: st.Exited()}, ok
}

// environHas reports whether the NUL-separated environment env holds one
// of the entries in want exactly.
func environHas(env []byte, want []string) bool {
	for len(env) > 0 {
		kv := env
		if i := bytes.IndexByte(env, 0); i >= 0 {
			kv, env = env[:i], env[i+1:]
		} else {
			env = nil
		}
		for _, w := range want {
			if string(kv) == w {
				return true
			}
		}
	}
	return false
}

// members returns the job's processes among procs: those in the job's
// process group or session, the orphans jobtrace knew (same pid and start
// time), those whose environment holds one of env's entries (read with
// environ), and every descendant of these; only
// processes started at or after since count, and never the guard itself.
func members(procs []procStat, t *target, since uint64, self int, environ func(pid int) []byte) map[int]procStat {
	children := map[int][]procStat{}
	out := map[int]procStat{}
	var queue []procStat
	for _, p := range procs {
		if p.start < since || p.pid == self {
			continue
		}
		children[p.ppid] = append(children[p.ppid], p)
		if st, ok := t.orphans[p.pid]; ok && st == p.start ||
			t.job > 0 && (p.pid == t.job || p.pgrp == t.job || p.sid == t.job) ||
			len(t.env) > 0 && environHas(environ(p.pid), t.env) {
			out[p.pid] = p
			queue = append(queue, p)
		}
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p.pid] {
			if _, ok := out[c.pid]; !ok {
				out[c.pid] = c
				queue = append(queue, c)
			}
		}
	}
	return out
}
