// Package jobtrace traces a CI task from inside the Go program that runs
// it: a CI worker (Taskcluster's generic-worker, a runner of one's own)
// starts a Task, marks its own lifecycle phases (image pull, cache setup,
// artifact upload) around the task's command, lets the command add its own
// phases, and stops the Task with the task's result to get the artifacts it
// then uploads:
//
//	t, err := jobtrace.Start(ctx, jobtrace.WithName("build"), jobtrace.WithOut(dir))
//	if err != nil {
//		return err
//	}
//	err = t.Phase(ctx, "image pull", func(ctx context.Context) error { return pull(ctx) })
//	...
//	cmd := exec.CommandContext(ctx, "sh", "-c", script)
//	err = t.Run("task", cmd)
//	...
//	a, err := t.Stop(ctx, jobtrace.ResultOf(err))
//	upload(a.Paths())
//
// Each phase is an OpenTelemetry span under the task's span, with what it
// cost the machine (the jobtrace.usage.* and jobtrace.system.* attributes
// of docs/attributes.md). The task's span is a child of the span context in
// the ctx given to Start, if any.
//
// # The task's own phases
//
// A command started with Run, or with the environment Env gives, finds the
// task through the variables `jobtrace run` gives a job (docs/markers.md):
// TRACEPARENT (its phase's trace context, for any OpenTelemetry-aware
// tool), JOBTRACE_SOCKET (what `jobtrace phase begin|end`, `jobtrace event`
// and `jobtrace exec` talk to) and JOBTRACE_MARKER_DIR (a directory where
// any process may append JSON-lines markers). Run also scans the command's
// output for phase markers (BEGIN_PHASE/END_PHASE lines, GitHub's ::group::
// and GitLab's section_start). The command's phases nest under the phase
// open when they begin.
//
// # Usage
//
// The machine's figures are sampled every interval (WithInterval) and at
// every phase boundary. The task's own figures (CPU time, peak memory,
// storage IO) are those of the commands started with Run: each is followed,
// with its descendants, from its start until it is waited for, and its
// usage is on the phase around it and added to the task's. What the worker
// does in its own process is not the task's: a phase around Go code carries
// the machine's figures, and none of the task's (its CPU time is zero). One command is followed at a time; a command
// Run starts while another is followed runs all the same, unmeasured, and
// the error handler is told.
//
// # Artifacts
//
// Stop ends the task's span with the result, takes the last sample, and
// writes in the out directory (WithOut, default jobtrace-out) every
// artifact `jobtrace run` writes: the spans as OTLP JSON lines, the usage
// CSV, report.html, usage.svg and profile.json for the Firefox Profiler.
// When a collector is configured, what it has not yet got is exported
// within the export timeout (WithExportTimeout); spans it did not take stay
// in the spool for `jobtrace replay`. Two Tasks of one process are
// independent; two writing to the same out directory at once each get a
// directory of their own inside it (Artifacts.Dir says which).
//
// # Configuration
//
// Options are applied in this order, each overriding the one before:
//
//	defaults < OTEL_* environment (only with WithEnv) < the other options
//
// The defaults are jobtrace's own (docs/configuration.md): out directory
// jobtrace-out, a sample every second, an export timeout of 3 s, nothing
// exported (local artifacts only), the markers of every syntax; a Task adds
// no summary (WithSummary) and no span attributes but its name.
//
// Nothing is read from the environment unless WithEnv asks: a library that
// picked up OTEL_EXPORTER_OTLP_ENDPOINT meant for the task it runs would
// send the worker's telemetry where the task's goes. With WithEnv, the
// standard OTEL_* variables are read (OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES, OTEL_SDK_DISABLED, OTEL_TRACES_EXPORTER,
// OTEL_METRICS_EXPORTER, OTEL_EXPORTER_OTLP_*), TRACEPARENT and TRACESTATE
// give the parent when ctx has none, and the CI system's own variables
// (docs/ci.md) describe the run in the resource; JOBTRACE_* variables and
// jobtrace.yaml are never read. The export settings, from whichever layer,
// go through the one resolver of package exporters/otlp, which refuses
// what `jobtrace run` refuses.
//
// # What a Task does to the process
//
// Nothing that outlives it, and nothing global: it sets no OpenTelemetry
// global (tracer provider, propagator, error handler), installs no signal
// handler, does not make the process a child subreaper, and leaves the
// working directory and the environment alone. Every goroutine it starts
// has ended when Stop returns. Its socket and marker dir are in a private
// directory of the user's (in $XDG_RUNTIME_DIR, /dev/shm or the temporary
// directory), removed by Stop. Its messages (the end-of-task lines, the
// summary) go to the writer of WithLog, stderr by default, one line each
// with a "jobtrace:" prefix; its warnings (an artifact it could not write, a
// collector that refused the spans) go there too, or to the function of
// WithErrorHandler. OpenTelemetry's own internal errors go where the
// program's otel.SetErrorHandler says.
package jobtrace
