// Package promtext writes what an OpenTelemetry metric reader collected
// (metricdata.ResourceMetrics) in the Prometheus text exposition format,
// version 0.0.4, translated as the OpenTelemetry specification's
// "Prometheus and OpenMetrics compatibility" says:
//
//   - metric names: characters outside [a-zA-Z0-9:] become "_", runs of "_"
//     become one, the unit is appended in words (s → seconds, By → bytes,
//     By/s → bytes_per_second; a unit in braces such as {thread} is dropped)
//     unless the name holds it already, monotonic sums get "_total" and
//     gauges of unit 1 get "_ratio"; a gauge whose name would end in
//     _count, _sum or _bucket takes the plural of its unit's annotation
//     instead (process.thread.count {thread} → process_threads);
//   - monotonic cumulative sums are counters, other cumulative sums and
//     gauges are gauges, explicit-bucket histograms are histograms
//     (_bucket{le=…} cumulative up to +Inf, _sum, _count); delta
//     temporality, exponential histograms and summaries are left out, and
//     said so in the error Append returns;
//   - attribute keys become label names the way metric names are made
//     (a leading digit gets "key_"); attributes whose keys become the same
//     name are one label, their values joined by ";" in the order of the
//     keys; values are the attribute's string form, with invalid UTF-8
//     replaced by U+FFFD and \, " and newline escaped;
//   - the instrumentation scope is the labels otel_scope_name,
//     otel_scope_version and otel_scope_schema_url (empty when unset) and
//     otel_scope_<key> for its attributes, on every series;
//   - the resource is one target_info gauge of value 1 whose labels are
//     every resource attribute; the resource attributes Options.ResourceLabels
//     picks are labels of every series too.
//
// Families are written in the order of their names, the series of a family
// in the order of their labels, each family's HELP (the description) and
// TYPE lines first. Two metrics that become the same name with the same
// type are one family (the first description is kept); with another type,
// the later one is left out. Values are Go's shortest representation of
// the float (NaN, +Inf, -Inf as the format spells them); int64 values and
// counts are written as integers.
package promtext
