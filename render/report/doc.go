// Package report renders a run as a report a person can look at with no
// tool but a browser: DIR/report.html, one self-contained file (inline CSS,
// SVG and one short script, no network), and DIR/usage.svg, the resource
// charts alone, for viewers that show an image next to an artifact.
//
// The report has, from top to bottom: the job's name, result, exit code,
// duration, start time, host and service, its verdict and its right-sizing
// advice (runmodel.Run.Advice); the phases as a nested timeline, with the
// spans' events as markers on their rows, on the same time axis as the
// charts of CPU, memory, disk IO, network and pressure stall below it; and
// a table of the phases with the resource usage their spans carry
// (jobtrace.usage.*, docs/attributes.md) and their verdicts. Usage and
// verdicts are the model's, read back from the spans once when it was made
// (runmodel.Span.Usage and Verdict), never judged again.
// Hovering a bar, an event or a chart shows its values through SVG <title>
// elements; with scripts on, a crosshair across the timeline and every
// chart shows the sample nearest the pointer: the values of every series
// and the phase it belongs to with those around it (runmodel.Placer, as
// profile.json places its samples; crosshair.go).
//
// It is a pure renderer of the model of a run (package runmodel): it
// reads no file. WriteHTML and WriteSVG render a run; Write writes both
// files in a directory:
//
//	run, warn, err := runmodel.ReadDir(out) // or Recorder.Run during a run
//	err = report.Write(out, run)            // out/report.html and out/usage.svg
//
// WithDiff adds a last section, the comparison of the run with base runs
// (package rundiff), rendered by its own template (diff.go):
//
//	err = report.Write(out, run, report.WithDiff(rundiff.Compare(bases, run), labels))
//
// The work is bounded whatever the size of the run: at most MaxPhases rows
// in the timeline and the table and MaxEvents event markers (the others
// are counted and said), and at most MaxPoints points per chart series
// (consecutive rows are merged, keeping each group's peak).
package report
