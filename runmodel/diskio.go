package runmodel

import "github.com/jobtrace/jobtrace/hostmetrics/usage"

// DiskIO is the storage IO a span's figures show: the job's own, or, when
// it could not be read (no cgroup of its own and a system that does not
// give a process tree's IO), the host's disks over the span, which Host
// marks. The summary, report.html and profile.json show this one, the
// host's marked as such; the statistics of the samples take the same rule
// (JobStats.IOHost).
type DiskIO struct {
	Read, Write uint64 // bytes
	// Host is set when the figures are the host's disks.
	Host bool
}

// HostDiskNote says what a disk IO figure marked as the host's is, for
// every renderer that marks one.
const HostDiskNote = "the host's disks: the job's own IO could not be read"

// DiskIOOf returns the disk IO of u by the rule of usage.Usage.StorageIO,
// and false when neither the job's nor the host's was read.
func DiskIOOf(u *usage.Usage) (DiskIO, bool) {
	r, w, host, ok := u.StorageIO()
	return DiskIO{Read: r, Write: w, Host: host}, ok
}
