// Package cgroup reads the cgroup v2 statistics of a CI job and, where the
// host permits it, makes a cgroup for the job, so that the CPU, memory, IO and
// pressure of the job's whole process tree come from a dozen small files,
// whatever the number of processes.
//
// # Finding the hierarchy
//
// FindMount reads /proc/self/mountinfo for the cgroup2 mount and SelfPath
// reads /proc/self/cgroup for the "0::/path" entry; FindSelf and SelfDir
// combine them, and look first at the usual mount points, which costs less
// than mountinfo, taking one only when it certainly shows the process's
// cgroup (its root told by statmount(2), or the cgroup's directory holding
// the process). They take the
// proc root as an argument, so a fixture tree or /host/proc can be read as
// well. Two shapes of host are common:
//
//   - Pure cgroup v2 (systemd hosts since about 2021, most CI runners):
//     /sys/fs/cgroup is the cgroup2 mount and has controllers (cpu, io,
//     memory, pids, ...). A cgroup whose parent enabled the controllers in
//     cgroup.subtree_control has every file Stats reads: cpu.stat with
//     throttling counts, memory.current, memory.peak, memory.events,
//     io.stat and the three pressure files.
//   - Hybrid: the controllers are mounted as cgroup v1 under
//     /sys/fs/cgroup/<controller>, and /sys/fs/cgroup/unified is a cgroup2
//     mount with no controller. Its cgroups still have cpu.stat (usage_usec,
//     user_usec, system_usec only) and cpu.pressure, memory.pressure and
//     io.pressure; every other field of Stats is absent.
//
// The root cgroup of either shape has no memory.* files.
//
// # The job's cgroup
//
// Create makes <mount>/<parent>/<name>, enabling the controllers the parent
// offers; the agent then starts the job in it (AddProc, or
// syscall.SysProcAttr.UseCgroupFD with a descriptor of Group.Dir), reads it
// with Read, and ends it with End (its processes killed, then the cgroups
// removed: package internal/cgrouptree), or removes it with Remove once it
// is empty. Creating needs root or a delegated sub-tree; when it is not
// permitted, the agent reads the cgroup it is in (SelfDir and ReadDir), which
// also counts processes that are not the job's. Create, AddProc, End and
// Remove work only on Linux and return an error wrapping ErrNotSupported
// elsewhere; the parsers and readers build and run everywhere.
//
// # Absent is not zero
//
// Every field of Stats says whether it was present. A file that does not
// exist (no controller, older kernel, root cgroup, the pressure files of a
// cgroup whose cgroup.pressure is 0) leaves its fields absent and is not an
// error, nor is a pressure file that fails to read with EOPNOTSUPP, as it
// does when PSI is disabled at boot before Linux 6.1 (rawfile.Absent). A
// file that cannot be read or parsed is reported in the error Read returns
// (the errors of several files joined), and Read still fills in all the
// others. A Reader keeps its buffer and paths, so reading again allocates
// nothing.
//
// # References
//
//   - Control Group v2, the file formats and the rules on controllers and
//     delegation: https://docs.kernel.org/admin-guide/cgroup-v2.html
//   - Pressure stall information: https://docs.kernel.org/accounting/psi.html
//   - mountinfo: proc_pid_mountinfo(5); /proc/<pid>/cgroup: cgroups(7).
package cgroup
