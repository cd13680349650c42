package runmodel

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/internal/regularfile"
)

// ReadDir builds the model of the run whose artifacts are in dir: the
// spans of spans.otlp.jsonl (at most spool.MaxReadSpans and their
// ancestors, decoded once, as pdata) and the rows of resource-usage.csv
// (usagecsv.Decoder). Both must be regular files; a symbolic link is
// followed only while it stays inside dir (regularfile.OpenIn), so a
// directory from elsewhere cannot make jobtrace read /etc/passwd or
// /dev/zero, or block on a FIFO. It needs at least one of the two; when both are
// missing the error wraps fs.ErrNotExist. A spool that cannot be read at
// all (not a regular file, a read error) is an error. Lines and rows that
// could not be read, and a CSV that could not be opened, are reported in
// warn, joined, and the rest is returned.
func ReadDir(dir string) (run *Run, warn error, err error) {
	var warns []error
	spoolPath := filepath.Join(dir, spool.TracesFile)
	var spans []Span
	skipped, spanErr := readSpans(spoolPath, &spans)
	missingSpool := errors.Is(spanErr, os.ErrNotExist)
	switch {
	case missingSpool:
	case spanErr != nil && len(spool.LineErrors(spanErr)) == 0:
		return nil, nil, spanErr
	case spanErr != nil:
		warns = append(warns, spanErr)
	}
	rows, csvErr := readRowsFile(filepath.Join(dir, usagecsv.FileName))
	missingCSV := errors.Is(csvErr, os.ErrNotExist)
	if csvErr != nil && !missingCSV {
		warns = append(warns, csvErr)
	}
	if missingSpool && missingCSV {
		return nil, nil, fmt.Errorf("%s: no %s and no %s: %w", dir, spool.TracesFile, usagecsv.FileName, os.ErrNotExist)
	}
	run = New(spans, rows)
	run.SkippedSpans = skipped
	return run, errors.Join(warns...), nil
}

// readSpans appends the spans of the spool at path to spans.
func readSpans(path string, spans *[]Span) (skipped int, err error) {
	var lastRes pcommon.Resource
	var res []attribute.KeyValue
	return spool.ReadSpans(path, spool.MaxReadSpans, func(r pcommon.Resource, s ptrace.Span) {
		if r != lastRes {
			lastRes, res = r, attrsOf(r.Attributes())
		}
		*spans = append(*spans, fromPData(s, res))
	})
}

// readRowsFile reads the rows of the CSV at path, at most
// usagecsv.MaxLineBytes a line. A missing file is an error wrapping
// fs.ErrNotExist.
func readRowsFile(path string) ([]Row, error) {
	f, err := regularfile.OpenIn(filepath.Dir(path), filepath.Base(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", usagecsv.FileName, err)
	}
	defer f.Close()
	return readRows(regularfile.LimitLines(f, usagecsv.MaxLineBytes))
}
