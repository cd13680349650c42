//go:build unix

package safefile

import (
	"path/filepath"
	"testing"

	"github.com/jobtrace/jobtrace/internal/timingtest"
)

// BenchmarkReplace replaces a file of 16 KiB, the size of an artifact, in
// a directory of $TMPDIR; cpu-ns/op is the process's CPU time per
// replacement (getrusage), which a busy machine skews less than the wall
// time.
func BenchmarkReplace(b *testing.B) {
	p := filepath.Join(b.TempDir(), "report.html")
	data := make([]byte, 16<<10)
	timingtest.LoopCPU(b, func() {
		if err := WriteFile(p, data, 0o644); err != nil {
			b.Fatal(err)
		}
	})
}
