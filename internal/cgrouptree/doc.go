// Package cgrouptree ends a job's cgroup (v2): it lists the processes in
// the cgroup and the cgroups below it, kills them, and removes the cgroups,
// deepest first. The session does it at the end of a run and for the
// cgroups of runs that were killed; the guard (supervise/guard) does it when
// jobtrace itself was killed. It imports only the standard library, which
// the guard needs: it runs before the rest of jobtrace is initialized.
//
// Linux has cgroup.kill since 5.14, which kills a cgroup's whole sub-tree at
// once; before, the only way is to signal each process listed, again until
// none is left (a process may fork between the listing and its signal).
// Remove does both when asked to kill: on a kernel without cgroup.kill the
// signals alone empty the cgroup.
package cgrouptree
