// Package profile turns the artifacts of a run into a profile for the
// Firefox Profiler (https://profiler.firefox.com): DIR/profile.json, which
// the profiler opens with "Load a profile from file".
//
// The profile is in the profiler's processed format, version 61
// (FormatVersion), an older version that the profiler upgrades when it
// loads it. Its layout is described in docs/profile.md:
//
//   - one thread, named after the job, with every span as an interval
//     marker (the job span at depth 0, phases below it, each named by its
//     own name, with its depth and its parent's name as fields: a marker
//     costs the same however deep its phase is) and
//     every span event as an instant marker; marker schemas "Phase" and
//     "Event" put their fields in the marker table and sidebar;
//   - four counters from resource-usage.csv: the job's CPU time, its
//     memory, its disk IO and the machine's network IO.
//
// Build is a pure function from parsed artifacts to a Profile, which
// encoding/json writes as it is. ReadDir parses the artifacts, and Write
// does both and writes the file:
//
//	warn, err := profile.Write(out) // out/profile.json from out's artifacts
package profile
