// Package verdict tells why a phase (or the job) took the time it took,
// from the usage figures of its window alone: it kept the CPUs busy, kept
// one CPU busy, waited for IO, for memory, for a CPU that neighbours or
// the hypervisor took, or for none of these (network, sleep, locks).
//
// Judge is a pure function of a usage.Usage: the session calls it once per
// window and sets the result on the span (Verdict.Attributes); everything
// that shows a verdict later reads it back with FromAttributes rather than
// judging again, so that a verdict means one thing wherever it is shown.
//
// The rules and their thresholds are one table (rules, in the order they
// are tried), documented in docs/insight.md.
package verdict
