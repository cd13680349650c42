package session

import (
	"fmt"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/internal/stackhint"
	"github.com/jobtrace/jobtrace/render/profile"
	htmlreport "github.com/jobtrace/jobtrace/render/report"
	"github.com/jobtrace/jobtrace/runmodel"
)

// renderArtifacts renders the files made from the model of the run once the job
// has ended: the Firefox Profiler profile, the HTML report and its SVG
// charts. The profile is rendered in a goroutine of its own, beside the
// report (both only read the model), and renderArtifacts returns once both
// are written. A problem is a warning: the artifacts the model is read from
// are there, and `jobtrace profile DIR` and `jobtrace report DIR` make them
// again.
func renderArtifacts(dir string, run *runmodel.Run, warn func(string)) {
	if run.SkippedSpans > 0 {
		warn(fmt.Sprintf("%d spans past the first %d are not in the profile or the report", run.SkippedSpans, spool.MaxReadSpans))
	}
	profiled := make(chan error, 1)
	go func() { stackhint.Grow(); profiled <- profile.Write(dir, run) }()
	reportErr := htmlreport.Write(dir, run)
	if err := <-profiled; err != nil {
		warn(fmt.Sprintf("no %s: %v", profile.FileName, err))
	}
	if reportErr != nil {
		// Each line names the file that was not written ("report: write
		// PATH: ..."): report.html and usage.svg are written one after the
		// other, and one may be there without the other.
		warn(reportErr.Error())
	}
}
