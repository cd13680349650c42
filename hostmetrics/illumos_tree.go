package hostmetrics

import (
	"time"

	"github.com/jobtrace/jobtrace/hostmetrics/illumosproc"
)

// illumosTreeTotals turns the walks of the job's tree on illumos into Tree
// figures. It is untagged, so that the rule is tested everywhere.
//
// The rule is the Linux source's: the tree's CPU is the own time of its
// processes plus the time of the children they have reaped (pr_cutime and
// pr_cstime, as Linux's cutime and cstime), plus, once the job has been
// reaped, the usage wait reported for it and the descendants it waited for;
// treeTotals holds them at their highest. Off Linux there is no child subreaper, so the orphans the job leaves
// behind re-parent to init and are not followed.
//
// The tree has no storage IO: prusage_t counts block operations, not bytes,
// and ZFS does not count them, so HasIO stays false.
type illumosTreeTotals struct {
	totals treeTotals
}

// tree returns the Tree of one walk: u is its sum, exited the job's usage
// once it has been reaped (zero before), roots the number of roots walked.
func (t *illumosTreeTotals) tree(u illumosproc.Usage, exited ExitUsage, roots int, at time.Time) Tree {
	return t.totals.tree(&walkSum{
		Processes: u.Processes, Threads: u.Threads, Roots: roots, RSS: u.RSS,
		User:   u.CPUUser + u.ChildUser + exited.User,
		System: u.CPUSystem + u.ChildSystem + exited.System,
	}, at)
}
