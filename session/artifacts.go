package session

import (
	"fmt"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/render/profile"
	htmlreport "github.com/jobtrace/jobtrace/render/report"
	"github.com/jobtrace/jobtrace/runmodel"
)

// renderArtifacts renders the files made from the model of the run once the job
// has ended: the Firefox Profiler profile, the HTML report and its SVG
// charts. A problem is a warning: the artifacts the model is read from are
// there, and `jobtrace profile DIR` and `jobtrace report DIR` make them again.
func renderArtifacts(dir string, run *runmodel.Run, warn func(string)) {
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
