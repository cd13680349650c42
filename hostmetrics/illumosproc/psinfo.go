package illumosproc

import (
	"bytes"
	"time"
)

// Offsets in psinfo_t, the content of /proc/<pid>/psinfo, under LP64 (see
// the package doc). From <sys/procfs.h>:
//
//	int pr_flag;             0    int pr_nlwp;            4
//	pid_t pr_pid;            8    pid_t pr_ppid;         12
//	pid_t pr_pgid;          16    pid_t pr_sid;          20
//	uid_t pr_uid, pr_euid;  24    gid_t pr_gid, pr_egid; 32
//	uintptr_t pr_addr;      40    size_t pr_size;        48
//	size_t pr_rssize;       56    size_t pr_pad1;        64
//	dev_t pr_ttydev;        72    ushort_t pr_pctcpu;    80
//	ushort_t pr_pctmem;     82    (4 bytes of padding)
//	timestruc_t pr_start;   88    timestruc_t pr_time;  104
//	timestruc_t pr_ctime;  120    char pr_fname[16];    136
//	char pr_psargs[80];    152    int pr_wstat;         232
//	int pr_argc;           236    uintptr_t pr_argv;    240
//	uintptr_t pr_envp;     248    char pr_dmodel;       256
//	char pr_pad2[3];       257    taskid_t pr_taskid;   260
//	projid_t pr_projid;    264    int pr_nzomb;         268
//	poolid_t pr_poolid;    272    zoneid_t pr_zoneid;   276
//	id_t pr_contract;      280    int pr_filler[1];     284
//	lwpsinfo_t pr_lwp;     288    (128 bytes: 416 in all)
//
// and in lwpsinfo_t, the representative lwp:
//
//	int pr_flag;             0    id_t pr_lwpid;         4
//	uintptr_t pr_addr;       8    uintptr_t pr_wchan;   16
//	char pr_stype;          24    char pr_state;        25
//	char pr_sname;          26    ...
const (
	psinfoSize   = 416
	psinfoNLWP   = 4   // int pr_nlwp: active lwps; 0 for a zombie
	psinfoPID    = 8   // pid_t pr_pid
	psinfoPPID   = 12  // pid_t pr_ppid
	psinfoRSSize = 56  // size_t pr_rssize: resident set size, KiB
	psinfoStart  = 88  // timestruc_t pr_start: start time, since the epoch
	psinfoTime   = 104 // timestruc_t pr_time: own CPU, user and system
	psinfoCTime  = 120 // timestruc_t pr_ctime: reaped children's CPU
	psinfoFname  = 136 // char pr_fname[PRFNSZ]: name of the executed file
	psinfoLWP    = 288 // lwpsinfo_t pr_lwp: the representative lwp

	prfnsz        = 16 // PRFNSZ
	lwpsinfoSname = 26 // char pr_sname in lwpsinfo_t: state letter
)

// Psinfo is what is read of /proc/<pid>/psinfo.
type Psinfo struct {
	PID, PPID int
	// LWPs is pr_nlwp, the process's active lwps (its threads); 0 for a
	// zombie.
	LWPs int
	// RSS is pr_rssize, in bytes (the file counts KiB); 0 for a zombie.
	RSS uint64
	// Start is pr_start, when the process started; zero for a zombie.
	// With the pid it names a process across pid reuse.
	Start time.Time
	// Time is pr_time, the process's own CPU time, user and system (traps
	// included) together.
	Time time.Duration
	// ChildTime is pr_ctime, the CPU time of the children the process has
	// reaped, user and system together, counted by the kernel in clock
	// ticks (see Pstatus for the two apart).
	ChildTime time.Duration
	// Fname is pr_fname: the name of the executed file, at most 15 bytes,
	// padded with NULs.
	Fname [prfnsz]byte
	// State is pr_sname of the representative lwp: O (on a CPU), R
	// (runnable), S (sleeping), T (stopped), W (waiting for CPU caps), Z
	// (zombie).
	State byte
}

// Zombie tells whether the process has exited and waits to be reaped.
func (p *Psinfo) Zombie() bool { return p.State == 'Z' }

// Name returns Fname without its padding.
func (p *Psinfo) Name() string {
	n := p.Fname[:]
	if i := bytes.IndexByte(n, 0); i >= 0 {
		n = n[:i]
	}
	return string(n)
}

// parsePsinfo decodes a psinfo_t.
func parsePsinfo(data []byte, out *Psinfo) error {
	if len(data) < psinfoSize {
		return sizeErr("psinfo", len(data), psinfoSize)
	}
	d := decoder{b: data}
	*out = Psinfo{
		PID:       int(d.int32(psinfoPID)),
		PPID:      int(d.int32(psinfoPPID)),
		LWPs:      int(d.int32(psinfoNLWP)),
		Start:     d.instant(psinfoStart, "pr_start"),
		Time:      d.duration(psinfoTime, "pr_time"),
		ChildTime: d.duration(psinfoCTime, "pr_ctime"),
		State:     data[psinfoLWP+lwpsinfoSname],
	}
	copy(out.Fname[:], data[psinfoFname:psinfoFname+prfnsz])
	rss := d.uint64(psinfoRSSize)
	if rss > 1<<54 { // beyond any machine: a corrupt field, not memory
		d.fail("pr_rssize")
	}
	out.RSS = rss * 1024
	if out.PID < 0 {
		d.fail("pr_pid")
	}
	if out.PPID < 0 {
		d.fail("pr_ppid")
	}
	if out.LWPs < 0 {
		d.fail("pr_nlwp")
	}
	return d.err("psinfo")
}
