package main

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/render/report"
	"github.com/jobtrace/jobtrace/runmodel"
	"github.com/jobtrace/jobtrace/supervise"
)

const reportExamples = `  jobtrace report jobtrace-out
  jobtrace report ./artifacts/jobtrace-out

Writes DIR/report.html (one self-contained page: the job's result, its
phases as a timeline above charts of CPU, memory, disk IO, network and
pressure stall, and a table of the phases) and DIR/usage.svg (the charts
alone) from the artifacts of a run in DIR (spans.otlp.jsonl and
resource-usage.csv), so it works on artifacts downloaded from another
machine. Open report.html in any browser; it needs no network. See
docs/report.md.
`

func (c *cli) cmdReport(args []string) error {
	fs := newFlagSet("report", "jobtrace report DIR", reportExamples)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("report: want one DIR (usage: jobtrace report DIR)")
	}
	dir := fs.Arg(0)
	found := false
	for _, name := range []string{spool.TracesFile, usagecsv.FileName} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			found = true
		}
	}
	if !found {
		return usagef("report: %s: no %s or %s there", dir, spool.TracesFile, usagecsv.FileName)
	}
	log := supervise.NewLogger(os.Stderr)
	run, warn, err := runmodel.ReadDir(dir)
	if err == nil {
		err = report.Write(dir, run)
	}
	if warn != nil {
		msg := warn.Error()
		log.Printf("skipped %d unreadable lines of the artifacts (first: %s)", strings.Count(msg, "\n")+1, firstLine(msg))
	}
	if err != nil {
		return err
	}
	log.Printf("wrote %s and %s", filepath.Join(dir, report.HTMLName), filepath.Join(dir, report.SVGName))
	return nil
}
