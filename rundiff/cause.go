package rundiff

import (
	"fmt"

	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/internal/figure"
)

// Cause is the most likely cause of a change in a phase's duration.
type Cause string

// The causes Explain tells (docs/diff.md, "Causes").
const (
	CauseMoreWork       Cause = "more-work"       // more CPU time
	CauseNeighbours     Cause = "neighbours"      // other processes took the CPUs
	CauseIO             Cause = "io"              // more IO, or waited longer for it
	CauseWaiting        Cause = "waiting"         // neither: network, sleeps, locks, services
	CauseLessWork       Cause = "less-work"       // less CPU time
	CauseNeighboursGone Cause = "neighbours-gone" // the base runs' neighbours are gone
	CauseLessIO         Cause = "less-io"         // less IO, or less waiting for it
	CauseLessWaiting    Cause = "less-waiting"    // same CPU time, less waiting
	CauseUnknown        Cause = "unknown"         // no CPU time on one side
)

// Thresholds of the causes' rules (docs/diff.md, "Causes").
const (
	// WorkShare is the share of the change in duration that the change in
	// CPU time must explain, at the base's CPUs busy, for the change to be
	// put down to work: a phase that took 3 s more and 0.3 s more CPU time
	// on one CPU did a little more work but was slowed by something else.
	WorkShare = 0.5
	// NeighbourBusy is the share of the machine's CPUs that other
	// processes must have taken, and NeighbourRise how much more than on
	// the other side, for a change to be put down to neighbours.
	NeighbourBusy = 0.5
	NeighbourRise = 0.25
)

// The share of a phase's time that some of the job's tasks must have
// waited for a CPU (or for IO) on the longer side for the change to be put
// down to the CPU (or IO) being short is the verdict's
// (verdict.CPUStallShare, verdict.IOStallShare): a phase whose tasks
// waited that long is one the verdict would call short of it. The time
// waited must also have grown by WorkShare of the change in duration:
// stall time rather than a share of it, since on a machine already busy in
// the base run, a phase slowed further waits longer, at about the same
// share of its (longer) time.

// rule is a row of the causes' table: it holds of (more, less), the
// row's figures on the side where the phase took longer and on the side
// where it took less, names the cause, up when the phase is slower and
// down when it is faster, and says the figures of the run compared against
// the base's.
type rule struct {
	up, down Cause
	holds    func(more, less *Figures) bool
	says     func(cur, base *Figures) string
}

// rules is the causes' table, in the order it is read: the first rule
// that holds gives the cause. The same rules read both ways, so that a
// phase that got slower for a reason and one that got faster when the
// reason went away are told alike.
func rules() []rule {
	return []rule{
		{CauseMoreWork, CauseLessWork, moreWork, func(c, b *Figures) string {
			return ratio(c, b, CPUTime, figure.Seconds) + " CPU time"
		}},
		{CauseNeighbours, CauseNeighboursGone, verdictSays(verdict.Starved), verdictPhrase(verdict.Starved)},
		{CauseIO, CauseLessIO, verdictSays(verdict.IOBound), verdictPhrase(verdict.IOBound)},
		{CauseNeighbours, CauseNeighboursGone, rose(NeighbourCPU, NeighbourBusy, NeighbourRise), func(c, b *Figures) string {
			return fmt.Sprintf("same CPU time, machine CPU %s, others' %s (base: %s)", pctOf(c, MachineCPU), pctOf(c, NeighbourCPU), pctOf(b, NeighbourCPU))
		}},
		{CauseNeighbours, CauseNeighboursGone, stalled(CPUStall, verdict.CPUStallShare), func(c, b *Figures) string {
			return fmt.Sprintf("same CPU time, waited for a CPU %s (%s of the time; base: %s)", stallChange(c, b, CPUStall), pctOf(c, CPUStall), pctOf(b, CPUStall))
		}},
		{CauseIO, CauseLessIO, func(m, l *Figures) bool { return up(l, m, DiskIO) }, func(c, b *Figures) string {
			return "same CPU time, " + ratio(c, b, DiskIO, figure.Bytes) + " disk IO"
		}},
		{CauseIO, CauseLessIO, stalled(IOStall, verdict.IOStallShare), func(c, b *Figures) string {
			return fmt.Sprintf("same CPU time, waited for IO %s (%s of the time; base: %s)", stallChange(c, b, IOStall), pctOf(c, IOStall), pctOf(b, IOStall))
		}},
		{CauseWaiting, CauseLessWaiting, func(m, l *Figures) bool { return both(m, l, CPUTime) }, func(c, b *Figures) string {
			if _, ok := c.Get(MachineCPU); !ok {
				return "same CPU time"
			}
			return "same CPU time, machine CPU " + pctOf(c, MachineCPU)
		}},
	}
}

// verdictSays holds when the longer side's verdict is kind and the other
// side's is not: the verdict is used rather than judging the figures
// again.
func verdictSays(kind verdict.Kind) func(m, l *Figures) bool {
	return func(m, l *Figures) bool { return m.Verdict.Kind == kind && l.Verdict.Kind != kind }
}

// verdictPhrase says the verdict of the side that has kind, with its
// evidence.
func verdictPhrase(kind verdict.Kind) func(c, b *Figures) string {
	return func(c, b *Figures) string {
		if c.Verdict.Kind == kind {
			return "same CPU time; " + string(kind) + ": " + c.Verdict.Reason
		}
		return "same CPU time; base " + string(kind) + ": " + b.Verdict.Reason
	}
}

