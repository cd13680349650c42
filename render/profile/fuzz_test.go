package profile

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
	"github.com/jobtrace/jobtrace/runmodel"
)

// FuzzReadDir builds the profile of any spool and CSV, as `jobtrace
// profile` does from a directory: reading and building never panic, the
// rows are within the CSV's lines, and the profile is valid JSON of a size
// linear in the input. Seeds: below and in testdata/fuzz/FuzzReadDir (a
// real run's artifacts among them).
func FuzzReadDir(f *testing.F) {
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
		if len(run.Rows) > bytes.Count(rows, []byte("\n"))+1 {
			t.Fatalf("%d rows from %d lines", len(run.Rows), bytes.Count(rows, []byte("\n"))+1)
		}
		p, err := Build(run)
		if err != nil {
			return
		}
		out := filepath.Join(dir, "profile.json")
		if err := WriteFile(out, p); err != nil {
			t.Fatalf("WriteFile: %v", err)
		}
		data, err := os.ReadFile(out)
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
