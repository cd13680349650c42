package telemetry

import (
	"fmt"
	"sync"

	"github.com/jobtrace/jobtrace/exporters/profile"
	htmlreport "github.com/jobtrace/jobtrace/render/report"
	"github.com/jobtrace/jobtrace/runmodel"
)

// WriteViews writes the files made from the spool and the CSV once the job
// has ended: the Firefox Profiler profile, the HTML report and its SVG
// charts. A problem is a warning: the artifacts they are made from are
// there, and `jobtrace profile DIR` and `jobtrace report DIR` make them again.
//
// Each reads the artifacts itself, and the two are written side by side: most
// of their time is decoding the spool.
func WriteViews(dir string, warn func(string)) {
	var wg sync.WaitGroup
	for _, v := range []struct {
		name  string
		write func(string) (error, error)
	}{
		{profile.FileName, profile.Write},
		{"report", func(dir string) (error, error) {
			run, warn, err := runmodel.ReadDir(dir)
			if err != nil {
				return nil, err
			}
			return warn, htmlreport.Write(dir, run)
		}},
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			werr, err := v.write(dir)
			if err != nil {
				warn(fmt.Sprintf("no %s: %v", v.name, err))
			} else if werr != nil {
				warn(fmt.Sprintf("%s: %v", v.name, werr))
			}
		}()
	}
	wg.Wait()
}
