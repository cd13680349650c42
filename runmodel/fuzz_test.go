package runmodel_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
	"github.com/jobtrace/jobtrace/render/profile"
	"github.com/jobtrace/jobtrace/render/report"
	"github.com/jobtrace/jobtrace/runmodel"
)

// FuzzReadDir reads any spool and CSV through the one reader, as `jobtrace
// report` and `jobtrace profile` do from a directory, and renders the
// report and the profile of what it read: reading and rendering never
// panic; the model holds no more phases than the spool has JSON objects
// (a span without "spanId" is a phase too, and keys may be escaped) and no
// more rows than the CSV has lines; every text in it is clean (cleantext);
// the HTML has the crosshair's two script elements and no other whatever
// the names hold, its data valid JSON; usage.svg is
// well-formed XML; profile.json is valid JSON of a size linear in the
// input. Seeds: below and in testdata/fuzz/FuzzReadDir (a real run's
// artifacts among them).
func FuzzReadDir(f *testing.F) {
	f.Add([]byte(`{"resourceSpans":[{"resource":{"attributes":[{"key":"host.name","value":{"stringValue":"h\u001b[2J"}}]},"scopeSpans":[{"spans":[`+
		`{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"job","startTimeUnixNano":"1","endTimeUnixNano":"9","attributes":[{"key":"cicd.pipeline.task.name","value":{"stringValue":"job"}}]},`+
		`{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060709","parentSpanId":"0102030405060708","name":"<script>alert(1)</script>","startTimeUnixNano":"18446744073709551615","endTimeUnixNano":"0"}]}]}]}`+"\n"),
		[]byte("time_utc,elapsed_s,reason,phase,job_cpu_pct,job_memory_bytes\n2025-01-01T00:00:00Z,0,start,,NaN,-1\nnot a time,x,y\n"))
	f.Add([]byte(`{"resourceSpans":[{"scopeSpans":[{"spans":[`+
		`{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"job","startTimeUnixNano":"5","endTimeUnixNano":"1"},`+
		`{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060709","parentSpanId":"0102030405060709","name":"self"}]}]}]}`+"\n"),
		[]byte("time_utc,elapsed_s,reason,phase,job_cpu_user_s,job_cpu_system_s,job_memory_bytes\n2025-01-01T00:00:00Z,0,start,,1e308,1e308,-5\n2025-01-01T00:00:00Z,0,end,self\n"))
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
		if len(run.Phases) > bytes.Count(spans, []byte("{")) || len(run.Rows) > bytes.Count(rows, []byte("\n"))+1 {
			t.Fatalf("%d phases and %d rows from %d bytes of spans and %d of rows", len(run.Phases), len(run.Rows), len(spans), len(rows))
		}
		checkClean(t, run)

		var page bytes.Buffer
		if err := report.WriteHTML(&page, run); err != nil {
			t.Fatalf("WriteHTML: %v", err)
		}
		// The page's scripts are the crosshair's two: its data, which
		// must stay JSON, and its code; no name ends one or opens a
		// comment.
		h := strings.ToLower(page.String())
		if strings.Count(h, "<script") != 2 || strings.Count(h, "</script") != 2 || strings.Contains(h, "<!--") {
			t.Fatalf("the page has %d script elements, %d ends, want 2: a name ends one", strings.Count(h, "<script"), strings.Count(h, "</script"))
		}
		island := page.String()[strings.Index(page.String(), `id="xh-data">`)+len(`id="xh-data">`):]
		if !json.Valid([]byte(island[:strings.Index(island, "</script>")])) {
			t.Fatalf("the crosshair's data is not JSON")
		}
		var svg bytes.Buffer
		if err := report.WriteSVG(&svg, run); err != nil {
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

		if err := profile.Write(dir, run); err != nil {
			if errors.Is(err, profile.ErrEmpty) {
				return
			}
			t.Fatalf("profile: %v", err)
		}
		data, err := os.ReadFile(filepath.Join(dir, profile.FileName))
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(data) {
			t.Fatalf("profile.json is not valid JSON")
		}
		if limit := 64<<10 + 64*(len(spans)+len(rows)); len(data) > limit {
			t.Fatalf("profile.json of %d bytes from %d bytes of artifacts", len(data), len(spans)+len(rows))
		}
	})
}

// checkClean fails when a text of the model is not clean (cleantext).
func checkClean(t *testing.T, run *runmodel.Run) {
	t.Helper()
	check := func(s string) {
		if cleantext.String(s) != s {
			t.Fatalf("the model holds %q, not clean", s)
		}
	}
	attrs := func(kvs []attribute.KeyValue) {
		for _, kv := range kvs {
			check(string(kv.Key))
			check(runmodel.Text(kv.Value))
		}
	}
	attrs(run.Resource)
	for _, s := range append([]runmodel.Span{run.Job}, run.Phases...) {
		check(s.Name)
		check(s.Status)
		check(s.ParentName)
		attrs(s.Attributes)
		for _, e := range s.Events {
			check(e.Name)
			attrs(e.Attributes)
		}
	}
}
