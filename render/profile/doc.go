// Package profile renders a run as a profile for the Firefox Profiler
// (https://profiler.firefox.com): DIR/profile.json, which the profiler
// opens with "Load a profile from file".
//
// The profile is in the profiler's processed format, version 63
// (FormatVersion), an older version that the profiler upgrades when it
// loads it. Its layout is described in docs/profile.md:
//
//   - one thread, named after the job, with every span as an interval
//     marker (the job span at depth 0, phases below it, each named by its
//     own name, with its depth and its parent's name as fields: a marker
//     costs the same however deep its phase is) and
//     every span event as an instant marker; marker schemas "Phase" and
//     "Event" put their fields in the marker table and sidebar; its
//     samples are the job's CPU time per row, each row's part of the span
//     of at least 200 ms it is in (spreadCPU: the spans of usage.JobCPU,
//     which job_cpu_pct shows), their stacks the phases open then
//     (cpuSamples);
//   - four counters from the rows of resource-usage.csv: the job's CPU time, its
//     memory, its disk IO and the machine's network IO.
//
// It is a pure renderer of the model of a run (package runmodel): it reads
// no file. Build makes a Profile of a run, written as encoding/json would
// write it (by hand, in encode.go, without reflection); Write builds it and
// writes the file:
//
//	run, warn, err := runmodel.ReadDir(out) // or Recorder.Run during a run
//	err = profile.Write(out, run)           // out/profile.json
package profile
