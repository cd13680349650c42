// Package procfs reads host-wide figures from Linux's /proc (and, for disks,
// /sys): CPU time, memory, paging, disk and network counters, load average and
// pressure stall information.
//
// Every reader is rooted at a configurable path, so the same code reads
// /proc, /host/proc inside a container, or a fixture tree under testdata/.
// Reading and parsing are split: the methods of [FS] read a file into a reused
// buffer, and untagged parsers turn the bytes into reused result structs, so
// a steady-state sample allocates nothing and the parsers are tested on every OS.
//
// A file that does not exist (an old kernel, PSI not compiled in or disabled,
// a container without /proc/pressure) yields an error satisfying
// errors.Is(err, fs.ErrNotExist): callers record the figure as absent, not zero.
// A file that exists but cannot be understood yields an error wrapping
// [ErrParse] with the path and line.
//
// File formats:
//   - /proc/stat, /proc/meminfo, /proc/vmstat, /proc/loadavg, /proc/net/dev:
//     https://docs.kernel.org/filesystems/proc.html
//     (Documentation/filesystems/proc.rst)
//   - /proc/pressure/* and cgroup *.pressure:
//     https://docs.kernel.org/accounting/psi.html
//     (Documentation/accounting/psi.rst)
//   - /proc/diskstats:
//     https://docs.kernel.org/admin-guide/iostats.html
//     (Documentation/admin-guide/iostats.rst)
package procfs
