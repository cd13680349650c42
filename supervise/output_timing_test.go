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
// 1 in 12 runs beside three others). The test gives the kernel
// terminalAttempts chances: a SyncOutput that did not wait for the slow tap
// fails every one of them.
func TestSyncOutputOnATerminal(t *testing.T) {
	var got string
	for range terminalAttempts {
		if got = syncOnATerminal(t); got == "one\r\ntwo\r\n" {
			return
		}
	}
	t.Errorf("after SyncOutput the tap has seen %q, %d times out of %d", got, terminalAttempts, terminalAttempts)
}

// terminalAttempts is how many runs TestSyncOutputOnATerminal makes before
// it fails: with about 1 in 12 runs losing to the flip buffer under load,
// five make a spurious failure about one in 250,000.
const terminalAttempts = 5

// syncOnATerminal runs a job that prints two lines to a terminal and
// returns what the slow tap has seen once SyncOutput returned.
func syncOnATerminal(t *testing.T) string {
	ptm, pts, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptm.Close()
	defer pts.Close()
	go io.Copy(io.Discard, ptm)
	_, errf := files(t)
	marker := filepath.Join(t.TempDir(), "printed")
	tap := &slowTap{delay: lagging}
	j, err := Start(Options{
		Args:   []string{"sh", "-c", `echo one; echo two; touch "$1"; sleep 1`, "sh", marker},
		Stdout: pts, Stderr: errf, OutStdout: tap,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Wait()
	defer j.Kill()
	waitFor(t, func() bool { _, err := os.Stat(marker); return err == nil })
	if !j.SyncOutput(5 * time.Second) {
		t.Errorf("SyncOutput did not catch up")
	}
	return tap.String()
}
