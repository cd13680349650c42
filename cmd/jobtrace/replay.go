package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/jobtrace/jobtrace/config"
	"github.com/jobtrace/jobtrace/exporters/forward"
	"github.com/jobtrace/jobtrace/exporters/otlp"
	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/internal/regularfile"
	"github.com/jobtrace/jobtrace/supervise"
	"github.com/jobtrace/jobtrace/telemetry"
)

const replayExamples = `  OTEL_EXPORTER_OTLP_ENDPOINT=http://collector:4318 jobtrace replay jobtrace-out
  jobtrace replay --endpoint http://localhost:4318 --all ./artifacts/jobtrace-out

Sends the spans in DIR/spans.otlp.jsonl that were not delivered yet (all of
them with --all) with the same OTEL_* settings as 'jobtrace run', and
records what was delivered in DIR/spans.otlp.jsonl.sent, so a second replay
does not send them again. Spans the collector rejects as invalid are kept in
DIR/spans.otlp.jsonl.rejected and the rest go on. Exits 1 if any span could
not be delivered.
`

func (c *cli) cmdReplay(args []string) error {
	fs := newFlagSet("replay", "jobtrace replay [flags] DIR", replayExamples)
	all := fs.Bool("all", false, "send every span again, not only those not delivered yet")
	fl := config.BindFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("replay: want one DIR (usage: jobtrace replay [flags] DIR)")
	}
	dir := fs.Arg(0)
	f, err := regularfile.OpenIn(dir, spool.TracesFile)
	if errors.Is(err, os.ErrNotExist) {
		return usagef("replay: %s: no %s there", dir, spool.TracesFile)
	}
	if err != nil {
		return usagef("replay: %s: %v", filepath.Join(dir, spool.TracesFile), err)
	}
	f.Close()
	s, err := c.loadSettings(fl)
	if err != nil {
		return err
	}
	exp := s.exportSettings()
	if exp.Traces == nil {
		why := "no collector configured: set OTEL_EXPORTER_OTLP_ENDPOINT or --endpoint"
		switch {
		case s.cfg.SDKDisabled:
			why = "the export is turned off (sdk_disabled, OTEL_SDK_DISABLED)"
		case s.cfg.TracesExporter == otlp.ExporterNone:
			why = "the export of traces is turned off (traces_exporter, OTEL_TRACES_EXPORTER=none)"
		}
		return usagef("replay: %s", why)
	}
	log := supervise.NewLogger(os.Stderr)
	res, err := replayDir(dir, exp.Traces, *all, log)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	log.Printf("sent %d spans to %s; %d pending", res.Sent, exp.Traces, res.Pending)
	telemetry.ExportNotes(log.Printf, res.Rejected, res.Discarded, res.Uncertain, res.Resent, filepath.Join(dir, spool.TracesFile))
	if res.Err != nil || res.Pending > 0 {
		reason := ""
		if res.Err != nil {
			reason = ": " + firstLine(res.Err.Error())
		}
		return fmt.Errorf("replay incomplete%s", reason)
	}
	if res.Rejected > 0 {
		return fmt.Errorf("replay incomplete: %d spans rejected by the collector", res.Rejected)
	}
	return nil
}

// replayDir sends the spans of dir's spool that were not delivered yet
// (all of them with all) to the collector of exp, under dir's lock, and
// records what was delivered: `jobtrace replay`, and `jobtrace stop` after
// an agent that was killed.
func replayDir(dir string, exp *otlp.Endpoint, all bool, log *supervise.Logger) (forward.Result, error) {
	unlock, err := telemetry.LockDir(dir)
	if err != nil {
		return forward.Result{}, fmt.Errorf("%s: %v; replay it when that has ended", dir, err)
	}
	defer unlock()
	otlp.RouteErrors(log.Warn)
	client, err := otlp.NewTraceClient(exp)
	if err != nil {
		return forward.Result{}, err
	}
	return forward.Replay(context.Background(), dir, client, all, forward.Options{Timeout: exp.Timeout, Warn: log.Warn}), nil
}
