package usage

// The rules by which every artifact shows a usage's figures: the summary,
// report.html, profile.json and jobtrace diff call these rather than
// judging again.

// BoundShare is a share (0 to 1: of all CPUs, of a phase's time) as every
// artifact shows it: at most 1. The shares a Window gives are
// (hostmetrics.CPUShare, BusyShare), but one read back from a span another
// tool wrote may say more, and a stall time taken over a window wider than
// the phase may pass the phase's duration.
func BoundShare(share float64) float64 { return min(share, 1) }

// StorageIO is the storage IO shown for a usage: the job's own bytes read
// and written, or, when the job's could not be read, the machine's disks'
// (host set, which the artifact says); ok is false when neither is known.
func (u *Usage) StorageIO() (read, write uint64, host, ok bool) {
	switch {
	case u.HasIO:
		return u.ReadBytes, u.WriteBytes, false, true
	case u.HasSystemDisk:
		return u.SystemReadBytes, u.SystemWriteBytes, true, true
	}
	return 0, 0, false, false
}
