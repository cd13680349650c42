// Package runmodel is the one in-memory model of a run: the job, its
// phases with their usage and events, the resource, the rows of resource
// usage and the statistics of the samples. The summary,
// report.html/usage.svg and profile.json (packages render/...) are pure
// renderers of it.
//
// A model is built in one of two ways, which give the same spans, rows and
// advice for the same run, and so the same report.html, usage.svg and
// profile.json; only the first has the statistics of the samples
// (Run.Stats), which the files do not hold: the summary of a run read back
// has no table of them, nor the machine's CPUs it takes from them when
// not told:
//
//   - during a run, from what the run holds: a Recorder is the tracer
//     provider's span processor, keeping the spans as the SDK ends them
//     (sdktrace.ReadOnlySpan), the Tee of the usagecsv.Writer, keeping its
//     rows as it writes them, and a sampler sink (Samples) keeping running
//     statistics of the samples (Series); Recorder.Run builds the model at
//     the end, with nothing written read back;
//   - after a run, from its artifacts, through the one reader: ReadDir
//     reads spans.otlp.jsonl as pdata (spool.ReadSpans) and
//     resource-usage.csv through usagecsv's own column table
//     (usagecsv.Decoder).
//
// Either way a span's usage and verdict are read back once, by
// usage.FromAttributes and verdict.FromAttributes, the inverses of the
// functions that set them, its place in the tree is found once (Depth,
// ParentName, ParentIndex), the job's right-sizing advice is read back
// once from its span, by sizing.FromAttributes, or made when it carries
// none (Run.Advice), and every string is cleaned (cleantext.String), names cut
// to MaxNameBytes: the renderers read these, and compute none of them
// again. Both keep to the same
// bounds: spool.MaxReadSpans spans and their ancestors (spool.SpanBound),
// lines of at most spool.MaxLineBytes and usagecsv.MaxLineBytes.
//
// The job's span is found by one rule (New): a span that names the task
// (cicd.pipeline.task.name) and whose parent is not in the run, the
// earliest if there are several, since a job may join an outer trace.
package runmodel
