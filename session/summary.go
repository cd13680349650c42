package session

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/jobtrace/jobtrace/config"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/internal/safefile"
	"github.com/jobtrace/jobtrace/render/summary"
	"github.com/jobtrace/jobtrace/runmodel"
	"github.com/jobtrace/jobtrace/telemetry"
)

// EnvStepSummary is the file GitHub Actions shows as the step's summary;
// the summary is appended to it as Markdown.
const EnvStepSummary = "GITHUB_STEP_SUMMARY"

// jobEnd is how the job ended, for the summary; what it cost is in the
// model of the run, on the job's span.
type jobEnd struct {
	code   int
	result string
	told   bool // the result was told (Outcome.Result), not judged from code
	took   time.Duration
	notes  []string
	// run is the model of the run, which the summary renders.
	run *runmodel.Run
}

// writeSummary prints the end-of-job summary on jobtrace's log, as text or
// Markdown, and appends it as Markdown to $GITHUB_STEP_SUMMARY when the job
// runs in GitHub Actions.
func writeSummary(log Logger, o Settings, end jobEnd) {
	if o.Summary == config.SummaryOff {
		return
	}
	sum := summary.Build(end.run, summary.JobInfo{
		Name: o.Name, ExitCode: end.code, Result: end.result, Duration: end.took,
		Notes: end.notes,
	})
	var b bytes.Buffer
	if o.Summary == config.SummaryMarkdown {
		summary.WriteMarkdown(&b, sum)
	} else {
		summary.WriteText(&b, sum)
	}
	log.Block(b.Bytes())
	if path := envValue(o.Env, EnvStepSummary); path != "" {
		b.Reset()
		summary.WriteMarkdown(&b, sum)
		b.WriteByte('\n')
		f, err := safefile.OpenLog(path, 0o644)
		if err == nil {
			_, err = f.Write(b.Bytes())
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
		if err != nil {
			log.Warn(fmt.Sprintf("summary not written to %s: %v", EnvStepSummary, err))
		}
	}
}

// envValue returns the value of key in env (KEY=value entries); the last
// entry wins, as in os/exec.
func envValue(env []string, key string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// model builds the model of the run from what it holds: the spans as they
// ended and the CSV's rows as written (runmodel.Recorder).
func model(pipe *telemetry.Pipeline, dir string, log Logger) *runmodel.Run {
	rec := pipe.Recorder()
	if rec.RowsPastBound() {
		log.Printf("more than %d rows of resource usage, more than are held in memory: read back from %s", runmodel.MaxHeldRows, usagecsv.FileName)
	}
	run, err := rec.Run(dir)
	if err != nil {
		log.Warn(fmt.Sprintf("resource usage rows: %v", err))
	}
	return run
}
