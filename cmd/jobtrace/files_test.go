//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/jobtrace/jobtrace/internal/otlptest"
)

// planted makes a file outside any directory jobtrace writes to, holding
// "secret", to be the target of links planted where jobtrace writes.
func planted(t *testing.T) string {
	t.Helper()
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	return target
}

func checkTarget(t *testing.T, target string) {
	t.Helper()
	if data, err := os.ReadFile(target); err != nil || string(data) != "secret" {
		t.Errorf("the target of a planted link was written: %q, %v", data, err)
	}
}

// checkLines checks that every line jobtrace wrote on stderr is its own.
func checkLines(t *testing.T, stderr string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSuffix(stderr, "\n"), "\n") {
		if l != "" && !strings.HasPrefix(l, "jobtrace: ") {
			t.Errorf("stderr line without the jobtrace: prefix: %q", l)
		}
	}
}

var artifactNames = []string{
	"spans.otlp.jsonl", "spans.otlp.jsonl.sent", "resource-usage.csv",
	"report.html", "usage.svg", "profile.json",
}

func TestOutDirLinksAreNotFollowed(t *testing.T) {
	target := planted(t)
	out := t.TempDir()
	for _, name := range artifactNames {
		if err := os.Symlink(target, filepath.Join(out, name)); err != nil {
			t.Fatal(err)
		}
	}
	r := jt(t, nil, "run", "--out", out, "--summary", "off", "--", "sh", "-c", "echo ::group::a; echo ::endgroup::; exit 7")
	if r.code != 7 {
		t.Errorf("exit code %d, want the job's 7", r.code)
	}
	checkTarget(t, target)
	checkLines(t, r.stderr)
	// The links are removed, said once each, and the run's own files
	// written in their place: nothing is lost.
	for _, name := range artifactNames {
		if !strings.Contains(r.stderr, "removed "+filepath.Join(out, name)+", which was a symbolic link to "+target) {
			t.Errorf("no warning about %s: %q", name, r.stderr)
		}
	}
	if spans, _ := spansOf(t, out); spans["a"] == nil || spans["sh"] == nil {
		t.Errorf("the run's spans are not in %s: %v", out, spans)
	}
	for _, name := range []string{"resource-usage.csv", "report.html", "usage.svg", "profile.json"} {
		if fi, err := os.Lstat(filepath.Join(out, name)); err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
			t.Errorf("%s is not written: %v", name, err)
		}
	}
}

// A directory where an artifact goes is left as it is, and the warning
// names that file alone: the others are written.
func TestOutDirArtifactInTheWay(t *testing.T) {
	for _, name := range []string{"usage.svg", "report.html"} {
		t.Run(name, func(t *testing.T) {
			out := t.TempDir()
			if err := os.Mkdir(filepath.Join(out, name), 0o755); err != nil {
				t.Fatal(err)
			}
			r := jt(t, nil, "run", "--out", out, "--summary", "off", "--", "sh", "-c", "exit 5")
			if r.code != 5 {
				t.Errorf("exit code %d, want the job's 5", r.code)
			}
			checkLines(t, r.stderr)
			want := "jobtrace: warning: report: write " + filepath.Join(out, name) + ": file exists\n"
			if !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, "no report") {
				t.Errorf("stderr = %q, want the line %q", r.stderr, want)
			}
			if fi, err := os.Lstat(filepath.Join(out, name)); err != nil || !fi.IsDir() {
				t.Errorf("%s is no longer the directory: %v", name, err)
			}
			for _, other := range []string{"resource-usage.csv", "report.html", "usage.svg", "profile.json"} {
				if other == name {
					continue
				}
				if fi, err := os.Lstat(filepath.Join(out, other)); err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
					t.Errorf("%s is not written: %v", other, err)
				}
			}
		})
	}
}

func TestOutDirLinkedLockIsReplaced(t *testing.T) {
	target := planted(t)
	out := t.TempDir()
	if err := os.Symlink(target, filepath.Join(out, ".jobtrace.lock")); err != nil {
		t.Fatal(err)
	}
	r := jt(t, nil, "run", "--out", out, "--", "sh", "-c", "exit 3")
	if r.code != 3 {
		t.Errorf("exit code %d, want the job's 3", r.code)
	}
	checkTarget(t, target)
	checkLines(t, r.stderr)
	if !strings.Contains(r.stderr, "removed "+filepath.Join(out, ".jobtrace.lock")+", which was a symbolic link") {
		t.Errorf("stderr = %q", r.stderr)
	}
	if spans, _ := spansOf(t, out); spans["sh"] == nil {
		t.Errorf("the run's spans are not in %s", out)
	}
}

