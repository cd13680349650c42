package spool

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
	"github.com/jobtrace/jobtrace/internal/otlptest"
)

// FuzzReadLines reads any bytes as a spool from any offset: ReadLines never
// panics; it hands on complete lines only, each ending where its newline
// ends, in order; each request it decodes is written by the spool's own
// encoder as a line that decodes to the same request; and what it skips is
// reported at offsets within the file, a torn line last. ReadSpans, the
// readers' bound, gives at most the spans the lines hold. Seeds: below and
// in testdata/fuzz/FuzzReadLines (a real run's spool among them).
func FuzzReadLines(f *testing.F) {
	f.Add([]byte(`{"resourceSpans":[{"resource":{},"scopeSpans":[{"spans":[{"traceId":"0102030405060708090a0b0c0d0e0f10","spanId":"0102030405060708","name":"x"}]}]}]}`+"\n"), uint16(0))
	f.Add([]byte("garbage\n\n  \n{\"resourceSpans\":[]}\n{\"resourceSpans\":[{\"scopeSpans\":[{\"spans\":[{\"name\":\"\\u00ff\\ud800\",\"spanId\":\"zz\"}]}]}]}\n{\"torn\":"), uint16(3))
	f.Fuzz(func(t *testing.T, data []byte, from uint16) {
		defer fuzzcheck.NoHang(data, from)()
		path := filepath.Join(t.TempDir(), TracesFile)
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		start := int64(from) % int64(len(data)+1)
		last, spans := start, 0
		err := ReadLines(path, start, func(td ptrace.Traces, n int, end int64) error {
			if end <= last || end > int64(len(data)) || data[end-1] != '\n' {
				t.Fatalf("a line ending at %d after one at %d, in %d bytes", end, last, len(data))
			}
			last = end
			if n != td.SpanCount() {
				t.Fatalf("%d spans counted, %d in the request", n, td.SpanCount())
			}
			spans += n
			req, err := otlptest.TryProto(td)
			if err != nil {
				// A string that is not valid UTF-8 (read from JSON's
				// escapes) the protobuf runtime refuses: read, not compared.
				return nil
			}
			line, err := encodeLine(req.ResourceSpans)
			if err != nil {
				// Bytes the spool's encoder refuses (invalid UTF-8 in a
				// string) can be read, not written again.
				return nil
			}
			again, _, err := decodeLine(t, line[:len(line)-1])
			if err != nil || !proto.Equal(again, req) {
				t.Fatalf("a request written again as %s reads back as another (%v)", line, err)
			}
			return nil
		})
		les := LineErrors(err)
		if err != nil && len(les) == 0 {
			t.Fatalf("ReadLines: %v, not a line error", err)
		}
		for i, le := range les {
			if le.Offset < start || le.Offset >= int64(len(data)) {
				t.Fatalf("line error at byte %d of %d (from %d)", le.Offset, len(data), start)
			}
			torn := errors.Is(le, ErrTorn)
			if torn == errors.Is(le, ErrParse) || torn && i != len(les)-1 {
				t.Fatalf("line error %d of %d: %v", i+1, len(les), le)
			}
		}
		if start == 0 {
			const max = 2
			given := 0
			if _, err := ReadSpans(path, max, func(pcommon.Resource, ptrace.Span) { given++ }); err != nil && len(LineErrors(err)) == 0 {
				t.Fatalf("ReadSpans: %v", err)
			}
			if given > spans {
				t.Fatalf("ReadSpans gave %d spans of %d", given, spans)
			}
		}
	})
}

// countSpans counts the spans of a request in its proto form.
func countSpans(rss []*tracepb.ResourceSpans) int {
	n := 0
	for _, rs := range rss {
		for _, ss := range rs.GetScopeSpans() {
			n += len(ss.GetSpans())
		}
	}
	return n
}
