// Package hostmetrics measures what a job costs the machine it runs on.
//
// Its readers are native and cheap enough to sample at every phase
// boundary:
//
//   - procfs: host-wide figures from /proc (CPU time per mode, memory and
//     swap, paging, disks, network, load, pressure stall information);
//   - proctree: the job's process tree, found through
//     /proc/<pid>/task/<tid>/children (or, for a job in a cgroup of its
//     own, the cgroup's cgroup.procs), with CPU, resident memory and IO per
//     process;
//   - cgroup: the job's cgroup v2 (CPU, memory, IO, pids, pressure in a
//     handful of files whatever the tree's size), on pure cgroup v2 hosts and
//     on hybrid ones whose unified hierarchy has no controllers.
//
// Every reader takes the root of the files it reads (/proc, /sys,
// /sys/fs/cgroup), so the same code reads test fixtures or a host's files
// mounted into a container. A file that does not exist is "absent", never
// zero.
//
// This package puts them together: a Source reads one Sample (the host, the
// job's tree, its cgroup), and a Sampler takes samples every interval and at
// phase boundaries and hands them to sinks (usage windows, metrics, the CSV,
// the summary). On Linux the Source is native; on darwin, windows and
// freebsd it is built on gopsutil and says, in Source.Unavailable, which
// figures that system cannot give. On illumos it reads kstats (package
// kstat, no cgo) and the binary files of illumos /proc.
//
// A Sample is made of this package's own types on every system; what each
// source reads is converted into them in a file named for it
// (linux_procfs.go and illumos_kstat.go, untagged, so that the conversions
// are tested everywhere; gopsutil_convert_others.go, built where gopsutil is
// the source, and on Linux with the build tag gopsutil for the tests that
// check it against the native source, so that the Linux and illumos
// binaries link no gopsutil), and the per-OS files hold only the reading. The
// sources share the rules that are not about reading: one walkPacer spaces
// out the walks of a costly tree, and one treeTotals turns a walk into Tree
// figures that never go down (monotonic.Held), and hostDiskIO and
// hostNetIO sum the disks and interfaces of every source by the same rule
// (the disks by Disk.InHostTotal, by which the metrics take theirs too).
//
// The sinks read a Sample by its own rules rather than their own copies: a
// Job says where each figure of the job is read from (CPUFrom, MemoryFrom,
// IOFrom: its own cgroup, else its tree) and Sample.ReadAt when;
// BusyShare is the machine's CPU use between two readings and CPUShare the
// job's, by the rule of package monotonic, in every sink; the spans a
// sample's share of the machine's is taken over are usage.HostCPU's, and
// those of the job's usage.JobCPU's.
package hostmetrics
