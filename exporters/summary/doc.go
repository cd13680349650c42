// Package summary renders the end-of-job summary: a table of the job's
// phases with what each cost, and statistics of the job's resource usage
// over its samples. WriteText prints it for the terminal (lines prefixed
// "jobtrace: ", as the agent's other end-of-job lines); WriteMarkdown
// writes the same as a GitHub-flavoured Markdown section, for
// $GITHUB_STEP_SUMMARY.
//
// Two collectors gather what it needs while the job runs, in constant or
// bounded memory:
//
//   - Spans, a span processor, keeps the name, nesting, times, status and
//     usage attributes (package hostmetrics/usage) of each ended span, up
//     to MaxPhases.
//   - Series, a sampler sink, keeps running statistics (mean, peak and
//     standard deviation) of the job's CPU, memory and IO and of the
//     host's disk operations and network traffic.
//
// Wiring, in order of use:
//
//	spans, series := summary.NewSpans(), summary.NewSeries()
//	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans), ...)
//	sampler := hostmetrics.NewSampler(src, hostmetrics.Options{Sinks: []hostmetrics.Sink{series, ...}})
//	...
//	r := summary.Build(spans, series, root.SpanID(), summary.JobInfo{...})
//	summary.WriteText(os.Stderr, r)
//
// Figures follow one convention in both renderers: a figure that could not
// be measured prints as "–", never as 0; CPU utilisation is a share of all
// the machine's CPUs (0–100 %), whose number the title states; sizes are in
// IEC units (KiB, MiB, GiB).
package summary
