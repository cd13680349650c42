package illumosproc

import "time"

// Offsets in pstatus_t, the content of /proc/<pid>/status, under LP64 (see
// the package doc). Only its first fields are read, which come before any
// field whose size depends on the architecture (the registers of the
// representative lwp, at the end). From <sys/procfs.h>:
//
//	int pr_flags;             0    int pr_nlwp;               4
//	pid_t pr_pid;             8    pid_t pr_ppid;            12
//	pid_t pr_pgid;           16    pid_t pr_sid;             20
//	id_t pr_aslwpid;         24    id_t pr_agentid;          28
//	sigset_t pr_sigpend;     32    (four uint_t: 16 bytes)
//	uintptr_t pr_brkbase;    48    size_t pr_brksize;        56
//	uintptr_t pr_stkbase;    64    size_t pr_stksize;        72
//	timestruc_t pr_utime;    80    timestruc_t pr_stime;     96
//	timestruc_t pr_cutime;  112    timestruc_t pr_cstime;   128
//	sigset_t pr_sigtrace;   144    ...
//
// The kernel copies as much of the structure as the read asks for, from
// the read's offset, so a read of pstatusPrefix bytes is enough.
const (
	pstatusPrefix = 144 // up to the end of pr_cstime
	pstatusPID    = 8   // pid_t pr_pid
	pstatusUTime  = 80  // timestruc_t pr_utime
	pstatusSTime  = 96  // timestruc_t pr_stime
	pstatusCUTime = 112 // timestruc_t pr_cutime: reaped children's user time
	pstatusCSTime = 128 // timestruc_t pr_cstime: reaped children's system time
)

// Pstatus is what is read of /proc/<pid>/status.
type Pstatus struct {
	PID int
	// User and System are pr_utime and pr_stime, the process's own CPU
	// time (system time includes traps).
	User, System time.Duration
	// ChildUser and ChildSystem are pr_cutime and pr_cstime, the CPU time
	// of the children the process has reaped, counted in clock ticks: the
	// two parts of psinfo's pr_ctime.
	ChildUser, ChildSystem time.Duration
}

// parsePstatus decodes the first pstatusPrefix bytes of a pstatus_t.
func parsePstatus(data []byte, out *Pstatus) error {
	if len(data) < pstatusPrefix {
		return sizeErr("status", len(data), pstatusPrefix)
	}
	d := decoder{b: data}
	*out = Pstatus{
		PID:         int(d.int32(pstatusPID)),
		User:        d.duration(pstatusUTime, "pr_utime"),
		System:      d.duration(pstatusSTime, "pr_stime"),
		ChildUser:   d.duration(pstatusCUTime, "pr_cutime"),
		ChildSystem: d.duration(pstatusCSTime, "pr_cstime"),
	}
	return d.err("status")
}
