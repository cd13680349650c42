package illumosproc

import "time"

// Offsets in prusage_t, the content of /proc/<pid>/usage, under LP64 (see
// the package doc). From <sys/procfs.h>:
//
//	id_t pr_lwpid;            0    int pr_count;              4
//	timestruc_t pr_tstamp;    8    timestruc_t pr_create;    24
//	timestruc_t pr_term;     40    timestruc_t pr_rtime;     56
//	timestruc_t pr_utime;    72    timestruc_t pr_stime;     88
//	timestruc_t pr_ttime;   104    timestruc_t pr_tftime;   120
//	timestruc_t pr_dftime;  136    timestruc_t pr_kftime;   152
//	timestruc_t pr_ltime;   168    timestruc_t pr_slptime;  184
//	timestruc_t pr_wtime;   200    timestruc_t pr_stoptime; 216
//	timestruc_t filltime[6]; 232
//	ulong_t pr_minf;        328    ulong_t pr_majf;         336
//	ulong_t pr_nswap;       344    ulong_t pr_inblk;        352
//	ulong_t pr_oublk;       360    ulong_t pr_msnd;         368
//	ulong_t pr_mrcv;        376    ulong_t pr_sigs;         384
//	ulong_t pr_vctx;        392    ulong_t pr_ictx;         400
//	ulong_t pr_sysc;        408    ulong_t pr_ioch;         416
//	ulong_t filler[10];     424    (504 bytes in all)
const (
	prusageSize  = 504
	prusageTerm  = 40  // timestruc_t pr_term: termination time, 0 while the process lives
	prusageUTime = 72  // timestruc_t pr_utime: user level CPU time
	prusageSTime = 88  // timestruc_t pr_stime: system call CPU time
	prusageTTime = 104 // timestruc_t pr_ttime: other system trap CPU time
	prusageMinF  = 328 // ulong_t pr_minf: minor page faults
	prusageMajF  = 336 // ulong_t pr_majf: major page faults
	prusageInBlk = 352 // ulong_t pr_inblk: input blocks
	prusageOuBlk = 360 // ulong_t pr_oublk: output blocks
	prusageIOCh  = 416 // ulong_t pr_ioch: chars read and written
)

// Prusage is what is read of /proc/<pid>/usage: the process's own usage,
// summed over its lwps, live and exited. For a zombie it includes the
// usage of the children it had reaped (see the package doc).
type Prusage struct {
	// Exited is set when pr_term is not zero: the process has exited.
	// The kernel sets pr_term before it folds the reaped children's usage
	// into the process's own, under the same lock as the read.
	Exited bool
	// User is pr_utime.
	User time.Duration
	// System is pr_stime plus pr_ttime: time in system calls and in other
	// traps (page faults among them), which is what the kernel counts as
	// system time in psinfo's pr_time and in getrusage.
	System time.Duration
	// MinorFaults and MajorFaults are pr_minf and pr_majf.
	MinorFaults, MajorFaults uint64
	// InBlocks and OutBlocks are pr_inblk and pr_oublk: block IO
	// operations, one per buffer the file system sent to a device (UFS,
	// PCFS, NFS count them; ZFS does not). They are counts, not bytes.
	InBlocks, OutBlocks uint64
	// IOChars is pr_ioch: bytes through read and write calls, pipes,
	// sockets and cached files included.
	IOChars uint64
}

// parsePrusage decodes a prusage_t.
func parsePrusage(data []byte, out *Prusage) error {
	if len(data) < prusageSize {
		return sizeErr("usage", len(data), prusageSize)
	}
	d := decoder{b: data}
	*out = Prusage{
		Exited:      d.uint64(prusageTerm) != 0 || d.uint64(prusageTerm+8) != 0,
		User:        d.duration(prusageUTime, "pr_utime"),
		System:      d.duration(prusageSTime, "pr_stime") + d.duration(prusageTTime, "pr_ttime"),
		MinorFaults: d.uint64(prusageMinF),
		MajorFaults: d.uint64(prusageMajF),
		InBlocks:    d.uint64(prusageInBlk),
		OutBlocks:   d.uint64(prusageOuBlk),
		IOChars:     d.uint64(prusageIOCh),
	}
	return d.err("usage")
}
