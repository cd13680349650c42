package proctree

import (
	"fmt"
	"testing"

	"github.com/jobtrace/jobtrace/internal/fuzzcheck"
)

// FuzzParseFiles feeds any bytes to the parsers of /proc/<pid>/io and
// statm: they never panic, and what they accept, printed as the kernel
// prints it, they read back the same. Seeds: below and in
// testdata/fuzz/FuzzParseFiles.
func FuzzParseFiles(f *testing.F) {
	f.Add([]byte("rchar: 1\nwchar: 2\nsyscr: 3\nsyscw: 4\nread_bytes: 5\nwrite_bytes: 6\ncancelled_write_bytes: 7\n"))
	f.Add([]byte("1000 200 100 10 0 50 0\n"))
	f.Add([]byte("rchar 1\n:\nread_bytes: 99999999999999999999\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		defer fuzzcheck.NoHang(data)()
		if p, ok := parseIO(data); ok {
			again := fmt.Appendf(nil, "read_bytes: %d\nwrite_bytes: %d\n", p.readBytes, p.writeBytes)
			if q, ok := parseIO(again); !ok || q != p {
				t.Fatalf("parseIO(%q) = %+v; printed again %+v, %v", data, p, q, ok)
			}
		}
		if n, ok := parseStatm(data); ok {
			if m, ok := parseStatm(fmt.Appendf(nil, "7 %d 1 1 0 1 0\n", n)); !ok || m != n {
				t.Fatalf("parseStatm(%q) = %d; printed again %d, %v", data, n, m, ok)
			}
		}
	})
}
