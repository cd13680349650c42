package main

import (
	"os"
	"path/filepath"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/render/report"
	"github.com/jobtrace/jobtrace/rundiff"
	"github.com/jobtrace/jobtrace/runmodel"
	"github.com/jobtrace/jobtrace/supervise"
)

const reportExamples = `  jobtrace report jobtrace-out
  jobtrace report ./artifacts/jobtrace-out
  jobtrace report --baseline runs/1 runs/2 -- jobtrace-out

Writes DIR/report.html (one self-contained page: the job's result, its
phases as a timeline above charts of CPU, memory, disk IO, network and
pressure stall, and a table of the phases) and DIR/usage.svg (the charts
alone) from the artifacts of a run in DIR (spans.otlp.jsonl and
resource-usage.csv), so it works on artifacts downloaded from another
machine. Open report.html in any browser; it needs no network. With
--baseline (the directories after it, up to --), the report ends with the
comparison of 'jobtrace diff' against those runs (docs/diff.md). See
docs/report.md.
`

func (c *cli) cmdReport(args []string) error {
	bases, rest, err := cutBaselines("report", args)
	if err != nil {
		return err
	}
	fs := newFlagSet("report", "jobtrace report [--baseline DIR... --] DIR", reportExamples)
	fs.Func(baselineFlag, "base runs' directories, several, ended by --: the report compares the run with them", func(string) error { return nil })
	if err := parseFlags(fs, rest); err != nil {
		return err
	}
	if len(bases) > 0 && fs.NArg() == 0 {
		return usagef("report: no run to report on: end the baselines with -- and give the run after it (jobtrace report --baseline D1 D2 -- DIR)")
	}
	if fs.NArg() != 1 {
		return usagef("report: want one DIR (usage: jobtrace report [--baseline DIR... --] DIR)")
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
	baseRuns, err := readRuns("report", bases, log)
	if err != nil {
		return err
	}
	run, warn, err := runmodel.ReadDir(dir)
	if err == nil {
		var opts []report.Option
		if len(baseRuns) > 0 {
			noteOtherJobs(log, "report", bases, baseRuns, dir, run)
			opts = append(opts, report.WithDiff(rundiff.Compare(baseRuns, run), rundiff.Labels{Base: bases, Run: dir}))
		}
		err = report.Write(dir, run, opts...)
	}
	if warn != nil {
		log.Printf("%s", artifactWarning(warn))
	}
	if err != nil {
		return err
	}
	log.Printf("wrote %s and %s", filepath.Join(dir, report.HTMLName), filepath.Join(dir, report.SVGName))
	return nil
}
