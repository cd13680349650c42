// Package summary renders the end-of-job summary: a table of the job's
// phases with what each cost, and statistics of the job's resource usage
// over its samples. WriteText prints it for the terminal (lines prefixed
// "jobtrace: ", as the agent's other end-of-job lines); WriteMarkdown
// writes the same as a GitHub-flavoured Markdown section, for
// $GITHUB_STEP_SUMMARY.
//
// It is a pure renderer of the model of a run (package runmodel): the
// phases, each with its usage and verdict as the model read them back from
// its span (runmodel.Span.Usage and Verdict: the summary never judges), the
// job's span, its advice (runmodel.Run.Advice), and
// the statistics of the job's samples (runmodel.Series: mean, peak and
// standard deviation of the job's CPU, memory and IO and of the host's disk
// operations and network traffic).
//
// Wiring, in order of use:
//
//	rec := runmodel.NewRecorder()
//	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec), ...)
//	sampler := hostmetrics.NewSampler(src, hostmetrics.Options{Sinks: []hostmetrics.Sink{rec.Samples(), ...}})
//	...
//	run, err := rec.Run(dir)
//	s := summary.Build(run, summary.JobInfo{...})
//	summary.WriteText(os.Stderr, s)
//
// Figures follow one convention in both renderers, the one every renderer
// of a run follows (package internal/figure): a figure that could not be
// measured prints as "–", never as 0; durations, sizes (IEC units: KiB,
// MiB, GiB), rates and percentages are written by its rules; CPU
// utilisation is a share of all the machine's CPUs (0–100 %), whose number
// the title states.
package summary
