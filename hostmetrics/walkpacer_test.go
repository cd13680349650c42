package hostmetrics

import (
	"testing"
	"time"
)

// fakeCPU is an agent CPU clock moved by hand.
type fakeCPU struct {
	now time.Duration
	ok  bool
}

func (c *fakeCPU) read() (time.Duration, bool) { return c.now, c.ok }

// walk runs one walk of the given CPU cost and size through p.
func walk(p *walkPacer, c *fakeCPU, at time.Time, cost time.Duration, procs int) {
	w := p.start()
	c.now += cost
	p.done(w, at, procs)
}

func TestWalkPacerBySize(t *testing.T) {
	c := &fakeCPU{ok: true}
	p := walkPacer{budget: TreeBudget, cheapProcs: CheapWalkProcs, cpu: c.read}
	t0 := time.Unix(1700000000, 0)
	if !p.due(ReasonInterval, t0) {
		t.Fatal("no walk due before the first one")
	}
	// A tree of CheapWalkProcs is walked at every sample, whatever it cost.
	walk(&p, c, t0, 10*time.Millisecond, CheapWalkProcs)
	if !p.due(ReasonBoundary, t0.Add(time.Microsecond)) {
		t.Errorf("a tree of %d processes is not walked at every sample", CheapWalkProcs)
	}
	// One more process, and the next walk waits cost/budget: 10 ms / 0.005 = 2 s.
	walk(&p, c, t0, 10*time.Millisecond, CheapWalkProcs+1)
	if p.due(ReasonBoundary, t0.Add(time.Microsecond)) || p.due(ReasonInterval, t0.Add(1999*time.Millisecond)) {
		t.Error("a costly tree is walked before cost/budget has passed")
	}
	if !p.due(ReasonInterval, t0.Add(2*time.Second)) {
		t.Error("no walk due once cost/budget has passed")
	}
	for _, r := range []Reason{ReasonStart, ReasonEnd} {
		if !p.due(r, t0.Add(time.Microsecond)) {
			t.Errorf("no walk due at a sample of reason %v", r)
		}
	}
	// Size alone counts here: a cheap walk of a large tree is still spaced.
	walk(&p, c, t0, 0, CheapWalkProcs+1)
	if !p.due(ReasonInterval, t0) {
		t.Error("a walk that cost nothing is not due again at once")
	}
	walk(&p, c, t0, time.Microsecond, CheapWalkProcs+1)
	if p.due(ReasonInterval, t0) {
		t.Error("cost judged a large tree cheap where only size counts")
	}
}

func TestWalkPacerByCost(t *testing.T) {
	c := &fakeCPU{ok: true}
	p := walkPacer{budget: TreeBudget, cheapCost: CheapWalkCost, cpu: c.read}
	t0 := time.Unix(1700000000, 0)
	walk(&p, c, t0, CheapWalkCost, 1)
	if !p.due(ReasonBoundary, t0) {
		t.Errorf("a walk of %v is not done at every sample", CheapWalkCost)
	}
	// One process that costs more than CheapWalkCost is spaced out: size
	// does not count here.
	walk(&p, c, t0, 5*time.Millisecond, 1)
	if p.due(ReasonBoundary, t0.Add(999*time.Millisecond)) {
		t.Error("a walk of 5 ms is due again within a second")
	}
	if !p.due(ReasonInterval, t0.Add(time.Second)) {
		t.Error("a walk of 5 ms is not due after a second")
	}
	// Without an agent CPU clock, the walk's wall time is its cost.
	c.ok = false
	w := p.start()
	w.wall = w.wall.Add(-50 * time.Millisecond)
	p.done(w, t0, 1)
	if p.cost < 50*time.Millisecond || p.due(ReasonInterval, t0.Add(9*time.Second)) {
		t.Errorf("wall-clock cost %v, due after 9 s", p.cost)
	}
}
