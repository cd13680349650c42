//go:build unix

package supervise

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// raiseHelperEnv makes the test binary the program of
// TestInterruptibleSecondSignalEndsAtOnce.
const raiseHelperEnv = "JOBTRACE_TEST_INTERRUPTIBLE"

func init() {
	if os.Getenv(raiseHelperEnv) == "" {
		return
	}
	// A program at the end of its run: two signals to itself; the second
	// must end it by the signal's default action before it exits 0.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM)
	ctx, stop := Interruptible(sigs, NewLogger(&bytes.Buffer{}))
	syscall.Kill(syscall.Getpid(), syscall.SIGTERM)
	<-ctx.Done()
	syscall.Kill(syscall.Getpid(), syscall.SIGTERM)
	time.Sleep(10 * time.Second)
	stop()
	os.Exit(0)
}

// TestInterruptibleSecondSignalEndsAtOnce runs a program that gets two
// signals at the end of its run: it dies by the second.
func TestInterruptibleSecondSignalEndsAtOnce(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), raiseHelperEnv+"=1")
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("the program exited with %v, want death by SIGTERM", err)
	}
	ws := ee.Sys().(syscall.WaitStatus)
	if !ws.Signaled() || ws.Signal() != syscall.SIGTERM {
		t.Errorf("the program ended with %v, want death by SIGTERM", ee)
	}
}
