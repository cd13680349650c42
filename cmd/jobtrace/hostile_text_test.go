//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostileJob plants invalid UTF-8 and ESC, CR, LF and BEL in every way a
// job has to name things: output markers (GitHub, BEGIN_PHASE), the socket
// (jobtrace phase with such a name and attribute) and a marker-dir file.
const hostileJob = `
printf '::group::gh\377\007\033[31mred\r\n'
printf '::endgroup::\n'
printf 'BEGIN_PHASE ph\001ase k=v\376\n'
printf 'END_PHASE ph\001ase\n'
name=$(printf 'sock\033]0;title\007\r\nx\377')
jobtrace phase begin "$name" --attr "$(printf 'k\033=v\r\n\376')"
jobtrace phase end "$name"
printf '{"type":"begin","name":"md\\u001b[2J\377","attrs":{"a\\r":"b\\n\376"}}\n{"type":"end","name":"md\\u001b[2J\377"}\n' > "$JOBTRACE_MARKER_DIR/$$.jsonl"
`

// hostileEnv plants the same in the resource, the service name and the CI
// system's variables.
var hostileEnv = []string{
	"OTEL_RESOURCE_ATTRIBUTES=a=%ff%fe,b=%1b%5b2J,c=%0d%0a",
	"OTEL_SERVICE_NAME=svc\x1b[31m\xff",
	"GITHUB_ACTIONS=true",
	"GITHUB_JOB=job\r\n\xff",
	"GITHUB_REPOSITORY=org/repo\x07",
	"GITHUB_REF_NAME=br\x1b[2J",
	"GITHUB_REF_TYPE=branch",
}

// checkCleanText fails unless data is valid UTF-8 without control
// characters other than newline and tab.
func checkCleanText(t *testing.T, what string, data []byte) {
	t.Helper()
	if !utf8.Valid(data) {
		i := 0
		for i < len(data) {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			i += n
		}
		t.Errorf("%s: invalid UTF-8 at byte %d: %q", what, i, data[max(0, i-40):min(len(data), i+40)])
		return
	}
	for i, r := range string(data) {
		if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) || r == 0x2028 || r == 0x2029 {
			t.Errorf("%s: control character %U at byte %d: %q", what, r, i, data[max(0, i-40):min(len(data), i+40)])
			return
		}
	}
}

func TestHostileTextReachesNoArtifactRaw(t *testing.T) {
	r := jt(t, hostileEnv, "run", "--record-args", "--", "sh", "-c", hostileJob+"# arg \377\033[0m\r\n")
	if r.code != 0 {
		t.Fatalf("code %d: %s", r.code, r.stderr)
	}
	checkLines(t, r.stderr)
	checkCleanText(t, "stderr", []byte(r.stderr))
	if !strings.Contains(r.stderr, "7 spans written") {
		t.Errorf("want every span written (job, startup, shutdown, 4 phases): %s", r.stderr)
	}
	spans, rss := spansOf(t, r.out)
	for _, name := range []string{
		"job\uFFFD\uFFFD\uFFFD", "gh\uFFFD\uFFFDred", "ph\uFFFDase",
		"sock\uFFFD]0;title\uFFFD\uFFFD\uFFFDx\uFFFD", "md\uFFFD[2J\uFFFD",
	} {
		if spans[name] == nil {
			var names []string
			for n := range spans {
				names = append(names, n)
			}
			t.Errorf("no span %q in %q", name, names)
		}
	}
	res := map[string]string{}
	for _, kv := range rss[0].Resource.Attributes {
		res[kv.Key] = kv.Value.GetStringValue()
	}
	for k, want := range map[string]string{
		"a": "\uFFFD\uFFFD", "b": "\uFFFD[2J", "c": "\uFFFD\uFFFD",
		"service.name": "svc\uFFFD[31m\uFFFD", "vcs.ref.head.name": "br\uFFFD[2J",
	} {
		if res[k] != want {
			t.Errorf("resource %s = %q, want %q", k, res[k], want)
		}
	}
	for _, name := range []string{"spans.otlp.jsonl", "resource-usage.csv", "report.html", "usage.svg", "profile.json"} {
		data, err := os.ReadFile(filepath.Join(r.out, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		checkCleanText(t, name, data)
	}
	if data, err := os.ReadFile(filepath.Join(r.out, "profile.json")); err == nil && !json.Valid(data) {
		t.Errorf("profile.json is not valid JSON")
	}
	if data, err := os.ReadFile(filepath.Join(r.out, "spans.otlp.jsonl")); err == nil {
		for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
			if !json.Valid(line) {
				t.Errorf("spool line %d is not valid JSON", i+1)
			}
		}
	}
}
