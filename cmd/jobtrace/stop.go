package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"

	"github.com/jobtrace/jobtrace/agent/background"
	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/internal/regularfile"
	"github.com/jobtrace/jobtrace/session"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/supervise"
	"github.com/jobtrace/jobtrace/telemetry"
)

const stopExamples = `  jobtrace stop
  jobtrace stop --result "${{ job.status }}"        # GitHub Actions, in a step with if: always()
  jobtrace stop --result "$CI_JOB_STATUS"           # GitLab after_script
  jobtrace stop --result "$BUILDKITE_COMMAND_EXIT_STATUS"
  jobtrace stop --github-steps                      # GitHub Actions: every step a phase (what the action's post step runs)

Ends the job that 'jobtrace start' began: the agent ends the job's span with
RESULT, takes the last sample, writes every artifact, exports within the
export timeout and writes the summary, which stop prints (and appends to
$GITHUB_STEP_SUMMARY when that is set); stop returns when the agent is done.
The agent is found by $JOBTRACE_SOCKET, else by the state file in the out
directory (--out, else the configuration's, jobtrace-out by default).

Exit status: 0 when the agent wrote every artifact and delivered what it
had to; 3 when spans could not be delivered to the collector (they are in
the spool: 'jobtrace replay DIR'); 1 when no agent runs for the directory,
or it was gone (killed): stop then renders what the agent had written.
See docs/steps.md.
`

// resultWords are the results `jobtrace stop --result` takes: the
// OpenTelemetry values and the words of the CI systems' job status.
var resultWords = map[string]string{
	"success": protocol.ResultSuccess, "passed": protocol.ResultSuccess,
	"failure": protocol.ResultFailure, "failed": protocol.ResultFailure,
	"error":   protocol.ResultError,
	"timeout": protocol.ResultTimeout, "timedout": protocol.ResultTimeout,
	"cancellation": protocol.ResultCancellation, "cancelled": protocol.ResultCancellation, "canceled": protocol.ResultCancellation,
	"skip": protocol.ResultSkip, "skipped": protocol.ResultSkip,
}

// stopResult turns --result into the job's result and the attributes
// that go with it: a number is an exit code, judged as a job's is (one
// outside 0–255, such as Buildkite's -1 for a command that a signal ended
// or that could not start, is a failure). A word it does not know ends
// the job all the same, with the result error, and a warning that says so:
// a stop that the job's end cannot be told from must not leave it running.
func stopResult(s string) (result string, attrs []attribute.KeyValue, warning string) {
	if r, ok := resultWords[s]; ok {
		return r, nil, ""
	}
	if code, err := strconv.Atoi(s); err == nil {
		r := session.ResultOf(code, nil)
		if code < 0 || code > 255 {
			r = protocol.ResultFailure
		}
		return r, []attribute.KeyValue{semconv.ProcessExitCode(code)}, ""
	}
	return protocol.ResultError, nil, fmt.Sprintf("--result %q is none of success, failure, error, timeout, cancelled, skipped (or GitLab's failed, canceled) nor an exit code: the job ends with the result error", s)
}

