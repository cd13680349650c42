package hostmetrics

import (
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics/monotonic"
)

// walkSum is what one walk of the job's process tree found, in the terms
// every source shares: the counts and the resident memory of the processes
// walked, and the cumulative figures of the tree, exited processes included
// as far as the source knows them (the children they have reaped, the job
// once wait4 has reported it, the orphans reaped by the agent).
type walkSum struct {
	Processes, Threads int
	Roots              int
	RSS                uint64
	User, System       time.Duration
	// IO says that the system gives per-process storage IO at all;
	// IOAbsent that some process's could not be read (another user's).
	IO, IOAbsent          bool
	ReadBytes, WriteBytes uint64
}

// treeTotals turns the walks of the job's tree into Tree figures, the same
// rule for every source. A process that exits between the reading of its
// parent and its own is missed for one walk, and one that has exited is
// missed until its parent reaps it and counts it among its children: such
// a dip is no reset, so the cumulative figures are held at their highest
// (monotonic.Held) and never go down.
type treeTotals struct {
	user, sys   monotonic.Held[time.Duration]
	read, write monotonic.Held[uint64]
}

// tree returns the Tree of a walk made for the sample taken at at. Its IO is
// present when some process's could be read, when there is no process to
// read, or when IO has been counted already.
func (t *treeTotals) tree(w *walkSum, at time.Time) Tree {
	tr := Tree{
		Processes: w.Processes, Threads: w.Threads, Roots: w.Roots,
		RSS:     w.RSS,
		CPUUser: t.user.Hold(w.User), CPUSystem: t.sys.Hold(w.System),
		At: at,
	}
	if w.IO {
		tr.ReadBytes, tr.WriteBytes = t.read.Hold(w.ReadBytes), t.write.Hold(w.WriteBytes)
		tr.HasIO = !w.IOAbsent || tr.Processes == 0 || tr.ReadBytes > 0 || tr.WriteBytes > 0
		tr.IOPartial = w.IOAbsent
	}
	return tr
}
