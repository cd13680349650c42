package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/hostmetrics/usage"
	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/internal/figure"
	"github.com/jobtrace/jobtrace/internal/readback"
	"github.com/jobtrace/jobtrace/internal/stackhint"
	"github.com/jobtrace/jobtrace/runmodel"
	"github.com/jobtrace/jobtrace/spans"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/wire"
	"github.com/jobtrace/jobtrace/supervise"
	"github.com/jobtrace/jobtrace/telemetry"
)

// Outcome is how the job of a session ended.
type Outcome struct {
	// Code is the job's exit code as a shell reports it (128+N for a
	// job killed by signal N).
	Code int
	// Err is why the job could not be started; Code is then 126, 127 or 1.
	Err error
	// LostOutput is how many bytes of the job's output could not be
	// written to jobtrace's stdout or stderr (supervise.Job.OutputLost).
	LostOutput uint64
	// Ended is when the job ended; the time Shutdown is called when zero.
	Ended time.Time
	// Result, when set, is the job's result (one of the protocol.Result*
	// values), told rather than judged from an exit code: a job without a
	// command of its own ended by `jobtrace stop --result`. Its span then
	// carries no process.exit.code unless Code is set.
	Result string
	// Attrs are set on the job's span as it ends.
	Attrs []attribute.KeyValue
}

// result is the run's cicd.pipeline.task.run.result.
func (o Outcome) result() string {
	if o.Result != "" {
		return o.Result
	}
	return ResultOf(o.Code, o.Err)
}

// ResultOf is the cicd.pipeline.task.run.result of a command that exited
// with code, or could not be started (startErr): error; cancellation when
// a signal that cancels killed it (SIGINT, SIGTERM, SIGHUP: what a user, a
// CI system's cancel or a closed terminal sends); failure for any other
// signal (a crash, the OOM killer's SIGKILL) and any other code but 0;
// success. A job and a step run by `jobtrace exec` are judged by it alike.
func ResultOf(code int, startErr error) string {
	switch {
	case startErr != nil:
		return protocol.ResultError
	case cancelledBy(code - supervise.ExitSignalBase):
		return protocol.ResultCancellation
	case code != 0:
		return protocol.ResultFailure
	}
	return protocol.ResultSuccess
}

// DescribeExit is the description of the status Error of a command that
// exited with code, or could not be started (startErr), what naming it
// (its argv[0], "job" for the job's span): why it could not be started,
// in a shell's words when startErr says so of the program
// (supervise.StartErrorOf, which reads os/exec's errors as well), or "what
// exited with code N". The job's span and the phase of a command, a step
// of `jobtrace exec` or the Go API's Task.Run (CommandEnd), all take it,
// so that a command says the same however it ran.
func DescribeExit(what string, code int, startErr error) string {
	if se := supervise.StartErrorOf(startErr); se != nil {
		return se.Error()
	}
	if startErr != nil {
		return startErr.Error()
	}
	return fmt.Sprintf("%s exited with code %d", what, code)
}

// CommandEnd is how the phase of a command that exited with code, or
// could not be started (startErr), what naming it (its argv[0]), ends: its
// result (ResultOf) and, when it failed, the description of its status
// Error (DescribeExit), cleaned and cut to what a phase message carries
// (protocol.MaxNameBytes); status is "" when it did not fail. `jobtrace
// exec` sends them with its step's end inside a run and sets its span by
// them outside one, and Session.EndCommand (the Go API's Task.Run) ends a
// phase by them.
func CommandEnd(what string, code int, startErr error) (result, status string) {
	result = ResultOf(code, startErr)
	if wire.Failed(result) {
		status = cleantext.Truncate(cleantext.String(DescribeExit(what, code, startErr)), protocol.MaxNameBytes)
	}
	return result, status
}

// cancelledBy reports whether sig is a signal that cancels a job.
func cancelledBy(sig int) bool {
	switch syscall.Signal(sig) {
	case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP:
		return true
	}
	return false
}

// Result is what a session left: where its artifacts are, its trace, and
// what happened to the export.
type Result struct {
	// Result is the run's result: success, failure, error or cancellation.
	Result string
	// Dir is the directory the artifacts were written to (Settings.Out, or
	// a directory of its own inside it when another jobtrace was writing
	// there).
	Dir     string
	TraceID trace.TraceID
	Export  telemetry.ShutdownResult
}

// ErrNotStarted is the error of Shutdown of a session that Start did not
// start.
var ErrNotStarted = errors.New("session: not started")

