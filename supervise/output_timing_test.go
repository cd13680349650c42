//go:build timing && unix

package supervise

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestSyncOutputOnATerminal is in the timing suite: what the job writes to
// a pseudo-terminal reaches the side jobtrace reads through the kernel's
// flip buffer, which a work queue empties later; until it has, the bytes are
// in neither the count read nor the count waiting (TIOCINQ), so on a loaded
// machine SyncOutput may return before the job's last line is there (about
// 1 in 12 runs beside three others).
func TestSyncOutputOnATerminal(t *testing.T) {
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptm.Close()
	defer pts.Close()
	go io.Copy(io.Discard, ptm)
	_, errf := files(t)
	marker := filepath.Join(t.TempDir(), "printed")
	tap := &slowTap{}
	j, err := Start(Options{
		Args:   []string{"sh", "-c", `echo one; echo two; touch "$1"; sleep 1`, "sh", marker},
		Stdout: pts, Stderr: errf, OutStdout: tap,
	})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { _, err := os.Stat(marker); return err == nil })
	if !j.SyncOutput(5 * time.Second) {
		t.Errorf("SyncOutput did not catch up")
	}
	if got := tap.String(); got != "one\r\ntwo\r\n" {
		t.Errorf("after SyncOutput the tap has seen %q", got)
	}
	j.Kill()
	j.Wait()
}
