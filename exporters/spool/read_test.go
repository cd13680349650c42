package spool

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/jobtrace/jobtrace/internal/regularfile"
)

// A line longer than MaxLineBytes is skipped and reported, the lines after
// it are read, and reading holds no more than the bound of it.
func TestOverlongLineIsSkipped(t *testing.T) {
	path := filepath.Join(t.TempDir(), TracesFile)
	data := writeSpans(t, path, "a", "b")
	lines := bytes.SplitAfter(data, []byte("\n"))
	long := append(bytes.Repeat([]byte("x"), MaxLineBytes+1), '\n')
	bad := bytes.Join([][]byte{lines[0], long, lines[1]}, nil)
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := names(t, path, 0)
	if strings.Join(got, ",") != "a,b" {
		t.Errorf("read %v, want [a b]", got)
	}
	les := LineErrors(err)
	if !errors.Is(err, ErrLineTooLong) || len(les) != 1 || les[0].Line != 2 || les[0].Offset != int64(len(lines[0])) {
		t.Fatalf("err = %v, want one ErrLineTooLong on line 2", err)
	}
}

func TestReadLine(t *testing.T) {
	for _, tc := range []struct {
		in      string
		max     int
		line    string
		skipped int64
	}{
		{"abc\nrest", 4, "abc\n", 0},
		{"abcd\nrest", 4, "", 5},
		{"abc", 4, "abc", 0},
		{"abcdefgh", 4, "", 8},
		{strings.Repeat("y", 40) + "\nrest", 30, "", 41},
	} {
		// A buffer of 16 bytes makes ReadSlice return fragments.
		r := bufio.NewReaderSize(strings.NewReader(tc.in), 16)
		line, skipped, err := readLine(r, tc.max)
		if string(line) != tc.line || skipped != tc.skipped || (err != nil && err != io.EOF) {
			t.Errorf("readLine(%q, %d) = %q, %d, %v; want %q, %d", tc.in, tc.max, line, skipped, err, tc.line, tc.skipped)
		}
	}
}

// A spool replaced by a link to /dev/zero, or by a directory, is refused
// at once instead of growing memory without bound or blocking the reader;
// the link as one out of the spool's directory.
func TestSpoolThatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, TracesFile)
	if err := os.Symlink("/dev/zero", path); err != nil {
		t.Skip(err)
	}
	err := ReadLines(path, 0, func(ptrace.Traces, int, int64) error { return nil })
	if !errors.Is(err, regularfile.ErrOutside) {
		t.Errorf("link to /dev/zero: %v", err)
	}
	path = filepath.Join(t.TempDir(), TracesFile)
	if err := os.Mkdir(path, 0o700); err != nil {
		t.Fatal(err)
	}
	err = ReadLines(path, 0, func(ptrace.Traces, int, int64) error { return nil })
	if !errors.Is(err, regularfile.ErrNotRegular) {
		t.Errorf("a directory: %v", err)
	}
}

// A spool in which every span names the next one as its parent would make
// every span an ancestor of the first: the ancestors kept past the bound
// are bounded too.
func TestReadSpansBoundsAncestorsOfACraftedChain(t *testing.T) {
	path := filepath.Join(t.TempDir(), TracesFile)
	const max, n = 20, 1000
	var b bytes.Buffer
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"resourceSpans":[{"resource":{},"scopeSpans":[{"scope":{},"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"%016x","parentSpanId":"%016x","name":"s","startTimeUnixNano":"1","endTimeUnixNano":"2"}]}]}]}`+"\n", i+1, i+2)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	given := 0
	skipped, err := ReadSpans(path, max, func(pcommon.Resource, ptrace.Span) { given++ })
	if err != nil {
		t.Fatal(err)
	}
	if given != 2*max || skipped != n-2*max {
		t.Errorf("gave %d spans, skipped %d; want %d and %d", given, skipped, 2*max, n-2*max)
	}
}
