package supervise

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInterruptibleFirstSignalCancels: the first signal cancels the
// context with the signal as its cause and says so; stop ends the watch,
// and the context stays as it was.
func TestInterruptibleFirstSignalCancels(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	var log bytes.Buffer
	ctx, stop := Interruptible(sigs, NewLogger(&log))
	if ctx.Err() != nil {
		t.Fatal("cancelled before any signal")
	}
	sigs <- syscall.SIGTERM
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
		t.Fatal("a signal did not cancel the context")
	}
	var in *Interrupted
	if !errors.As(context.Cause(ctx), &in) || in.Signal != syscall.SIGTERM {
		t.Errorf("cause %v, want the signal", context.Cause(ctx))
	}
	stop()
	if !strings.Contains(log.String(), "the export stops") || !strings.Contains(log.String(), syscall.SIGTERM.String()) {
		t.Errorf("log %q does not say the export stops on %v", log.String(), syscall.SIGTERM)
	}
}

// TestInterruptibleStopWithoutSignal: stop before any signal leaves the
// signals to the caller and cancels nothing with a cause.
func TestInterruptibleStopWithoutSignal(t *testing.T) {
	sigs := make(chan os.Signal, 1)
	ctx, stop := Interruptible(sigs, NewLogger(&bytes.Buffer{}))
	stop()
	sigs <- syscall.SIGINT
	if got := len(sigs); got != 1 {
		t.Errorf("the watch took a signal after stop")
	}
	var in *Interrupted
	if errors.As(context.Cause(ctx), &in) {
		t.Errorf("cause %v without a signal", context.Cause(ctx))
	}
}
