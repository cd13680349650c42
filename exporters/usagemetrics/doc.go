// Package usagemetrics records hostmetrics samples and per-phase usage as
// OpenTelemetry metrics, on a metric.Meter the agent gives it.
//
// Every metric is declared once, in table: name, unit, kind, attributes,
// description and whether it is enabled. docs/metrics.md lists the same
// table, and a test keeps the two equal.
//
// A Recorder is a hostmetrics.Sink. It records with synchronous instruments,
// in the sampler's goroutine, at each sample:
//
//   - counters get Add(value − previous value); the first sample of a
//     series only sets its baseline (an Add of 0), so every sum counts from
//     the moment jobtrace started, not from boot;
//   - up-down counters get Add(value − last recorded value), so their sum is
//     the current value;
//   - gauges get Record(value).
//
// A group of figures a sample does not have (Host.HasDisk false, no cgroup)
// records nothing: it shows as no data points, never as zeros.
//
// A sample's measurements are recorded with the context Options.Active
// returned at the sample before, which holds the span of the phase that
// was running over the time the figures cover, so the SDK's default
// trace-based exemplar filter attaches exemplars that point at that span:
// at a phase boundary, the phase that ran up to it.
//
// When a phase ends, Phase records histograms of what it cost, with the
// phase name and result as attributes, so the stages of a job can be
// compared across runs.
//
// The names and units come from the semantic conventions' generated packages
// (systemconv, processconv, containerconv). Their constructors are not used:
// several build observable instruments, and some pick an integer gauge for a
// ratio between 0 and 1. Figures without a convention (load average, pressure
// stall time, the job's process count, the per-phase figures) have
// jobtrace.* names.
package usagemetrics
