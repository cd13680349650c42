package supervise

import (
	"context"
	"os"
)

// Interrupted is the cause of a context that Interruptible cancelled: the
// signal that came.
type Interrupted struct{ Signal os.Signal }

func (e *Interrupted) Error() string { return "stopped by a signal (" + e.Signal.String() + ")" }

// Interruptible watches sigs, still notified once the job has ended, for
// the end of a run (the last sample, the artifacts, the export), or of a
// marker command that exports its span itself, and returns the context of
// that end. The first signal cancels ctx, with an
// *Interrupted as its cause: what waits on ctx (the export to a collector)
// stops waiting, what it did not deliver stays in the spool, and jobtrace
// ends as it would have, with the local artifacts and the job's exit code.
// A second signal ends jobtrace at once, by that signal's default action
// (exit code 128 + the signal's number where the signal is ignored). stop
// ends the watch; later signals are then left to the caller.
func Interruptible(sigs <-chan os.Signal, log *Logger) (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan struct{})
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		select {
		case sig := <-sigs:
			log.Printf("%v: the export stops; what it has not sent stays in the spool (another signal ends jobtrace at once)", sig)
			cancel(&Interrupted{Signal: sig})
		case <-done:
			return
		}
		select {
		case sig := <-sigs:
			raise(sig)
		case <-done:
		}
	}()
	return ctx, func() {
		close(done)
		<-ended
		cancel(nil)
	}
}
