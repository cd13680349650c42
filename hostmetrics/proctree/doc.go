// Package proctree samples the resource usage of a job's process tree from
// /proc on Linux.
//
// A [Reader] is given the pids at the top of the tree (the job, plus any
// orphans that re-parented to the agent as a child subreaper) and walks down
// through /proc/<pid>/task/<tid>/children, breadth-first, reading for each
// process /proc/<pid>/stat, /proc/<pid>/statm and, where permitted,
// /proc/<pid>/io. When the job was started in a cgroup of its own,
// [Reader.SampleCgroup] reads the same files of the cgroup's members,
// listed by cgroup.procs, instead of walking: one read in place of one per
// thread of every process. It leaves out the zombies the walk finds below
// the roots (see there). In steady state (a tree that keeps its processes) a sample
// allocates nothing: buffers, the pid map and the per-process detail are
// reused from one sample to the next.
//
// # What the figures cover, and what they miss
//
// CPU time in [Usage] is the CPU of the processes alive (or zombie) at the
// time of the sample. The CPU of a process that has exited and been reaped is
// gone from /proc: the kernel adds it to the cutime/cstime of the process that
// reaped it (reported in [Proc] as ChildUser/ChildSystem), or drops it when the
// reaper is outside the tree. [Reader.Exited] gives, for the processes that
// disappeared since the previous sample, the CPU and IO they had when last
// seen; the CPU they used between that sample and their exit is lost, so a
// short-lived process that lives and dies between two samples is not counted
// at all. The caller therefore completes the figure with the rusage that
// wait4 reports for the job (which covers every descendant that was waited
// for) and, when the job runs in a cgroup of its own, with the cgroup's
// cpu.stat, which keeps the CPU of all exited members exactly.
//
// On systems other than Linux, [Reader.Sample] returns [ErrUnsupported].
package proctree
