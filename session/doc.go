// Package session is one traced run: the one thing that is started, fed
// phase messages from any source, sampled, and shut down with the job's
// outcome, after which every artifact is written.
//
// A Session is built from Settings by New, and owns, from Start to
// Shutdown, in the manner of the OpenTelemetry Collector's service.Service:
//
//   - the telemetry pipeline (package telemetry): the tracer provider that
//     spools every span, the forwarder to a collector, the meter provider;
//   - the job's span, its start-up span, and the phase tracker
//     (spans.Tracker) that turns messages into phase spans under it;
//   - the sources that feed the tracker: the job's stdout and stderr
//     (Output, the marker scanners of package scan), the socket and the
//     marker dir in a private directory (JobEnv names them to the job, and
//     `jobtrace phase|event|exec` talk to the socket), and Go calls
//     (Begin, BeginContext, End, EndCommand, Event, Handle);
//   - resource sampling (package hostmetrics), with the job's cgroup where
//     one can be made, which measures what each phase cost.
//
// Start starts them in that order and Shutdown stops them in reverse: it
// reads what is left in the sources, ends the open phases, takes the last
// sample, ends the job's span, renders the summary, report.html, usage.svg
// and profile.json from the model of the run (package runmodel), and
// exports what the collector has not got yet. Every goroutine the session
// started has ended when Shutdown returns.
//
// `jobtrace run` (package agent) is a session whose Settings.Child is set
// and a child process supervised by package supervise. A Go program uses a
// session on its own:
//
//	set := session.FromConfig(config.Default(), cienv.Detect(os.Getenv), "v1.0.0")
//	set.Name = "build"
//	s := session.New(set)
//	if err := s.Start(ctx); err != nil {
//		return err
//	}
//	s.Begin("compile")
//	err := compile()
//	s.End("compile", resultOf(err))
//	res, err := s.Shutdown(ctx, session.Outcome{Code: exitCode(err)})
//
// A program that runs the job's commands itself (a CI worker) tells the
// session of each (CommandStarted, CommandExited) so that the phases around
// it get its usage, ends a command's phase as `jobtrace exec` ends a step
// (EndCommand), gives the job's result itself (Outcome.Result), and
// keeps its process as it is (SamplingOptions.NoSubreaper).
//
// A session sets nothing for the whole process: where OpenTelemetry's own
// errors go is the program's to choose (otlp.RouteErrors sends them to a
// function, as `jobtrace run` does at its top).
package session
