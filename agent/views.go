package agent

import (
	"fmt"

	"github.com/jobtrace/jobtrace/exporters/profile"
	htmlreport "github.com/jobtrace/jobtrace/exporters/report"
)

// writeViews writes the files made from the spool and the CSV once the job
// has ended: the Firefox Profiler profile, the HTML report and its SVG
// charts. A problem is a warning: the artifacts they are made from are
// there, and `jobtrace profile DIR` and `jobtrace report DIR` make them again.
func writeViews(dir string, log *Logger) {
	warn, err := profile.Write(dir)
	if err != nil {
		log.Warn(fmt.Sprintf("no %s: %v", profile.FileName, err))
	} else if warn != nil {
		log.Warn(fmt.Sprintf("%s: %v", profile.FileName, warn))
	}
	warn, err = htmlreport.Write(dir)
	if err != nil {
		log.Warn(fmt.Sprintf("no report: %v", err))
	} else if warn != nil {
		log.Warn(fmt.Sprintf("report: %v", warn))
	}
}
