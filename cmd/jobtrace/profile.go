package main

import (
	"os"
	"path/filepath"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/render/profile"
	"github.com/jobtrace/jobtrace/runmodel"
	"github.com/jobtrace/jobtrace/supervise"
)

const profileExamples = `  jobtrace profile jobtrace-out
  jobtrace profile ./artifacts/jobtrace-out

Writes DIR/profile.json for the Firefox Profiler from the artifacts of a
run in DIR (spans.otlp.jsonl and resource-usage.csv), so it works on
artifacts downloaded from another machine. Open it at
https://profiler.firefox.com with "Load a profile from file". See
docs/profile.md.
`

func (c *cli) cmdProfile(args []string) error {
	fs := newFlagSet("profile", "jobtrace profile DIR", profileExamples)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("profile: want one DIR (usage: jobtrace profile DIR)")
	}
	dir := fs.Arg(0)
	for _, name := range []string{spool.TracesFile, usagecsv.FileName} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			return usagef("profile: %s: no %s there", dir, name)
		}
	}
	log := supervise.NewLogger(os.Stderr)
	run, warn, err := runmodel.ReadDir(dir)
	if err == nil {
		err = profile.Write(dir, run)
	}
	if warn != nil {
		log.Printf("%s", artifactWarning(warn))
	}
	if err != nil {
		return err
	}
	if run.SkippedSpans > 0 {
		log.Printf("%d spans past the first %d are not in the profile", run.SkippedSpans, spool.MaxReadSpans)
	}
	log.Printf("wrote %s", filepath.Join(dir, profile.FileName))
	return nil
}
