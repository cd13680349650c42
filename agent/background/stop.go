package background

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/internal/safefile"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/socket"
	"github.com/jobtrace/jobtrace/telemetry"
)

// StopMargin is how long `jobtrace stop` waits for the agent beyond its
// export timeout: the last sample, the spool and the rendering of the
// report and the profile, well under a second for a day-long job, on a
// disk that may be slow.
const StopMargin = 30 * time.Second

// waitPoll is how often Wait looks whether the agent has let go of its
// lock.
const waitPoll = 10 * time.Millisecond

// Alive reports whether an agent holds the out directory out.
func Alive(out string) bool {
	// Not made where it is gone: an agent whose out dir was removed makes
	// it again, with its lock (keepOut).
	if _, err := os.Lstat(filepath.Join(out, LockFile)); err != nil {
		return false
	}
	unlock, err := telemetry.Lock(filepath.Join(out, LockFile))
	if err != nil {
		return errors.Is(err, telemetry.ErrDirBusy)
	}
	unlock()
	return false
}

// SendStop asks the agent of st to end its job with result (one of the
// protocol.Result* values) and attrs on the job's span.
func SendStop(st State, result string, attrs []attribute.KeyValue) error {
	if st.Socket == "" {
		return errors.New("the agent has no socket")
	}
	c, err := socket.Dial(st.Socket)
	if err != nil {
		return err
	}
	defer c.Close()
	r, err := c.Request(protocol.Msg{V: protocol.Version, Type: protocol.TypeStop, Result: result, Attrs: attrs})
	if err != nil {
		return err
	}
	if !r.OK {
		return errors.New(r.Error)
	}
	return nil
}

// Wait waits until the agent of out has ended, at most timeout, and
// reports whether it has.
func Wait(out string, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for Alive(out) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(waitPoll)
	}
	return true
}

// Gone cleans up after an agent that ended without recording how (killed):
// it removes the private directory its session left, and records the end
// in the state file, so that a second `jobtrace stop` says no agent runs.
func Gone(st State, lastSeen time.Time) error {
	var errs []error
	if st.PrivateDir != "" {
		// Only a directory of this user's, private as a session makes it.
		if err := safefile.CheckPrivate(st.PrivateDir); err == nil {
			errs = append(errs, os.RemoveAll(st.PrivateDir))
		} else if !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("not removed: %w", err))
		}
	}
	st.End = &End{At: lastSeen, Reason: ReasonGone, Result: protocol.ResultError, Dir: st.Out, Code: 1}
	errs = append(errs, writeState(st))
	return errors.Join(errs...)
}

// ReasonGone is the reason recorded for an agent that was found gone.
const ReasonGone = "gone"

// String says which agent st is.
func (st State) String() string {
	return fmt.Sprintf("agent pid %d for %s, started %s", st.Pid, st.Out, st.Started.Format(time.RFC3339))
}
