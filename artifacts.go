package jobtrace

import (
	"os"
	"path/filepath"

	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/render/profile"
	"github.com/jobtrace/jobtrace/render/report"
)

// Artifacts are the files a Task left, to upload. A path is "" when its
// file was not written (UsageCSV, Report, UsageSVG and Profile need
// sampling: see WithInterval).
type Artifacts struct {
	// Dir is the directory they are in: the out directory, or one of its
	// own inside it when another jobtrace was writing there.
	Dir string
	// Spans are the task's spans as OTLP JSON lines, for
	// `jobtrace replay` and `jobtrace report`.
	Spans string
	// UsageCSV is one row of resource usage per sample (docs/csv.md).
	UsageCSV string
	// Report and UsageSVG are the HTML report and its charts.
	Report, UsageSVG string
	// Profile is the Firefox Profiler profile (docs/profile.md).
	Profile string
	// TraceID is the task's trace.
	TraceID trace.TraceID
}

// artifactsIn are the artifacts found in dir.
func artifactsIn(dir string) Artifacts {
	a := Artifacts{Dir: dir}
	if dir == "" {
		return a
	}
	for _, f := range []struct {
		name string
		path *string
	}{
		{spool.TracesFile, &a.Spans}, {usagecsv.FileName, &a.UsageCSV},
		{report.HTMLName, &a.Report}, {report.SVGName, &a.UsageSVG}, {profile.FileName, &a.Profile},
	} {
		p := filepath.Join(dir, f.name)
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() {
			*f.path = p
		}
	}
	return a
}

// Paths are the paths of the files written, in the order of the fields.
func (a Artifacts) Paths() []string {
	var out []string
	for _, p := range []string{a.Spans, a.UsageCSV, a.Report, a.UsageSVG, a.Profile} {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
