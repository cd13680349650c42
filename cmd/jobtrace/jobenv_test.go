//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The job gets a TRACEPARENT of the job span, and the TRACESTATE and
// BAGGAGE jobtrace was given, when it was given them: nothing else, and no
// stale value (README, "Trace context").
func TestJobTraceContextEnv(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	show := `echo "TP=${TRACEPARENT-unset} TS=${TRACESTATE-unset} BG=${BAGGAGE-unset}"`
	for _, c := range []struct {
		name string
		env  []string
		want string // with TP standing for any valid traceparent
	}{
		{"none", nil, "TP TS=unset BG=unset"},
		{"all three", []string{"TRACEPARENT=" + tp, "TRACESTATE=vendor=x", "BAGGAGE=team=ci"}, "TP TS=vendor=x BG=team=ci"},
		{"traceparent only", []string{"TRACEPARENT=" + tp}, "TP TS=unset BG=unset"},
		// A tracestate belongs to the trace of its traceparent: without a
		// valid one, the job starts a new trace, and the tracestate goes.
		{"bad traceparent", []string{"TRACEPARENT=00-bad", "TRACESTATE=vendor=x", "BAGGAGE=team=ci"}, "TP TS=unset BG=team=ci"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := jt(t, c.env, "run", "--interval", "0", "--summary=off", "--", "sh", "-c", show)
			if r.code != 0 {
				t.Fatal(r.stderr)
			}
			line := strings.TrimSpace(r.stdout)
			tpv, rest, _ := strings.Cut(line, " ")
			if v := strings.TrimPrefix(tpv, "TP="); len(v) != 55 || !strings.HasPrefix(v, "00-") {
				t.Errorf("TRACEPARENT %q", v)
			}
			if got := "TP " + rest; got != c.want {
				t.Errorf("job environment %q, want %q", got, c.want)
			}
		})
	}
}

// Inside a run the job finds `jobtrace` on PATH when the running binary is
// named jobtrace: its directory is added at the end, after an installed
// one; a binary named otherwise is not (README, docs/markers.md).
func TestJobPathHasTheBinarysDirectory(t *testing.T) {
	path := "/usr/bin:/bin"
	r := jt(t, []string{"PATH=" + path}, "run", "--interval", "0", "--summary=off", "--", "sh", "-c", `echo "$PATH"`)
	if r.code != 0 {
		t.Fatal(r.stderr)
	}
	if got, want := strings.TrimSpace(r.stdout), path+":"+filepath.Dir(bin); got != want {
		t.Errorf("PATH %q, want %q", got, want)
	}
	other := filepath.Join(t.TempDir(), "jobtrace-linux-amd64")
	if err := os.Link(bin, other); err != nil {
		t.Skip(err)
	}
	r = jtBin(t, other, []string{"PATH=" + path}, "run", "--interval", "0", "--summary=off", "--", "sh", "-c", `echo "$PATH"`)
	if got := strings.TrimSpace(r.stdout); r.code != 0 || got != path {
		t.Errorf("a binary named %s: PATH %q (exit %d), want %q", filepath.Base(other), got, r.code, path)
	}
}
