//go:build unix

package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The summary goes to stderr as text by default, as Markdown with
// --summary markdown, nowhere with off; in GitHub Actions the Markdown is
// appended to $GITHUB_STEP_SUMMARY unless the summary is off.
func TestSummaryForms(t *testing.T) {
	job := `echo "::group::build"; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; echo "::endgroup::"`
	for _, tc := range []struct {
		flag        string
		text, table bool // on stderr
		step        bool // in GITHUB_STEP_SUMMARY
	}{
		{"", true, false, true},
		{"--summary=text", true, false, true},
		{"--summary=markdown", false, true, true},
		{"--summary=off", false, false, false},
	} {
		t.Run(strings.TrimPrefix(tc.flag, "--summary="), func(t *testing.T) {
			step := filepath.Join(t.TempDir(), "step-summary.md")
			if err := os.WriteFile(step, []byte("earlier step\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"run", "--interval", "100ms"}
			if tc.flag != "" {
				args = append(args, tc.flag)
			}
			r := jt(t, []string{"GITHUB_STEP_SUMMARY=" + step}, append(args, "--", "sh", "-c", job)...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			hasText := strings.Contains(r.stderr, "jobtrace:   build ")
			hasTable := strings.Contains(r.stderr, "| build |")
			if hasText != tc.text || hasTable != tc.table {
				t.Errorf("stderr has text table %v (want %v), markdown table %v (want %v):\n%s", hasText, tc.text, hasTable, tc.table, r.stderr)
			}
			data, _ := os.ReadFile(step)
			if !strings.HasPrefix(string(data), "earlier step\n") {
				t.Errorf("GITHUB_STEP_SUMMARY lost what was there: %q", data)
			}
			if got := strings.Contains(string(data), "| build |"); got != tc.step {
				t.Errorf("GITHUB_STEP_SUMMARY has the phase table: %v, want %v:\n%s", got, tc.step, data)
			}
		})
	}
}

// The CSV is there at the end of a run, every row has the header's columns,
// and the phase's rows name it.
func TestResourceCSV(t *testing.T) {
	// The phase lasts until three interval samples were written in it
	// (at most a minute), however late a loaded machine takes them.
	r := jt(t, nil, "run", "--interval", "50ms", "--summary=off", "--", "sh", "-c", `echo "BEGIN_PHASE work"
i=0; until [ "$(grep -c ',interval,work,' jobtrace-out/resource-usage.csv)" -ge 3 ] || [ $i -ge 1200 ]; do sleep 0.05; i=$((i+1)); done
echo "END_PHASE work"`)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	f, err := os.Open(filepath.Join(r.out, "resource-usage.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) < 5 {
		t.Fatalf("%d rows for a job with a phase of three samples", len(rows))
	}
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	reasons := map[string]int{}
	inWork := 0
	for _, row := range rows[1:] {
		reasons[row[col["reason"]]]++
		if row[col["phase"]] == "work" {
			inWork++
		}
	}
	if reasons["start"] != 1 || reasons["end"] != 1 || reasons["boundary"] < 2 || reasons["interval"] < 3 {
		t.Errorf("row reasons %v", reasons)
	}
	if inWork < 3 {
		t.Errorf("%d rows in the phase", inWork)
	}
	// The profile is made from the spool and the CSV at the end of the run.
	data, err := os.ReadFile(filepath.Join(r.out, "profile.json"))
	if err != nil {
		t.Fatal(err)
	}
	var prof struct {
		Meta    map[string]any `json:"meta"`
		Threads []struct {
			Markers struct {
				Length int `json:"length"`
			} `json:"markers"`
		} `json:"threads"`
	}
	if err := json.Unmarshal(data, &prof); err != nil {
		t.Fatal(err)
	}
	if len(prof.Threads) != 1 || prof.Threads[0].Markers.Length < 2 {
		t.Errorf("profile.json has %d threads, markers %+v: want the job and its phase", len(prof.Threads), prof.Threads)
	}
}

// With --interval 0 nothing is sampled: no CSV, no usage attributes.
func TestSamplingOff(t *testing.T) {
	r := jt(t, nil, "run", "--interval", "0", "--summary=off", "--", "sh", "-c", `echo "BEGIN_PHASE work"; echo "END_PHASE work"`)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(r.out, "resource-usage.csv")); err == nil {
		t.Error("a CSV with sampling off")
	}
	spans, _ := spansOf(t, r.out)
	if spans["work"] == nil {
		t.Fatal("no span for the phase")
	}
	for _, kv := range spans["work"].GetAttributes() {
		if strings.HasPrefix(kv.Key, "jobtrace.usage.") {
			t.Errorf("usage attribute %s with sampling off", kv.Key)
		}
	}
}
