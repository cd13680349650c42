//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jobtrace/jobtrace/exporters/usagecsv"
)

// TestOutDirRemovedByTheJob: a job that removes the out dir (`git clean
// -ffdx` in a checkout that holds it), or the spool in it (replaced by a
// link, even), loses nothing:
// the spans and the samples written before the removal, those after it,
// and the files rendered at the end are all in the out dir, and one
// warning says what happened. Before, the spool and the CSV were gone with
// the directory, the rendered files could not be written, and the end line
// still said the spans were written there.
func TestOutDirRemovedByTheJob(t *testing.T) {
	for name, rm := range map[string]string{
		"the out dir": "rm -rf jobtrace-out",
		"the spool":   "rm jobtrace-out/spans.otlp.jsonl",
		// A link planted in its place is removed, not followed.
		"the spool, a link in its place": "echo secret > secret && rm jobtrace-out/spans.otlp.jsonl && ln -s ../secret jobtrace-out/spans.otlp.jsonl",
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			r := jt(t, nil, "run", "--summary", "off", "--interval", "50ms", "--", "sh", "-c",
				"jobtrace phase begin before && sleep 0.1 && jobtrace phase end before && "+rm+
					" && jobtrace phase begin after && sleep 0.1 && jobtrace phase end after")
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			if !strings.Contains(r.stderr, "removed") || !strings.Contains(r.stderr, "during the run") {
				t.Errorf("no warning of the removal: %q", r.stderr)
			}
			spans, _ := spansOf(t, r.out)
			for _, want := range []string{"before", "after", "sh"} {
				if spans[want] == nil {
					t.Errorf("span %q missing from the spool", want)
				}
			}
			csv, err := os.ReadFile(filepath.Join(r.out, usagecsv.FileName))
			if err != nil {
				t.Fatal(err)
			}
			rows := strings.Split(strings.TrimSuffix(string(csv), "\n"), "\n")
			phases := map[string]bool{}
			for _, row := range rows[1:] {
				if f := strings.Split(row, ","); len(f) > 3 {
					phases[f[3]] = true
				}
			}
			if !strings.Contains(rows[1], ",start,") || !strings.Contains(rows[len(rows)-1], ",end,") || !phases["before"] || !phases["after"] {
				t.Errorf("the CSV lacks the rows before or after the removal:\n%s", csv)
			}
			if data, err := os.ReadFile(filepath.Join(filepath.Dir(r.out), "secret")); err == nil && string(data) != "secret\n" {
				t.Errorf("the file a link pointed to was written: %q", data)
			}
			for _, f := range []string{"report.html", "usage.svg", "profile.json"} {
				if _, err := os.Stat(filepath.Join(r.out, f)); err != nil {
					t.Errorf("%s not written: %v", f, err)
				}
			}
		})
	}
}
