//go:build unix

package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/creack/pty"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/insight/verdict"
	"github.com/jobtrace/jobtrace/runmodel"
	"github.com/jobtrace/jobtrace/supervise"
)

// diffFixture is a real run's artifacts, and its twin run with a CPU hog
// beside it (rundiff's testdata).
func diffFixture(t *testing.T, name string) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "rundiff", "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestDiffCommand(t *testing.T) {
	base, slow := diffFixture(t, "base"), diffFixture(t, "slow")

	r := jt(t, nil, "diff", base, slow)
	if r.code != 0 || !strings.Contains(r.stdout, "compile") || !strings.Contains(r.stdout, "slowed by neighbours") {
		t.Errorf("diff: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("text:\n%s", r.stdout)

	r = jt(t, nil, "diff", "--format", "markdown", base, slow)
	if r.code != 0 || !strings.Contains(r.stdout, "| phase | duration |") {
		t.Errorf("markdown: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("markdown:\n%s", r.stdout)

	r = jt(t, nil, "diff", "--format", "json", base, slow)
	var out struct {
		Job    struct{ Status, Cause string }
		Phases []struct{ Name, Status string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 0 || out.Job.Status != "slower" || len(out.Phases) == 0 {
		t.Errorf("json: exit %d, %v, %+v\n%s", r.code, err, out, r.stderr)
	}

	// Several baselines: their median, and the run outside their spread.
	r = jt(t, nil, "diff", "--baseline", base, base, "--", slow)
	if r.code != 0 || !strings.Contains(r.stdout, "the median of 2 base runs") {
		t.Errorf("--baseline: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = jt(t, nil, "diff", "--baseline", base, "--baseline="+base, "--format", "markdown", "--", slow)
	if r.code != 0 || !strings.Contains(r.stdout, "base spread") {
		t.Errorf("--baseline twice: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// --fail-if-slower: exit 1 and say which, when the job (+51 %) or a phase
// (compile, +56 %) is slower by more than the limit.
func TestDiffFailIfSlower(t *testing.T) {
	base, slow := diffFixture(t, "base"), diffFixture(t, "slow")
	for _, c := range []struct {
		limit string
		code  int
		names []string
	}{
		{"20%", 1, []string{"job +3.62s (+51%)", `phase "compile" +3.45s (+56%)`}},
		{"53%", 1, []string{`phase "compile"`}},
		{"60%", 0, nil},
		{"3s", 1, []string{"job", "compile"}},
		{"1m", 0, nil},
	} {
		r := jt(t, nil, "diff", "--fail-if-slower", c.limit, base, slow)
		if r.code != c.code {
			t.Errorf("%s: exit %d, want %d\n%s", c.limit, r.code, c.code, r.stderr)
		}
		for _, n := range c.names {
			if !strings.Contains(r.stderr, n) {
				t.Errorf("%s: stderr does not name %s:\n%s", c.limit, n, r.stderr)
			}
		}
		if c.limit == "53%" && strings.Contains(r.stderr, "job +") {
			t.Errorf("53%%: the job (+51%%) named:\n%s", r.stderr)
		}
	}
	// Faster is never a failure.
	if r := jt(t, nil, "diff", "--fail-if-slower", "0%", slow, base); r.code != 0 {
		t.Errorf("faster: exit %d\n%s", r.code, r.stderr)
	}
}

// Usage errors and directories without a whole run exit 2 with a reason
// that says what was read.
func TestDiffRefuses(t *testing.T) {
	base, slow := diffFixture(t, "base"), diffFixture(t, "slow")
	empty := t.TempDir()
	killed := t.TempDir()
	data, err := os.ReadFile(filepath.Join(base, spool.TracesFile))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if !strings.Contains(l, "cicd.pipeline.task.name") {
			kept = append(kept, l)
		}
	}
	csv, err := os.ReadFile(filepath.Join(base, usagecsv.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(killed, spool.TracesFile), []byte(strings.Join(kept, "")+`{"resourceSpans":[{"scopeSp`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(killed, usagecsv.FileName), csv, 0o644); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{base}, "want two directories"},
		{[]string{base, slow, slow}, "3 directories: want two, OLD NEW, or several base runs as --baseline"},
		{[]string{"--baseline", base, slow}, "end them with --"},
		{[]string{"--baseline", base, "--", slow, slow}, "want one, the new run"},
		{[]string{"--baseline", "--", slow}, "--baseline wants one or more directories"},
		{[]string{"--baseline", base, "--", "--format", "json", slow}, "flags go before"},
		{[]string{base, slow, "--format", "json"}, "flags go before"},
		{[]string{"--format", "xml", base, slow}, `--format "xml"`},
		{[]string{"--fail-if-slower", "20", base, slow}, "say 20% or a duration"},
		{[]string{base, filepath.Join(empty, "nope")}, "nope: no such directory"},
		{[]string{base, filepath.Join(base, spool.TracesFile)}, "not a directory"},
		{[]string{empty, slow}, "no run there: neither spans.otlp.jsonl nor resource-usage.csv"},
		{[]string{base, killed}, "no job span: the run did not end (was its agent killed?); read 5 phases and"},
	} {
		r := jt(t, nil, append([]string{"diff"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.says) || r.stdout != "" {
			t.Errorf("diff %q: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, r.code, r.stdout, r.stderr, c.says)
		}
	}
	// The killed run's torn last line is said.
	r := jt(t, nil, "diff", base, killed)
	if !strings.Contains(r.stderr, "could not read part of the artifacts, skipped it: spool: torn") {
		t.Errorf("killed run: the torn line is not said:\n%s", r.stderr)
	}
}

// report --baseline: report.html ends with the comparison; the shapes
// diff refuses, report refuses too.
func TestReportBaseline(t *testing.T) {
	base := diffFixture(t, "base")
	run := t.TempDir()
	for _, name := range []string{spool.TracesFile, usagecsv.FileName} {
		data, err := os.ReadFile(filepath.Join(diffFixture(t, "slow"), name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(run, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := jt(t, nil, "report", "--baseline", base, base, "--", run)
	if r.code != 0 {
		t.Fatalf("report --baseline: exit %d\n%s", r.code, r.stderr)
	}
	page, err := os.ReadFile(filepath.Join(run, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<h2 id="diff">Compared with the median of 2 base runs`, "slowed by neighbours", "outside"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("report.html has no %q", want)
		}
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--baseline", base, run}, "end the baselines with --"},
		{[]string{"--baseline", filepath.Join(run, "nope"), "--", run}, "nope: no such directory"},
		{[]string{"--baseline", t.TempDir(), "--", run}, "no run there"},
	} {
		r := jt(t, nil, append([]string{"report"}, c.args...)...)
		if r.code != 2 || !strings.Contains(r.stderr, c.says) {
			t.Errorf("report %q: exit %d, stderr %q; want 2 and %q", c.args, r.code, r.stderr, c.says)
		}
	}
}

// On a terminal the change column is in colour; not with NO_COLOR, and
// not into a pipe (TestDiffCommand).
func TestDiffColourOnATerminal(t *testing.T) {
	base, slow := diffFixture(t, "base"), diffFixture(t, "slow")
	for _, c := range []struct {
		env    []string
		colour bool
	}{
		{[]string{"TERM=xterm"}, true},
		{[]string{"TERM=xterm", "NO_COLOR=1"}, false},
		{[]string{"TERM=dumb"}, false},
	} {
		cmd := exec.Command(bin, "diff", base, slow)
		cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, c.env...)
		f, err := pty.Start(cmd)
		if err != nil {
			t.Skipf("no pseudo-terminal: %v", err)
		}
		out, _ := io.ReadAll(f) // EIO once the command has exited
		f.Close()
		if err := cmd.Wait(); err != nil {
			t.Fatalf("%v: %v\n%s", c.env, err, out)
		}
		if got := strings.Contains(string(out), "\x1b[31m+3.45s (+56%)\x1b[0m"); got != c.colour {
			t.Errorf("%v: colour %v, want %v:\n%q", c.env, got, c.colour, out)
		}
		if !strings.Contains(string(out), "compile") {
			t.Errorf("%v: no compile row:\n%q", c.env, out)
		}
	}
	if r := jt(t, []string{"TERM=xterm"}, "diff", base, slow); strings.Contains(r.stdout, "\x1b") {
		t.Errorf("colour into a pipe:\n%q", r.stdout)
	}
}

// The base runs are held slimmed (runmodel.Run.Slim): what their artifacts
// carry beyond the figures is not kept while the next ones are read, so
// 50 base runs with an attribute of megabytes each do not take gigabytes.
func TestDiffHoldsBaseRunsSlimmed(t *testing.T) {
	base := diffFixture(t, "base")
	runs, err := readRuns("diff", []string{base, base}, supervise.NewLogger(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		if len(r.Rows) != 0 || len(r.Resource) != 0 {
			t.Errorf("a base run holds %d usage rows and %d resource attributes", len(r.Rows), len(r.Resource))
		}
		for _, s := range append([]runmodel.Span{r.Job}, r.Phases...) {
			if len(s.Events) != 0 || len(s.Attributes) > verdict.NumAttributeKeys {
				t.Errorf("base span %q holds %d events and %d attributes", s.Name, len(s.Events), len(s.Attributes))
			}
		}
	}
}

// What could not be read of the artifacts is counted by what failed (a
// row's bad figures each, a file once), not by the lines of the message: a
// CSV that is a FIFO is one thing skipped, not "1 unreadable lines".
func TestArtifactWarningCounts(t *testing.T) {
	row := errors.Join(errors.New("column a: \"x\""), errors.New("column b: \"y\""))
	for _, c := range []struct {
		warn error
		want string
	}{
		{errors.Join(errors.New("resource-usage.csv: not a regular file (a FIFO)")), "could not read part of the artifacts, skipped it: resource-usage.csv: not a regular file (a FIFO)"},
		{errors.New("line 1\nline 2"), "could not read part of the artifacts, skipped it: line 1"},
		{errors.Join(errors.New("spool: torn last line"), row), "could not read 3 parts of the artifacts, skipped them (first: spool: torn last line)"},
		// An error of its own that wraps more than one (a spool line's:
		// what is wrong and the decoder's error) is one part, said whole.
		{errors.Join(&spool.LineError{Path: "o/spans.otlp.jsonl", Line: 3, Offset: 120, Kind: spool.ErrParse, Err: errors.New("not one JSON object")}),
			"could not read part of the artifacts, skipped it: spool: malformed line: spans.otlp.jsonl line 3 (byte 120): not one JSON object"},
		{errors.Join(fmt.Errorf("row 2: %w, %w", errors.New("a"), errors.New("b")), errors.New("c")),
			"could not read 2 parts of the artifacts, skipped them (first: row 2: a, b)"},
	} {
		if got := artifactWarning(c.warn); got != c.want {
			t.Errorf("artifactWarning(%q) = %q, want %q", c.warn, got, c.want)
		}
	}
}

// Base runs of another job are compared all the same, and said: a wrong
// directory given would otherwise pass for a comparison.
func TestDiffSaysOtherJobs(t *testing.T) {
	base, slow := diffFixture(t, "base"), diffFixture(t, "slow")
	other := t.TempDir()
	for _, name := range []string{spool.TracesFile, usagecsv.FileName} {
		data, err := os.ReadFile(filepath.Join(base, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(other, name), []byte(strings.ReplaceAll(string(data), "job2.sh", "other.sh")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const says = `is job "job2.sh", but `
	for _, args := range [][]string{
		{"diff", other, slow},
		{"diff", "--baseline", base, other, other, other, other, "--", slow},
		{"report", "--baseline", other, "--", t.TempDir()},
	} {
		if args[0] == "report" {
			dir := args[len(args)-1]
			for _, name := range []string{spool.TracesFile, usagecsv.FileName} {
				data, _ := os.ReadFile(filepath.Join(slow, name))
				os.WriteFile(filepath.Join(dir, name), data, 0o644)
			}
		}
		r := jt(t, nil, args...)
		if r.code != 0 || !strings.Contains(r.stderr, says) || !strings.Contains(r.stderr, `is job "other.sh"`) {
			t.Errorf("%q: exit %d, stderr %q; want 0 and %q", args, r.code, r.stderr, says)
		}
		if len(args) > 5 && !strings.Contains(r.stderr, "and 1 more") {
			t.Errorf("%q: four other base runs not bounded: %q", args, r.stderr)
		}
	}
	if r := jt(t, nil, "diff", base, slow); strings.Contains(r.stderr, says) {
		t.Errorf("two runs of one job said to be of two: %q", r.stderr)
	}
}