// Shutdown ends the session with the job's outcome: it reads what is left
// in the job's output, the socket and the marker dir, ends the phases
// still open, takes the last sample, ends the job's span, writes every
// artifact and the summary, and exports what the collector has not got
// yet, within Settings.ExportTimeout or the deadline of ctx, whichever
// comes first. Every goroutine the session started has ended when it
// returns. The error is why spans were not written or not delivered;
// the artifacts and the summary are written all the same.
func (s *Session) Shutdown(ctx context.Context, o Outcome) (Result, error) {
	if s.pipe == nil {
		return Result{}, ErrNotStarted
	}
	if !protocol.ValidResult(o.Result) {
		return Result{}, fmt.Errorf("%w: result %q", ErrRefused, o.Result)
	}
	if s.shut.Swap(true) {
		return Result{}, errors.New("session: shut down twice")
	}
	s.jobDone(nil)
	if o.Ended.IsZero() {
		o.Ended = time.Now()
	}
	s.KeepDir()
	_, shutdown := s.tracer.Start(s.rootCtx, "jobtrace shutdown")
	// The job's duration is from its start to its exit: its span ends
	// after the shutdown's work, its child span.
	end := jobEnd{code: o.Code, result: o.result(), told: o.Result != "", took: usage.SpanDuration(s.set.Start, o.Ended)}
	end.notes = s.stopSources(end.result, o.LostOutput)
	s.endJobSpan(o, end.result, end.took)
	if s.res != nil {
		s.res.finish(s.log, end.result, end.took)
	}
	shutdown.End()
	s.root.End()
	rendered := s.renderAside(&end)
	if s.res != nil {
		s.res.removeCgroup(s.log)
	}
	// The job has ended and its cgroup and private directory are gone.
	if s.set.Cleaned != nil {
		s.set.Cleaned()
	}
	sr := s.export(ctx, &end, rendered)
	return Result{Result: end.result, Dir: s.pipe.Dir(), TraceID: s.root.SpanContext().TraceID(), Export: sr}, sr.Err
}

// KeepDir makes the artifacts directory again when it was removed (a
// job's or a step's `git clean -x`, `rm -rf`; actions/checkout empties the
// workspace it checks out into), with the spool and the CSV as far as they
// were written: the session still holds them open, so they are copied to
// new files at their paths (Relink), which the rest of the run writes to,
// and the files rendered at its end go there as if nothing had happened.
// The same for one of those files removed on its own. One warning says
// so. Shutdown calls it first; a session that runs on after its job (a
// background agent) may call it at any time. It reports whether the
// directory or a file had to be made again.
func (s *Session) KeepDir() bool {
	dir := s.pipe.Dir()
	_, err := os.Stat(dir)
	gone := errors.Is(err, fs.ErrNotExist)
	if gone {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			s.log.Warn(fmt.Sprintf("the out dir %s was removed during the run, and could not be made again: %v; its files are lost", dir, err))
			return true
		}
	}
	// What the job may have put at their names meanwhile (a link to
	// another file) is removed, not followed, as at the start.
	telemetry.Reclaim(dir, []string{spool.TracesFile, usagecsv.FileName}, s.log.Warn)
	var kept []string
	if ok, err := s.pipe.RelinkSpool(); err != nil {
		s.log.Warn(fmt.Sprintf("the spans written to %s during the run were removed from it, and could not be written again: %v", dir, err))
	} else if ok {
		kept = append(kept, spool.TracesFile)
	}
	if s.res != nil && s.res.csv != nil {
		if ok, err := s.res.csv.Relink(); err != nil {
			s.log.Warn(fmt.Sprintf("the samples written to %s during the run were removed from it, and could not be written again: %v", dir, err))
		} else if ok {
			kept = append(kept, usagecsv.FileName)
		}
	}
	switch {
	case gone:
		what := "the files of the run's end"
		if len(kept) > 0 {
			what = strings.Join(kept, " and ") + " as far as they were written, and the files of the run's end"
		}
		s.log.Warn(fmt.Sprintf("the out dir %s was removed during the run: made again, with %s", dir, what))
	case len(kept) == 1:
		s.log.Warn(fmt.Sprintf("%s was removed from %s during the run: written again as far as it was", kept[0], dir))
	case len(kept) > 1:
		s.log.Warn(fmt.Sprintf("%s were removed from %s during the run: written again as far as they were", strings.Join(kept, " and "), dir))
	}
	return gone || len(kept) > 0
}

// stopSources reads what is left in the job's output, the socket and the
// marker dir, stops them, and ends the phases still open. It returns the
// notes for the summary on what was not turned into spans.
func (s *Session) stopSources(result string, lostOutput uint64) (notes []string) {
	s.outScan.Close()
	s.errScan.Close()
	s.srcs.stop()
	if left := s.tracker.Close(result); len(left) > 0 {
		s.log.Warn(fmt.Sprintf("phases still open when the job ended: %s", strings.Join(left, ", ")))
	}
	statAttrs, lost := s.srcs.statsAttrs(s.outScan, s.errScan, s.tracker, lostOutput, s.log, s.pipe.Meter)
	s.root.SetAttributes(statAttrs...)
	if n := s.late.Load(); n > 0 {
		s.root.SetAttributes(attribute.Int64("jobtrace.output.late_syncs", int64(n)))
	}
	if len(lost) > 0 {
		notes = append(notes, "not turned into spans: "+strings.Join(lost, "; "))
	}
	return notes
}

