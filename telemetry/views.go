package telemetry

import (
	"fmt"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/render/profile"
	htmlreport "github.com/jobtrace/jobtrace/render/report"
	"github.com/jobtrace/jobtrace/runmodel"
)

// WriteViews writes the files made from the spool and the CSV once the job
// has ended: the Firefox Profiler profile, the HTML report and its SVG
// charts. A problem is a warning: the artifacts they are made from are
// there, and `jobtrace profile DIR` and `jobtrace report DIR` make them again.
func WriteViews(dir string, warn func(string)) {
	run, werr, err := runmodel.ReadDir(dir)
	if err != nil {
		warn(fmt.Sprintf("no %s and no report: %v", profile.FileName, err))
		return
	}
	if werr != nil {
		warn(werr.Error())
	}
	if run.SkippedSpans > 0 {
		warn(fmt.Sprintf("%d spans past the first %d are not in the profile or the report", run.SkippedSpans, spool.MaxReadSpans))
	}
	if err := profile.Write(dir, run); err != nil {
		warn(fmt.Sprintf("no %s: %v", profile.FileName, err))
	}
	if err := htmlreport.Write(dir, run); err != nil {
		warn(fmt.Sprintf("no report: %v", err))
	}
}
