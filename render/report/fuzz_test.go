package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
	"github.com/jobtrace/jobtrace/runmodel"
)

// FuzzLoad renders the report of any spool and CSV, as `jobtrace report`
// does from a directory: Load and the writers never panic; every text the
// report shows is clean (cleantext) and within the spans and rows given;
// the HTML has no script element whatever the names hold; usage.svg is
// well-formed XML. Seeds: below and in testdata/fuzz/FuzzLoad (a real
// run's artifacts among them).
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"resourceSpans":[{"resource":{"attributes":[{"key":"host.name","value":{"stringValue":"h\u001b[2J"}}]},"scopeSpans":[{"spans":[`+
		`{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"job","startTimeUnixNano":"1","endTimeUnixNano":"9","attributes":[{"key":"cicd.pipeline.task.name","value":{"stringValue":"job"}}]},`+
		`{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060709","parentSpanId":"0102030405060708","name":"<script>alert(1)</script>","startTimeUnixNano":"18446744073709551615","endTimeUnixNano":"0"}]}]}]}`+"\n"),
		[]byte("time_utc,elapsed_s,reason,phase,job_cpu_pct,job_memory_bytes\n2025-01-01T00:00:00Z,0,start,,NaN,-1\nnot a time,x,y\n"))
	f.Fuzz(func(t *testing.T, spans, rows []byte) {
		defer fuzzcheck.NoHang(spans, rows)()
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, spool.TracesFile), spans, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, usagecsv.FileName), rows, 0o600); err != nil {
			t.Fatal(err)
		}
		run, _, err := runmodel.ReadDir(dir)
		if err != nil {
			return
		}
		d := dataOf(run)
		// Every span is a JSON object, whatever its keys are spelled as
		// (a span without "spanId" is a phase too, and keys may be escaped).
		if len(d.Phases) > bytes.Count(spans, []byte("{")) || len(d.Rows) > bytes.Count(rows, []byte("\n"))+1 {
			t.Fatalf("%d phases and %d rows from %d bytes of spans and %d of rows", len(d.Phases), len(d.Rows), len(spans), len(rows))
		}
		texts := []string{d.Job.Name, d.Job.Result, d.Job.ExitCode, d.Job.Host, d.Job.Service}
		for _, p := range d.Phases {
			texts = append(texts, p.Name, p.Result)
		}
		for _, s := range texts {
			if cleantext.String(s) != s {
				t.Fatalf("the report shows %q, not clean", s)
			}
		}
		var page bytes.Buffer
		if err := writeHTML(&page, d); err != nil {
			t.Fatalf("WriteHTML: %v", err)
		}
		if strings.Contains(strings.ToLower(page.String()), "<script") {
			t.Fatalf("the page has a script element")
		}
		var svg bytes.Buffer
		if err := writeSVG(&svg, d); err != nil {
			t.Fatalf("WriteSVG: %v", err)
		}
		dec := xml.NewDecoder(&svg)
		for {
			if _, err := dec.Token(); err != nil {
				if !errors.Is(err, io.EOF) {
					t.Fatalf("usage.svg is not well-formed XML: %v", err)
				}
				break
			}
		}
	})
}