// endJobSpan sets how the job ended on its span (spans.SetResult): the
// status Error when it failed, not when it was cancelled or skipped; and
// its duration, took, which the model of the run reads back from it
// (runmodel.AttrJobDuration).
func (s *Session) endJobSpan(o Outcome, result string, took time.Duration) {
	s.root.SetAttributes(runmodel.AttrJobDuration.Float64(readback.SecondsOf(took)))
	desc := DescribeExit("job", o.Code, o.Err)
	if o.Result != "" && o.Err == nil {
		desc = "job ended with result " + result
	}
	spans.SetResult(s.root, result, desc)
	if o.Result == "" || o.Code != 0 {
		s.root.SetAttributes(semconv.ProcessExitCode(o.Code))
	}
	s.root.SetAttributes(o.Attrs...)
}

// renderAside renders the files made from the model of the run (the
// profile, the report) in a goroutine of its own, once every span has
// ended, while the job's cgroup is removed and the telemetry shuts down; it
// sets end.run and closes the channel it returns once they are written.
// It returns nil when there is nothing to render (no resource sampling).
func (s *Session) renderAside(end *jobEnd) <-chan struct{} {
	if s.res == nil || s.res.csv == nil {
		return nil
	}
	rendered := make(chan struct{})
	dir := s.pipe.Dir()
	go func() {
		stackhint.Grow()
		defer close(rendered)
		end.run = model(s.pipe, dir, s.log)
		renderArtifacts(dir, end.run, s.log.Warn)
	}()
	return rendered
}

// export shuts the telemetry down once every span has ended: the spool is
// written and what is left exported, within Settings.ExportTimeout or the
// deadline of ctx, while the files rendered from the model of the run are
// written (rendered, which the pipeline waits for before it gives the
// artifacts directory up); then the summary and the end-of-run lines are
// printed.
func (s *Session) export(ctx context.Context, end *jobEnd, rendered <-chan struct{}) telemetry.ShutdownResult {
	s.pipe.Rendered = rendered
	timeout := s.set.ExportTimeout
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < timeout {
		timeout = max(time.Until(dl), 0)
	}
	sampled := s.root.SpanContext().IsSampled()
	sr := s.pipe.Shutdown(ctx, timeout, sampled)
	if rendered != nil {
		<-rendered
	}
	printEnd(s.log, s.set, sr, s.pipe, s.root.SpanContext(), *end, sampled)
	return sr
}

// printEnd prints the end-of-job lines: the phases, where the artifacts are,
// and what happened to the export.
func printEnd(log Logger, o Settings, res telemetry.ShutdownResult, pipe *telemetry.Pipeline, root trace.SpanContext, end jobEnd, sampled bool) {
	if res.Dropped > 0 {
		end.notes = append(end.notes, fmt.Sprintf("not turned into spans: %d spans not written to the spool (disk stalled)", res.Dropped))
	}
	if res.Lost > 0 {
		end.notes = append(end.notes, fmt.Sprintf("not turned into spans: %d spans lost to failed writes of the spool", res.Lost))
	}
	if end.run == nil {
		end.run = model(pipe, pipe.Dir(), log)
	}
	writeSummary(log, o, end)
	if end.told {
		log.Printf("job %q ended with result %s after %s; trace %s", o.Name, end.result, figure.Duration(end.took), root.TraceID())
	} else {
		log.Printf("job %q exited with code %d after %s; trace %s", o.Name, end.code, figure.Duration(end.took), root.TraceID())
	}
	if res.Lost > 0 {
		log.Printf("%d spans written to %s, %d lost: the spool could not be written", res.Spans, pipe.SpoolPath(), res.Lost)
	} else {
		log.Printf("%d spans written to %s", res.Spans, pipe.SpoolPath())
	}
	if res.Dropped > 0 {
		log.Printf("%d spans not written to the spool: the disk took nothing for %s", res.Dropped, spool.StallTimeout)
	}
	switch {
	case !res.Exported && pipe.Exports() && !sampled:
		log.Printf("the parent trace is not sampled: nothing exported")
	case !res.Exported:
		// No endpoint configured: local artifacts only.
	case res.Pending == 0 && res.Err == nil:
		log.Printf("exported to %s in %s", res.Endpoint, figure.Duration(res.Took))
	default:
		reason := ""
		if res.Err != nil {
			reason = ": " + firstLine(res.Err.Error())
		}
		log.Printf("export to %s incomplete after %s%s; %d spans pending: send them with `jobtrace replay %s`",
			res.Endpoint, figure.Duration(res.Took), reason, res.Pending, pipe.Dir())
	}
	telemetry.ExportNotes(log.Printf, res.Rejected, res.Discarded, res.Uncertain, res.Resent, pipe.SpoolPath())
	switch {
	case res.MetricsErr != nil && res.Interrupted != nil:
		log.Printf("the last metrics were not sent: %v", res.Interrupted)
	case res.MetricsErr != nil:
		log.Warn("metrics were not accepted (OTEL_METRICS_EXPORTER=none turns them off): " + firstLine(res.MetricsErr.Error()))
	}
	log.FlushWarnings()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}