// The output directory itself may be a link: the user chose that path
// (another disk, say). Only what jobtrace names inside it is never followed.
func TestOutDirThatIsALinkIsUsed(t *testing.T) {
	real := t.TempDir()
	out := filepath.Join(t.TempDir(), "jobtrace-out")
	if err := os.Symlink(real, out); err != nil {
		t.Fatal(err)
	}
	r := jt(t, nil, "run", "--out", out, "--", "true")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	if spans, _ := spansOf(t, real); spans["true"] == nil {
		t.Errorf("no spans in the directory the link points to")
	}
}

func TestLogAndSummaryLinksAreNotFollowed(t *testing.T) {
	target := planted(t)
	dir := t.TempDir()
	log := filepath.Join(dir, "jobtrace.log")
	sum := filepath.Join(dir, "summary.md")
	os.Symlink(target, log)
	os.Symlink(target, sum)
	r := jt(t, nil, "run", "--log", log, "--", "true")
	if r.code != 2 || !strings.Contains(r.stderr, "is a symbolic link: not followed") {
		t.Errorf("--log to a link: code %d, %q; want 2 and the reason", r.code, r.stderr)
	}
	r = jt(t, []string{"GITHUB_ACTIONS=true", "GITHUB_STEP_SUMMARY=" + sum}, "run", "--", "true")
	if r.code != 0 || !strings.Contains(r.stderr, "summary not written") {
		t.Errorf("step summary to a link: code %d, %q", r.code, r.stderr)
	}
	checkTarget(t, target)
	checkLines(t, r.stderr)
	// /dev/null is the user's choice of a device, not a planted link.
	if r := jt(t, nil, "run", "--log", os.DevNull, "--", "true"); r.code != 0 || r.stderr != "" {
		t.Errorf("--log /dev/null: code %d, %q", r.code, r.stderr)
	}
}

func TestReplayReplacesALinkedSentFile(t *testing.T) {
	r := jt(t, nil, "run", "--", "true")
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	target := planted(t)
	sent := filepath.Join(r.out, "spans.otlp.jsonl.sent")
	os.Remove(sent)
	if err := os.Symlink(target, sent); err != nil {
		t.Fatal(err)
	}
	c := &otlptest.Collector{}
	h := otlptest.StartHTTP(t, "127.0.0.1:0", c)
	rr := jt(t, []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + h.Addr}, "replay", r.out)
	if rr.code != 0 {
		t.Fatalf("replay: %d %s", rr.code, rr.stderr)
	}
	checkTarget(t, target)
	if fi, err := os.Lstat(sent); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("%s is not a regular file after replay: %v", sent, err)
	}
}

func TestStateDirOfAnotherUserIsRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a directory of another user")
	}
	tmp := t.TempDir()
	os.Chmod(tmp, 0o1777)
	state := filepath.Join(tmp, "jobtrace-state-0")
	if err := os.Mkdir(state, 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(state, 65534, 65534); err != nil {
		t.Skipf("chown: %v", err)
	}
	env := []string{"TMPDIR=" + tmp, "JOBTRACE_STATE_DIR=", "XDG_RUNTIME_DIR="}
	r := jt(t, env, "phase", "begin", "deploy")
	if r.code == 0 || !strings.Contains(r.stderr, "owned by uid 65534") {
		t.Errorf("begin: code %d, %q; want a refusal", r.code, r.stderr)
	}
	checkLines(t, r.stderr)
	if ents, _ := os.ReadDir(state); len(ents) != 0 {
		t.Errorf("state written to another user's directory: %v", ents)
	}
}

func TestStateDirLinkIsRefused(t *testing.T) {
	tmp := t.TempDir()
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(tmp, "jobtrace-state-"+strconv.Itoa(os.Geteuid()))); err != nil {
		t.Fatal(err)
	}
	env := []string{"TMPDIR=" + tmp, "JOBTRACE_STATE_DIR=", "XDG_RUNTIME_DIR="}
	r := jt(t, env, "phase", "begin", "deploy")
	if r.code == 0 || !strings.Contains(r.stderr, "is a symbolic link") {
		t.Errorf("begin: code %d, %q; want a refusal", r.code, r.stderr)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("state written through the link: %v", ents)
	}
}

