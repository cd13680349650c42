// Package sizing advises what machine a job needs: from the CPUs it kept
// busy (the 95th percentile over its samples, weighted by the time each
// covers, and how long it used more than one), its peak memory, whether it
// swapped, was OOM-killed or waited for memory, it suggests a machine of
// the usual shapes (a power of two CPUs, memory in powers of two GiB) and
// says so in one plain sentence:
//
//	used 2.3 of 8 CPUs (p95) and at most 3.1 GiB: a 4-CPU, 8 GiB machine would do
//	hit memory pressure for 41s: needs more memory, 16 GiB or more
//
// Advise is a pure function of the Figures; BusyCPUs is the fixed-size
// histogram the CPU figures come from. The figures are gathered over the
// job's samples during a run and over the rows of resource-usage.csv
// after it (runmodel), the same way. Its figures are written as every
// renderer writes them (package internal/figure). The rules and numbers
// are in docs/insight.md, section "Right-sizing".
package sizing