func (c *cli) cmdStop(args []string) error {
	fs := newFlagSet("stop", "jobtrace stop [flags]", stopExamples)
	outFlag := fs.String("out", "", "the out `dir` of the agent (default: the one of $JOBTRACE_SOCKET, else the configuration's)")
	result := fs.String("result", "success", "the job's `result`: success, failure, error, timeout, cancelled, skipped, or an exit code")
	var attrs attrFlag
	fs.Var(&attrs, "attr", "attribute `key=value` of the job (repeatable)")
	githubSteps := fs.Bool("github-steps", false, "first make the completed steps of the GitHub Actions job phases of it, read from the REST API with $GITHUB_TOKEN; the job's result is theirs unless --result is given (docs/github-actions.md)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	resultGiven := false
	fs.Visit(func(f *flag.Flag) { resultGiven = resultGiven || f.Name == "result" })
	if fs.NArg() > 0 {
		return usagef("stop: unexpected argument %q", fs.Arg(0))
	}
	res, resAttrs, warning := stopResult(*result)
	if warning != "" {
		supervise.NewLogger(os.Stderr).Warn("stop: " + warning)
	}
	out := *outFlag
	if out == "" {
		out = background.OutOfSocket(c.getenv(session.EnvSocket))
	}
	if out == "" {
		s, err := c.loadLocalSettings(nil)
		if err != nil {
			return err
		}
		out = s.cfg.Out
	}
	st, err := background.ReadState(out)
	if err != nil {
		return err
	}
	if st.End != nil {
		return fmt.Errorf("stop: no agent runs for %s: the last one (pid %d) ended at %s (%s, result %s); its artifacts are in %s",
			st.Out, st.Pid, st.End.At.Format(time.RFC3339), st.End.Reason, st.End.Result, st.End.Dir)
	}
	offset := fileSize(st.Log)
	if !background.Alive(st.Out) {
		return c.agentGone(st)
	}
	if *githubSteps {
		log := supervise.NewLogger(os.Stderr)
		r := c.githubSteps(context.Background(), st.Socket, log.Warn, func(s string) { log.Printf("%s", s) })
		if r != "" && !resultGiven {
			res, resAttrs = r, nil
		}
	}
	if err := background.SendStop(st, res, append(resAttrs, attrs...)); err != nil {
		if !background.Alive(st.Out) {
			return c.agentGone(st)
		}
		// Its socket is closed while it ends by itself (idle, the watched
		// process gone): what it writes is waited for all the same.
		supervise.NewLogger(os.Stderr).Printf("the %s did not take the stop (%v): it is ending by itself", st, err)
	}
	wait := time.Duration(st.ExportTimeout) + background.StopMargin
	if !background.Wait(st.Out, wait) {
		return fmt.Errorf("stop: the %s has not ended %s after it was asked to; its log is %s", st, wait, st.Log)
	}
	copyFrom(os.Stderr, st.Log, offset)
	end, err := background.ReadState(st.Out)
	if err != nil || end.End == nil {
		return c.agentGone(st)
	}
	if path := c.getenv(session.EnvStepSummary); path != "" {
		if err := appendFrom(path, filepath.Join(st.Out, background.SummaryFile)); err != nil {
			supervise.NewLogger(os.Stderr).Warn(fmt.Sprintf("summary not written to %s: %v", session.EnvStepSummary, err))
		}
	}
	return exitWith(end.End.Code)
}

// agentGone says that the agent of st ended without recording how (it was
// killed), renders what it had written, and returns the exit status.
func (c *cli) agentGone(st background.State) error {
	log := supervise.NewLogger(os.Stderr)
	seen := lastSeen(st)
	log.Printf("the %s is gone: killed or crashed, it was last seen at %s (its last write). %s holds the spans it wrote so far, %s its samples (the job's own span is not there: the agent never ended it); rendering them as `jobtrace report %s` does",
		st, seen.Format(time.RFC3339), filepath.Join(st.Out, spool.TracesFile), filepath.Join(st.Out, usagecsv.FileName), st.Out)
	if err := c.cmdReport([]string{st.Out}); err != nil {
		log.Warn(err.Error())
	}
	if err := c.cmdProfile([]string{st.Out}); err != nil {
		log.Warn(err.Error())
	}
	if err := background.Gone(st, seen); err != nil {
		log.Warn(err.Error())
	}
	c.sendUndelivered(st.Out, log)
	return exitWith(1)
}

// sendUndelivered sends the spans of the spool in dir that a killed agent
// had not delivered (spans.otlp.jsonl.sent says how far it had) to the
// collector this step's settings name, as `jobtrace replay` does: the spans
// it wrote just before it was killed are delivered all the same. Without a
// collector configured, the spool is the record and nothing is said.
func (c *cli) sendUndelivered(dir string, log *supervise.Logger) {
	s, err := c.loadSettings(nil)
	if err != nil {
		log.Warn(fmt.Sprintf("the spans it had not delivered stay in %s (the settings: %v): send them with `jobtrace replay %s`", filepath.Join(dir, spool.TracesFile), err, dir))
		return
	}
	exp := s.exportSettings()
	if exp.Traces == nil {
		return
	}
	res, err := replayDir(dir, exp.Traces, false, log)
	switch {
	case err != nil:
		log.Warn(fmt.Sprintf("the spans it had not delivered stay in %s (%v): send them with `jobtrace replay %s`", filepath.Join(dir, spool.TracesFile), err, dir))
	case res.Err != nil || res.Pending > 0:
		reason := ""
		if res.Err != nil {
			reason = ": " + firstLine(res.Err.Error())
		}
		log.Warn(fmt.Sprintf("sent %d spans it had not delivered to %s, %d still pending in %s%s: send them with `jobtrace replay %s`", res.Sent, exp.Traces, res.Pending, filepath.Join(dir, spool.TracesFile), reason, dir))
	default:
		log.Printf("sent %d spans it had not delivered to %s", res.Sent, exp.Traces)
	}
	telemetry.ExportNotes(log.Printf, res.Rejected, res.Discarded, res.Uncertain, res.Resent, filepath.Join(dir, spool.TracesFile))
}

// lastSeen is the last time the agent of st wrote to its artifacts (a
// sample, a span), its state file or its log.
func lastSeen(st background.State) time.Time {
	seen := st.Started
	for _, p := range []string{filepath.Join(st.Out, usagecsv.FileName), filepath.Join(st.Out, spool.TracesFile), st.Log} {
		if fi, err := os.Stat(p); err == nil && fi.ModTime().After(seen) {
			seen = fi.ModTime()
		}
	}
	return seen
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// copyFrom copies the file at path, from offset on, to w.
func copyFrom(w io.Writer, path string, offset int64) {
	f, err := regularfile.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	if _, err := f.Seek(offset, io.SeekStart); err == nil {
		_, _ = io.Copy(w, f)
	}
}

// maxSummaryBytes bounds the summary read back: a few kilobytes for a
// job of a hundred phases.
const maxSummaryBytes = 1 << 20

// appendFrom appends the file at from to the file at path.
func appendFrom(path, from string) error {
	data, err := regularfile.Read(from, maxSummaryBytes)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return appendFile(path, string(data))
}
