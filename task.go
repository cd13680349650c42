package jobtrace

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"sync"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/agent/cienv"
	"github.com/jobtrace/jobtrace/config"
	"github.com/jobtrace/jobtrace/session"
	"github.com/jobtrace/jobtrace/spans/wire"
	"github.com/jobtrace/jobtrace/supervise"
)

// DefaultName is the name of a task started without WithName.
const DefaultName = "task"

// ErrStopped is wrapped by the error of every call on a Task that Stop has
// stopped, Stop included.
var ErrStopped = errors.New("jobtrace: task stopped")

// Task is one CI task traced from start to Stop. Its methods may be called
// from any goroutine.
type Task struct {
	s     *session.Session
	log   *supervise.Logger
	attrs []attribute.KeyValue

	// mu orders Stop after the output of the commands Run is scanning.
	mu      sync.Mutex
	stopped bool
	stdout  io.Writer // the session's marker scanners
	stderr  io.Writer
}

// Start starts a task: its span (a child of the span context in ctx, whose
// cancellation is not the Task's), resource sampling, the socket and the
// marker dir. Options apply in this order, each overriding the one before:
// jobtrace's defaults, then the environment if WithEnv is given, then the
// other options in the order given. The error is a setting the one
// configuration refuses (it wraps config.ErrConfig), or the telemetry that
// could not be set up (an out directory that cannot be made); nothing is
// left running then.
func Start(ctx context.Context, opts ...Option) (*Task, error) {
	set, err := resolve(opts)
	if err != nil {
		return nil, err
	}
	t := &Task{attrs: set.attrs}
	if set.onError != nil {
		t.log = supervise.NewWarnLogger(set.log, func(msg string) { set.onError(errors.New(msg)) })
	} else {
		t.log = supervise.NewLogger(set.log)
	}
	var ci cienv.Info
	if set.getenv != nil {
		ci = cienv.Detect(set.getenv)
	}
	t.s = session.New(sessionSettings(set, ci, t.log))
	if err := t.s.Start(session.Parent(ctx, set.cfg, ci, set.getenv)); err != nil {
		return nil, err
	}
	t.stdout, t.stderr = t.s.Output()
	return t, nil
}

// resolve applies the options in their order of precedence and checks the
// result through the one configuration.
func resolve(opts []Option) (settings, error) {
	set := defaults()
	for _, o := range opts {
		if e, ok := o.(envOption); ok {
			e.apply(&set)
		}
	}
	if set.getenv != nil {
		cfg, err := config.LoadEnv(set.getenv)
		if err != nil {
			return settings{}, err
		}
		set.cfg = cfg
	}
	set.cfg.Summary, set.cfg.Name = config.SummaryOff, DefaultName
	for _, o := range opts {
		if _, ok := o.(envOption); !ok && o != nil {
			o.apply(&set)
		}
	}
	cfg, err := set.cfg.Resolve()
	if err != nil {
		return settings{}, err
	}
	set.cfg = cfg
	return set, nil
}

// sessionSettings are those of the Task's session: the configuration's,
// with no child, so no cgroup, and the process left as it is.
func sessionSettings(set settings, ci cienv.Info, log *supervise.Logger) session.Settings {
	s := session.FromConfig(set.cfg, ci, moduleVersion())
	s.RunID, s.Log = set.runID, log
	s.Sampling.Cgroup, s.Sampling.NoSubreaper = false, true
	return s
}

// modulePath is this module's path, to find its version in the program's
// build information.
const modulePath = "github.com/jobtrace/jobtrace"

// moduleVersion is the version of jobtrace the program was built with,
// "dev" when it does not say.
func moduleVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "dev"
	}
	mods := append([]*debug.Module{&bi.Main}, bi.Deps...)
	for _, m := range mods {
		if m.Path == modulePath && m.Version != "" && m.Version != "(devel)" {
			return m.Version
		}
	}
	return "dev"
}

// Begin opens a phase named name under the innermost open phase, with
// attrs. Its usage is measured from a sample taken before Begin returns.
func (t *Task) Begin(name string, attrs ...attribute.KeyValue) error {
	if t.isStopped() {
		return fmt.Errorf("%w: begin %q", ErrStopped, name)
	}
	return t.s.Begin(name, attrs...)
}

// End ends the innermost open phase named name with result ("" is
// Success) and attrs.
func (t *Task) End(name string, result Result, attrs ...attribute.KeyValue) error {
	if t.isStopped() {
		return fmt.Errorf("%w: end %q", ErrStopped, name)
	}
	return t.s.End(name, string(result), attrs...)
}

// Event records an event named name in the innermost open phase, or on
// the task's span when none is open.
func (t *Task) Event(name string, attrs ...attribute.KeyValue) error {
	if t.isStopped() {
		return fmt.Errorf("%w: event %q", ErrStopped, name)
	}
	return t.s.Event(name, attrs...)
}

// Phase runs fn as a phase named name and ends the phase with the result of
// what fn returns (ResultOf), which it returns. fn's ctx carries the
// phase's span context, so that what fn traces itself nests under the
// phase. fn runs whatever happens to the phase: a phase the Task cannot
// record (after Stop, a bad name) is reported to the error handler.
func (t *Task) Phase(ctx context.Context, name string, fn func(ctx context.Context) error) error {
	pctx, began := t.begin(ctx, name)
	err := fn(pctx)
	if began {
		t.report(t.s.End(name, string(ResultOf(err))))
	}
	return err
}

// begin opens a phase for Phase or Run; false, reported, when it could not.
func (t *Task) begin(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, bool) {
	if t.isStopped() {
		t.report(fmt.Errorf("%w: phase %q not recorded", ErrStopped, name))
		return ctx, false
	}
	pctx, err := t.s.BeginContext(ctx, name, attrs...)
	t.report(err)
	return pctx, err == nil
}

// report hands a problem that does not stop the task to the error
// handler, or the log.
func (t *Task) report(err error) {
	if err != nil {
		t.log.Warn(err.Error())
	}
}

// Env is the environment of a process of the task: base with the task's
// trace context (TRACEPARENT, TRACESTATE, BAGGAGE), JOBTRACE_SOCKET and
// JOBTRACE_MARKER_DIR, so that `jobtrace phase`, `jobtrace exec` or a
// marker file add its phases to the task.
func (t *Task) Env(base []string) []string { return t.s.JobEnv(base) }

func (t *Task) isStopped() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.stopped
}

// Stop ends the task with result ("" is Success): it reads what is left
// from the socket and the marker dir, ends the phases still open with
// result, takes the last sample, ends the task's span, writes every
// artifact and exports what the collector has not got, within the export
// timeout or ctx's deadline, whichever comes first. Every goroutine the
// Task started has ended when it returns. The error says what was not
// written or not delivered; the Artifacts written are returned all the
// same. A command Run started should have been waited for: its output
// after Stop is not scanned.
func (t *Task) Stop(ctx context.Context, result Result) (Artifacts, error) {
	if !result.valid() {
		return Artifacts{}, fmt.Errorf("jobtrace: stop: %q is not a result", result)
	}
	t.mu.Lock()
	if t.stopped {
		t.mu.Unlock()
		return Artifacts{}, fmt.Errorf("%w: stop", ErrStopped)
	}
	t.stopped = true
	t.mu.Unlock()
	res, err := t.s.Shutdown(ctx, session.Outcome{Result: wire.NormalResult(string(result)), Attrs: t.attrs})
	a := artifactsIn(res.Dir)
	a.TraceID = res.TraceID
	return a, err
}
