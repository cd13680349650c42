package agent

import (
	"fmt"
	"sync"

	"github.com/jobtrace/jobtrace/exporters/profile"
	htmlreport "github.com/jobtrace/jobtrace/exporters/report"
)

// writeViews writes the files made from the spool and the CSV once the job
// has ended: the Firefox Profiler profile, the HTML report and its SVG
// charts. A problem is a warning: the artifacts they are made from are
// there, and `jobtrace profile DIR` and `jobtrace report DIR` make them again.
//
// Each reads the artifacts itself, and the two are written side by side: most
// of their time is decoding the spool.
func writeViews(dir string, log *Logger) {
	var wg sync.WaitGroup
	for _, v := range []struct {
		name  string
		write func(string) (error, error)
	}{
		{profile.FileName, profile.Write},
		{"report", htmlreport.Write},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			warn, err := v.write(dir)
			if err != nil {
				log.Warn(fmt.Sprintf("no %s: %v", v.name, err))
			} else if warn != nil {
				log.Warn(fmt.Sprintf("%s: %v", v.name, warn))
			}
		}()
	}
	wg.Wait()
}
