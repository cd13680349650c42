package agent

import (
	"fmt"

	"github.com/jobtrace/jobtrace/exporters/profile"
)

// writeViews writes the files made from the spool and the CSV once the job
// has ended: the Firefox Profiler profile. A problem is a warning: the
// artifacts they are made from are there, and `jobtrace profile DIR` makes
// them again.
func writeViews(dir string, log *Logger) {
	warn, err := profile.Write(dir)
	if err != nil {
		log.Warn(fmt.Sprintf("no %s: %v", profile.FileName, err))
	} else if warn != nil {
		log.Warn(fmt.Sprintf("%s: %v", profile.FileName, warn))
	}
}
