// Package illumosproc samples the resource usage of a job's process tree
// from the /proc file system of illumos.
//
// illumos /proc is binary: each process directory holds C structures,
// declared in <sys/procfs.h> and described in proc(5). Three are read here:
//
//   - psinfo, a psinfo_t, readable by anyone: parent, thread (lwp) count,
//     resident set size, start time, name, state, and the CPU time of the
//     children the process has reaped (pr_ctime);
//   - usage, a prusage_t, readable by anyone: the process's own CPU time
//     split into user, system call and trap time, with fault and IO counts;
//   - status, a pstatus_t, readable by the process's owner: only its first
//     fields are read, for the reaped children's CPU split into user and
//     system time (pr_cutime, pr_cstime), which psinfo gives only summed.
//
// The structures are decoded by portable parsers at fixed offsets: those of
// the LP64 data model on a little-endian machine, which is what a 64-bit
// reader is given on every architecture Go builds for illumos, whatever the
// data model of the process described (the kernel converts for the reader).
// Each offset is a named constant with the field it locates; the test
// fixtures are written by a separate encoder that lays the structures out
// field by field from their declarations, so the two check each other.
//
// illumos has no list of a process's children. A [Reader] lists its proc
// root once per sample, reads every process's psinfo, sorts the processes by
// parent, and walks down from the roots it is given; it then reads usage,
// and status where needed, for the processes of the tree only. It uses the
// os package alone, so the same code reads a fixture tree on any system.
//
// # What the CPU figures cover
//
// A live process's own CPU comes from usage. The CPU of the children it has
// reaped is in its pr_cutime and pr_cstime (clock ticks), to which the
// kernel adds, when it frees a zombie, the child's time and the time of the
// child's own reaped children, as Linux does with cutime and cstime. A
// zombie is different: when a process exits, the kernel folds its reaped
// children's microstate times into its own, so a zombie's usage already
// holds them and its pr_cutime and pr_cstime are not counted again.
//
// The sum over the tree, own and children's time together, therefore keeps
// the CPU of every descendant reaped inside the tree. What leaves with a
// process reaped outside it (an orphan adopted by init) is lost, and the
// time a process used between the last sample and its reaping shows only
// once its parent's figures are read again.
package illumosproc
