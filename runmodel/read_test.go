package runmodel

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/internal/attrdoc"
	"github.com/jobtrace/jobtrace/internal/regularfile"
)

// An artifact directory from elsewhere (downloaded, another user's) whose
// files are links out of it is not read through them: a spool linked to
// another run's, a CSV linked to /etc/passwd. A link inside the directory
// is read, and so is a directory reached through a link.
func TestReadDirStaysInTheDirectory(t *testing.T) {
	link := func(target, name string) {
		t.Helper()
		if err := os.Symlink(target, name); err != nil {
			t.Skipf("symlink: %v", err)
		}
	}
	abs := func(name string) string {
		p, err := filepath.Abs(filepath.Join(fixture, name))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}

	spoolOut := t.TempDir()
	link(abs(spool.TracesFile), filepath.Join(spoolOut, spool.TracesFile))
	link(abs(usagecsv.FileName), filepath.Join(spoolOut, usagecsv.FileName))
	if run, _, err := ReadDir(spoolOut); !errors.Is(err, regularfile.ErrOutside) {
		t.Errorf("spool linked out of the directory: %v (%d phases read), want ErrOutside", err, phasesOf(run))
	}

	csvOut := t.TempDir()
	copyFile(t, filepath.Join(fixture, spool.TracesFile), filepath.Join(csvOut, spool.TracesFile))
	link(abs(usagecsv.FileName), filepath.Join(csvOut, usagecsv.FileName))
	run, warn, err := ReadDir(csvOut)
	if err != nil || !errors.Is(warn, regularfile.ErrOutside) || len(run.Rows) != 0 {
		t.Errorf("CSV linked out of the directory: err %v, warn %v, want ErrOutside", err, warn)
	}

	inside := t.TempDir()
	copyFile(t, filepath.Join(fixture, spool.TracesFile), filepath.Join(inside, "spans.keep"))
	copyFile(t, filepath.Join(fixture, usagecsv.FileName), filepath.Join(inside, "usage.keep"))
	link("spans.keep", filepath.Join(inside, spool.TracesFile))
	link("usage.keep", filepath.Join(inside, usagecsv.FileName))
	viaLink := filepath.Join(t.TempDir(), "out")
	link(inside, viaLink)
	run, warn, err = ReadDir(viaLink)
	if err != nil || warn != nil || !run.HasJob || len(run.Rows) == 0 {
		t.Errorf("links inside a linked directory: err %v, warn %v", err, warn)
	}
}

func phasesOf(r *Run) int {
	if r == nil {
		return 0
	}
	return len(r.Phases)
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A name of 100 KB in a spool another tool wrote is cut to MaxNameBytes
// when it is read, span and event alike, as a span the SDK ended with it
// is: the two doors give the same model.
func TestNamesAreBounded(t *testing.T) {
	long := strings.Repeat("é", 50_000)
	dir := t.TempDir()
	line := `{"resourceSpans":[{"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"` + long +
		`","startTimeUnixNano":"1","endTimeUnixNano":"2","events":[{"timeUnixNano":"1","name":"` + long + `"}]}]}]}]}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, spool.TracesFile), []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	run, _, err := ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(run.Phases) != 1 || len(run.Phases[0].Events) != 1 {
		t.Fatalf("read %d phases", len(run.Phases))
	}
	read := run.Phases[0]
	stub := tracetest.SpanStub{Name: long, Events: []sdktrace.Event{{Name: long}}}
	ended := fromSDK(stub.Snapshot())
	for what, got := range map[string]string{"span": read.Name, "event": read.Events[0].Name, "SDK span": ended.Name, "SDK event": ended.Events[0].Name} {
		if len(got) > MaxNameBytes || !strings.HasSuffix(got, "…") || !utf8.ValidString(got) || !strings.HasPrefix(long, strings.TrimSuffix(got, "…")) {
			t.Errorf("%s name of %d bytes read as %d bytes: %.40q…", what, len(long), len(got), got)
		}
	}
	if read.Name != ended.Name {
		t.Errorf("the spool and the SDK give two names")
	}
}

// The attributes the model reads are documented in docs/attributes.md.
func TestAttributesDocumented(t *testing.T) {
	attrdoc.Check(t, []attribute.Key{AttrTaskName, AttrResult, AttrExitCode, AttrSamplingInterval, AttrJobDuration})
}