func TestStateDirIsPrivateAndItsFilesAreReplaced(t *testing.T) {
	tmp := t.TempDir()
	env := []string{"TMPDIR=" + tmp, "JOBTRACE_STATE_DIR=", "XDG_RUNTIME_DIR=", "JOBTRACE_OUT=" + t.TempDir()}
	if r := jt(t, env, "phase", "begin", "deploy"); r.code != 0 {
		t.Fatalf("begin: %d %q", r.code, r.stderr)
	}
	state := filepath.Join(tmp, "jobtrace-state-"+strconv.Itoa(os.Geteuid()))
	fi, err := os.Lstat(state)
	if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
		t.Fatalf("state dir %s: %v %v; want a directory with mode 0700", state, fi.Mode(), err)
	}
	// A link in place of the state file is replaced, not written through.
	ents, _ := os.ReadDir(state)
	if len(ents) != 1 {
		t.Fatalf("state dir holds %v", ents)
	}
	target := planted(t)
	file := filepath.Join(state, ents[0].Name())
	os.Remove(file)
	os.Symlink(target, file)
	if r := jt(t, env, "phase", "begin", "deploy"); r.code != 0 {
		t.Fatalf("begin again: %d %q", r.code, r.stderr)
	}
	checkTarget(t, target)
	if r := jt(t, env, "phase", "end", "deploy"); r.code != 0 || r.stderr != "" {
		t.Errorf("end: %d %q", r.code, r.stderr)
	}

	// XDG_RUNTIME_DIR is used when it is the user's private directory.
	xdg := t.TempDir()
	os.Chmod(xdg, 0o700)
	env = append(env, "XDG_RUNTIME_DIR="+xdg)
	if r := jt(t, env, "phase", "begin", "x"); r.code != 0 {
		t.Fatalf("begin: %d %q", r.code, r.stderr)
	}
	if ents, _ := os.ReadDir(filepath.Join(xdg, "jobtrace-state")); len(ents) != 1 {
		t.Errorf("XDG_RUNTIME_DIR/jobtrace-state holds %v", ents)
	}
}

// An output directory that is a link another user planted (the default
// jobtrace-out in a shared working directory, say) is not followed: the job
// runs without telemetry and nothing is written where the link points.
func TestOutDirLinkOfAnotherUserIsRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a link to another user")
	}
	elsewhere := t.TempDir()
	out := filepath.Join(t.TempDir(), "jobtrace-out")
	if err := os.Symlink(elsewhere, out); err != nil {
		t.Fatal(err)
	}
	if err := os.Lchown(out, 65534, 65534); err != nil {
		t.Skipf("lchown: %v", err)
	}
	r := jt(t, nil, "run", "--out", out, "--", "sh", "-c", "exit 5")
	if r.code != 5 {
		t.Errorf("exit code %d, want the job's 5", r.code)
	}
	checkLines(t, r.stderr)
	if !strings.Contains(r.stderr, "the link belongs to uid 65534") {
		t.Errorf("stderr = %q", r.stderr)
	}
	if ents, _ := os.ReadDir(elsewhere); len(ents) != 0 {
		t.Errorf("written through another user's link: %v", ents)
	}
}

// Outside a run, the private spool of 'jobtrace event' is only made in a
// temporary directory nobody else can move it out of.
func TestStandaloneRefusesAnOpenTemporaryDirectory(t *testing.T) {
	tmp := t.TempDir()
	if err := os.Chmod(tmp, 0o777); err != nil { // writable by all, not sticky
		t.Fatal(err)
	}
	env := []string{"TMPDIR=" + tmp, "JOBTRACE_OUT=" + t.TempDir()}
	r := jt(t, env, "event", "e")
	if r.code == 0 || !strings.Contains(r.stderr, "writable by others and not sticky") {
		t.Errorf("code %d, %q; want a refusal", r.code, r.stderr)
	}
	checkLines(t, r.stderr)
	if ents, _ := os.ReadDir(tmp); len(ents) != 0 {
		t.Errorf("made in an open directory: %v", ents)
	}
}