// moreWork holds when the CPU time rose beyond noise by enough to explain
// WorkShare of the change in duration at the shorter side's CPUs busy.
func moreWork(m, l *Figures) bool {
	if !up(l, m, CPUTime) {
		return false
	}
	dm, okM := m.Get(Duration)
	dl, okL := l.Get(Duration)
	busy, okB := l.Get(CPUsBusy)
	if !okM || !okL || !okB || busy <= 0 {
		return true
	}
	cm, _ := m.Get(CPUTime)
	cl, _ := l.Get(CPUTime)
	return (cm-cl)/busy >= WorkShare*(dm-dl)
}

// rose returns a rule that holds when figure f is at least busy on the
// longer side and at least rise above the other side.
func rose(f Figure, busy, rise float64) func(m, l *Figures) bool {
	return func(m, l *Figures) bool {
		vm, okM := m.Get(f)
		vl, okL := l.Get(f)
		return okM && okL && vm >= busy && vm-vl >= rise
	}
}

// stalled returns a rule that holds when stall share f is at least share
// on the longer side and the time stalled grew by at least WorkShare of
// the change in duration.
func stalled(f Figure, share float64) func(m, l *Figures) bool {
	return func(m, l *Figures) bool {
		sm, okSM := m.Get(f)
		dm, okDM := m.Get(Duration)
		dl, okDL := l.Get(Duration)
		tm, tl, ok := stallTimes(m, l, f)
		return okSM && okDM && okDL && ok && sm >= share && tm-tl >= WorkShare*(dm-dl)
	}
}

// stallTimes returns the time stalled (stall share f × duration) on both
// sides.
func stallTimes(a, b *Figures, f Figure) (ta, tb float64, ok bool) {
	sa, okSA := a.Get(f)
	sb, okSB := b.Get(f)
	da, okDA := a.Get(Duration)
	db, okDB := b.Get(Duration)
	return sa * da, sb * db, okSA && okSB && okDA && okDB
}

// stallChange says how much longer (or shorter) c was stalled than b:
// "3.06s longer".
func stallChange(c, b *Figures, f Figure) string {
	tc, tb, _ := stallTimes(c, b, f)
	if tc >= tb {
		return figure.Seconds(tc-tb) + " longer"
	}
	return figure.Seconds(tb-tc) + " less"
}

// up reports whether figure f went up beyond noise from a to b.
func up(a, b *Figures, f Figure) bool {
	va, okA := a.Get(f)
	vb, okB := b.Get(f)
	return okA && okB && Comparable(a, b, f) && changeOf(va, vb, NoiseOf(f)) == Up
}

func both(a, b *Figures, f Figure) bool {
	_, okA := a.Get(f)
	_, okB := b.Get(f)
	return okA && okB
}

// Explain returns the most likely cause of the change in r's duration, and
// says it with the figures: the first rule of the table (rules) that
// holds. The phrase says what the longer side did ("2.1× CPU time") with
// what it means ("did more work"); for a faster phase the rules are read
// with the sides swapped. A row whose duration did not change has no cause.
func Explain(r *Row) (Cause, string) {
	var more, less *Figures
	switch r.Status {
	case StatusSlower:
		more, less = &r.Cur, &r.Base
	case StatusFaster:
		more, less = &r.Base, &r.Cur
	default:
		return "", ""
	}
	for _, ru := range rules() {
		if ru.holds(more, less) {
			c := ru.down
			if r.Status == StatusSlower {
				c = ru.up
			}
			return c, ru.says(&r.Cur, &r.Base) + " — " + meaning(c)
		}
	}
	return CauseUnknown, "no CPU time on both sides to tell why"
}

// meaning is what a cause means, as the end of a reason says it.
func meaning(c Cause) string {
	switch c {
	case CauseMoreWork:
		return "did more work"
	case CauseNeighbours:
		return "slowed by neighbours"
	case CauseIO:
		return "slowed by IO"
	case CauseWaiting:
		return "waited longer (network, sleeps, locks, other services)"
	case CauseLessWork:
		return "did less work"
	case CauseNeighboursGone:
		return "no longer slowed by neighbours"
	case CauseLessIO:
		return "less IO"
	case CauseLessWaiting:
		return "waited less"
	}
	return string(c)
}

// ratio says figure f of c against b: "2.1×", or the signed difference
// when the ratio does not read well (b is 0, or it is below 0.1× or 100×
// and above).
func ratio(c, b *Figures, f Figure, unit func(float64) string) string {
	vc, _ := c.Get(f)
	vb, _ := b.Get(f)
	if vb > 0 && vc/vb >= 0.1 && vc/vb < 100 {
		return figure.Count(vc/vb) + "×"
	}
	return signed(vc-vb, unit)
}

// signed prints d with its sign, in unit.
func signed(d float64, unit func(float64) string) string {
	if d < 0 {
		return "−" + unit(-d)
	}
	return "+" + unit(d)
}

// pct prints a share (0–1) in percent (figure.Percent).
func pct(share float64) string { return figure.Percent(share * 100) }

// pctOf prints figure f of fs in percent, absent when fs lacks it.
func pctOf(fs *Figures, f Figure) string {
	v, ok := fs.Get(f)
	if !ok {
		return absent
	}
	return pct(v)
}
