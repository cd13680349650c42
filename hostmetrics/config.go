package hostmetrics

// DefaultProcRoot and DefaultSysRoot are where /proc and /sys are
// mounted, unless the host's are mounted elsewhere (a container with
// /host/proc).
const (
	DefaultProcRoot = "/proc"
	DefaultSysRoot  = "/sys"
)

// Config says where a Source reads.
type Config struct {
	// ProcRoot and SysRoot are where /proc and /sys are mounted: "" for
	// DefaultProcRoot and DefaultSysRoot.
	ProcRoot, SysRoot string
	// CgroupDir is the cgroup v2 directory to read, "" for none. CgroupOwn
	// says it was made for the job alone.
	CgroupDir string
	CgroupOwn bool
	// WorkDir is the job's working directory, whose file system's usage is
	// sampled; "" for none.
	WorkDir string
	// Subreaper says the agent is a child subreaper, so the job's orphans
	// are its children: they are walked as part of the job's tree and
	// their zombies are reaped by the source.
	Subreaper bool
	// NotJob, when set, tells children of the agent that are not the
	// job's (its guard process) from the job's orphans: they are not walked
	// as part of the job's tree nor reaped by the source.
	NotJob func(pid int) bool
	// Orphan, when set, is told at each walk of the tree about every
	// orphan of the job re-parented to the agent (a subreaper) that is
	// still running: its pid and start time (clock ticks after boot).
	// Linux only.
	Orphan func(pid int, start uint64)
}

func (c *Config) defaults() {
	if c.ProcRoot == "" {
		c.ProcRoot = DefaultProcRoot
	}
	if c.SysRoot == "" {
		c.SysRoot = DefaultSysRoot
	}
}
