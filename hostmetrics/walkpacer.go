package hostmetrics

import "time"

// TreeBudget is the share of one CPU that walking the job's process tree may
// take, on every system. Walking costs about 50 µs per process on a small
// Linux virtual machine, so a tree of a few hundred processes sampled every
// second would pass it; the tree is then walked less often, every
// cost/TreeBudget (a 50 ms walk every 10 s), and the samples in between
// keep the figures of the last walk (see Tree.At). The job's own cgroup,
// when it has one, still gives exact CPU at every sample. The cost is the
// agent's CPU time during the walk, so a busy machine that delays the walk
// does not space it out.
const TreeBudget = 0.005

// CheapWalkProcs is the size of a tree walked at every sample on Linux,
// boundaries included, whatever it cost, so that the phases of a small job
// get exact deltas even without a cgroup: there a walk's cost grows with
// the tree alone.
const CheapWalkProcs = 64

// CheapWalkCost is the cost of a walk done again at every sample on the
// systems whose walk lists every process of the machine, not only the
// job's (illumos, and those read through gopsutil): there cheapness is
// judged by cost rather than by the tree's size.
const CheapWalkCost = time.Millisecond

// walkPacer spaces out the walks of the job's process tree, so that they
// take at most budget of one CPU. A walk is due at the first and the last
// sample, when no walk has been done yet, when the last one was cheap (a
// tree of at most cheapProcs processes, or a walk that cost at most
// cheapCost), and otherwise once cost/budget has passed since the last one.
// Every source walks its tree through one.
type walkPacer struct {
	budget     float64       // share of one CPU
	cheapProcs int           // 0: cheapness is judged by cost alone
	cheapCost  time.Duration // 0: cheapness is judged by size alone
	// cpu returns the CPU time the agent has used so far; false when the
	// system cannot say, and then the walk's wall time is its cost.
	cpu func() (time.Duration, bool)

	walked bool
	procs  int           // processes found by the last walk
	cost   time.Duration // what the last walk cost
	next   time.Time     // when the next walk is due
}

// due tells whether the tree is to be walked for a sample of reason r
// taken at at.
func (p *walkPacer) due(r Reason, at time.Time) bool {
	switch {
	case r == ReasonStart || r == ReasonEnd || !p.walked:
		return true
	case p.cheapProcs > 0 && p.procs <= p.cheapProcs:
		return true
	case p.cheapCost > 0 && p.cost <= p.cheapCost:
		return true
	}
	return !at.Before(p.next)
}

// walkStart is when a walk began, in the agent's CPU time and in wall time.
type walkStart struct {
	cpu   time.Duration
	cpuOK bool
	wall  time.Time
}

// start is called as a walk begins.
func (p *walkPacer) start() walkStart {
	c, ok := p.cpu()
	return walkStart{cpu: c, cpuOK: ok, wall: time.Now()}
}

// done records a walk begun at w for the sample taken at at, which found
// procs processes: the next is due cost/budget later.
func (p *walkPacer) done(w walkStart, at time.Time, procs int) {
	if c, ok := p.cpu(); ok && w.cpuOK {
		p.cost = c - w.cpu
	} else {
		p.cost = time.Since(w.wall)
	}
	p.walked, p.procs = true, procs
	p.next = at.Add(time.Duration(float64(p.cost) / p.budget))
}
