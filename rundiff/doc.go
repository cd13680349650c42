// Package rundiff compares runs of a job: one run against another, or
// against the median of several baseline runs. It works on the model of a
// run (package runmodel), so that the runs compared are read by the one
// reader of artifacts (runmodel.ReadDir) and both sides mean the same.
//
// Phases are matched by their path: the names from the job down
// ("build", "build/compile"). Phases of the same path (a phase that ran
// twice) are matched in the order they started: the first with the first,
// the second with the second. The job's own span is matched with the job's.
//
// For each phase and for the job it compares five figures (Compared):
// duration, CPU time, CPUs kept busy (CPU time over duration), peak memory
// and disk IO (bytes read and written), each "same" when its change is
// below the noise rule of Noise, and it says the most likely cause of a
// change in duration from a small table of rules (Explain), which prefers
// a verdict recorded on the span (package insight/verdict) to judging the
// figures again. With several baselines the base figures are the median of
// the baselines that have the phase, and a phase whose duration is outside
// the baselines' spread (min–max, beyond the noise rule) is flagged.
//
// WriteText, WriteMarkdown and WriteJSON render a Diff; render/report
// renders it as a section of report.html. docs/diff.md is the reference.
package rundiff
