package background

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/agent"
	"github.com/jobtrace/jobtrace/exporters/otlp"
	"github.com/jobtrace/jobtrace/internal/safefile"
	"github.com/jobtrace/jobtrace/session"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/wire"
	"github.com/jobtrace/jobtrace/supervise"
	"github.com/jobtrace/jobtrace/telemetry"
)

// Arg is the first argument that makes the jobtrace binary the agent;
// the arguments after it are those of `jobtrace start`.
const Arg = "__jobtrace_agent"

// ReadyFD is the descriptor of the pipe on which the agent tells Spawn
// that it is ready, or why it could not start.
const ReadyFD = 3

// WatchInterval is how often the agent looks whether the process it
// watches is still there and whether it has been idle for too long: one
// read of /proc/<pid>/stat and two counters, a few microseconds a second.
const WatchInterval = time.Second

// DefaultIdle is how long the agent waits for a message before it ends by
// itself: GitHub Actions' longest job on its own runners.
const DefaultIdle = 6 * time.Hour

// ExitExportIncomplete is the exit status of `jobtrace stop` when the agent
// wrote every artifact but could not deliver every span to the collector:
// they are in the spool, for `jobtrace replay`.
const ExitExportIncomplete = 3

// Attributes of the job's span that say how a background agent's job ended.
const (
	// AttrStopped is true when `jobtrace stop` ended the job, false when
	// the agent ended by itself.
	AttrStopped = attribute.Key("jobtrace.job.stopped")
	// AttrEndReason is one of the Reason* values.
	AttrEndReason = attribute.Key("jobtrace.job.end_reason")
)

// Why an agent ended, and the result its job gets when no stop told one.
const (
	ReasonStop    = "stop"    // `jobtrace stop`: the result it gives
	ReasonWatched = "watched" // the watched process is gone: error
	ReasonIdle    = "idle"    // no message for the idle time: timeout
	ReasonSignal  = "signal"  // SIGTERM or SIGINT: cancellation
	// ReasonOutGone: its lock file is gone from the out directory (the
	// directory removed, as a checkout's `git clean` does) and the
	// directory could not be made again (keepOut), or another agent holds
	// it now: no stop could find the agent any more. error.
	ReasonOutGone = "out_removed"
)

// resultOf is the result of a job that ended for reason without a stop.
func resultOf(reason string) string {
	switch reason {
	case ReasonWatched:
		return protocol.ResultError
	case ReasonIdle:
		return protocol.ResultTimeout
	case ReasonOutGone:
		return protocol.ResultError
	}
	return protocol.ResultCancellation
}

// Options describe one agent.
type Options struct {
	// Session describes the session; Run sets its Log, Stop and Env (the
	// step summary goes to SummaryFile). Its Out must be set.
	Session session.Settings
	// Parent is the context the job's span joins.
	Parent context.Context
	// Log is the file for the agent's messages; LogFile in Out when "".
	Log string
	// Idle: see DefaultIdle; 0 never.
	Idle time.Duration
	// Watch is the process whose end ends the agent; zero for none.
	Watch Process
	// ProcRoot is where /proc is mounted.
	ProcRoot string
	// Ready is the pipe to Spawn; nil when the agent runs on its own.
	Ready *os.File
}

// readyMsg is the one line the agent writes to the ready pipe.
type readyMsg struct {
	State *State `json:"state,omitempty"`
	Error string `json:"error,omitempty"`
	// Code is the status `jobtrace start` exits with after Error.
	Code int `json:"code,omitempty"`
}

// Fail tells Spawn, through ready, why the agent does not start; start
// exits with code.
func Fail(ready *os.File, code int, err error) {
	tell(ready, readyMsg{Error: err.Error(), Code: code})
}

func tell(ready *os.File, m readyMsg) {
	if ready == nil {
		return
	}
	b, _ := json.Marshal(m)
	// A start that is gone makes this fail: the agent runs all the same.
	_, _ = ready.Write(append(b, '\n'))
	ready.Close()
}

// ErrBusy is an out directory another agent holds.
var ErrBusy = errors.New("another jobtrace agent holds this directory")

// Run is the agent: it starts the session, tells Spawn it is ready, and
// ends the session when a stop message comes, the watched process is gone,
// the idle time has passed, or SIGTERM or SIGINT comes. It returns the
// process's exit status.
func Run(o Options) int {
	out, err := filepath.Abs(o.Session.Out)
	if err == nil {
		err = safefile.OwnLink(out)
	}
	if err == nil {
		err = os.MkdirAll(out, 0o755)
	}
	if err != nil {
		Fail(o.Ready, 1, fmt.Errorf("output directory: %v", err))
		return 1
	}
	unlock, err := telemetry.Lock(filepath.Join(out, LockFile))
	if errors.Is(err, telemetry.ErrDirBusy) {
		err = busy(out)
	}
	if err != nil {
		Fail(o.Ready, 1, err)
		return 1
	}
	defer unlock()
	a, err := start(o, out)
	if err != nil {
		Fail(o.Ready, 1, err)
		return 1
	}
	defer a.unlock()
	a.lockID, _ = os.Stat(filepath.Join(out, LockFile))
	tell(o.Ready, readyMsg{State: &a.state})
	reason, stop := a.wait()
	return a.end(reason, stop)
}

// busy says which agent holds out.
func busy(out string) error {
	st, err := ReadState(out)
	if err != nil || st.End != nil {
		return fmt.Errorf("%w (%s): it is starting or ending", ErrBusy, out)
	}
	return fmt.Errorf("%w (%s): pid %d, started %s; `jobtrace stop --out %s` ends it",
		ErrBusy, out, st.Pid, st.Started.Format(time.RFC3339), out)
}

// running is an agent with its session started.
type running struct {
	o     Options
	s     *session.Session
	log   *supervise.Logger
	state State
	stops chan protocol.Msg
	// sigs gets SIGTERM and SIGINT until the agent exits: the first ends
	// the job (wait), the next cuts its end short (supervise.Interruptible).
	sigs chan os.Signal
	logf *logFile
	// lockID is the lock file the agent holds; unlocks release the locks
	// taken again by keepOut.
	lockID  os.FileInfo
	unlocks []func()
}

// lockKept reports whether the agent's lock file is still at its path:
// neither removed nor replaced by another file (a new out dir).
func (a *running) lockKept() bool {
	fi, err := os.Lstat(filepath.Join(a.state.Out, LockFile))
	return err == nil && (a.lockID == nil || os.SameFile(fi, a.lockID))
}

// unlock releases the locks keepOut took.
func (a *running) unlock() {
	for _, u := range a.unlocks {
		u()
	}
}

// keepOut tries the lock keepLockTries more times, keepLockPause apart,
// while another process holds it: Alive holds it for a moment.
const (
	keepLockTries = 10
	keepLockPause = 20 * time.Millisecond
)

// keepOut makes the out directory again when it was removed while the
// agent runs (a step's `git clean -ffdx`; actions/checkout empties the
// workspace it checks out into, which may hold the out directory): the log,
// the spool and the CSV, which the agent still holds open, are written
// again at their paths as far as they were written (Session.KeepDir), the
// lock is taken again and the state file written again, so that the steps
// after it and `jobtrace stop` find the agent as before. It fails when the
// directory cannot be made again or another agent took it meanwhile.
func (a *running) keepOut() error {
	out := a.state.Out
	// Said in the log before the log is copied, so the copy has it.
	kept := a.s.KeepDir()
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	if err := a.logf.relink(); err != nil {
		a.log.Warn(fmt.Sprintf("the log %s was removed, and could not be made again: %v", a.logf.path, err))
	}
	lockPath := filepath.Join(out, LockFile)
	unlock, err := telemetry.Lock(lockPath)
	// One that looks whether the agent is alive holds it for a moment.
	for i := 0; errors.Is(err, telemetry.ErrDirBusy) && i < keepLockTries; i++ {
		time.Sleep(keepLockPause)
		unlock, err = telemetry.Lock(lockPath)
	}
	if errors.Is(err, telemetry.ErrDirBusy) {
		return busy(out)
	}
	if err != nil {
		return err
	}
	a.unlocks = append(a.unlocks, unlock)
	a.lockID, _ = os.Stat(lockPath)
	if !kept {
		a.log.Warn(fmt.Sprintf("%s was removed from %s: taken again", LockFile, out))
	}
	if err := writeState(a.state); err != nil {
		a.log.Warn(fmt.Sprintf("no %s: `jobtrace stop` finds this agent only by %s: %v", StateFile, session.EnvSocket, err))
	}
	return nil
}

// start opens the log, starts the session and writes the state file.
func start(o Options, out string) (*running, error) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(agent.MemoryLimit)
	}
	// The log of the agent's own is begun anew; a file the user named is
	// appended to, as `jobtrace run --log` does.
	logPath, open := o.Log, safefile.OpenLog
	if logPath == "" {
		logPath = filepath.Join(out, LogFile)
		open = func(path string, perm os.FileMode) (*os.File, error) {
			// Read and write: keepOut copies what was written.
			return safefile.Open(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, perm)
		}
	}
	logPath, _ = filepath.Abs(logPath)
	logw, err := open(logPath, 0o644)
	if err != nil {
		return nil, fmt.Errorf("log: %v", err)
	}
	// What the Go runtime itself writes (a panic) goes to the log too.
	redirectStderr(logw)
	logf := &logFile{f: logw, path: logPath}
	a := &running{o: o, log: supervise.NewLogger(logf), stops: make(chan protocol.Msg, 1),
		sigs: make(chan os.Signal, 2), logf: logf}
	otlp.RouteErrors(a.log.Warn)
	summaryPath := filepath.Join(out, SummaryFile)
	if err := os.Remove(summaryPath); err != nil && !errors.Is(err, os.ErrNotExist) {
		a.log.Warn(err.Error())
	}
	set := o.Session
	set.Out, set.Log, set.Stop = out, a.log, a.stop
	set.Env = append(withoutKey(set.Env, session.EnvStepSummary), session.EnvStepSummary+"="+summaryPath)
	signal.Notify(a.sigs, syscall.SIGTERM, syscall.SIGINT)
	signal.Ignore(syscall.SIGHUP)
	a.s = session.New(set)
	if err := a.s.Start(o.Parent); err != nil {
		signal.Stop(a.sigs)
		return nil, err
	}
	a.state = State{Pid: os.Getpid(), Started: set.Start, Out: out, Log: logPath, Env: a.s.StepEnv(),
		PrivateDir: a.s.PrivateDir(), Watch: o.Watch.Pid, WatchName: o.Watch.Name,
		Idle: Duration(o.Idle), ExportTimeout: Duration(set.ExportTimeout)}
	for _, kv := range a.state.Env {
		if v, ok := cutKey(kv, session.EnvSocket); ok {
			a.state.Socket = v
		}
	}
	if dir := a.s.PrivateDir(); dir != "" {
		if err := safefile.WriteFile(filepath.Join(dir, pointerFile), []byte(out), 0o600); err != nil {
			a.log.Warn(fmt.Sprintf("steps in another directory will not find this agent by %s: %v", session.EnvSocket, err))
		}
	}
	if err := writeState(a.state); err != nil {
		a.log.Warn(fmt.Sprintf("no %s: `jobtrace stop` finds this agent only by %s: %v", StateFile, session.EnvSocket, err))
	}
	a.log.Printf("agent %d started for %s: watching %s, idle after %s", a.state.Pid, out, o.Watch, idleText(o.Idle))
	return a, nil
}

func idleText(d time.Duration) string {
	if d <= 0 {
		return "never"
	}
	return d.String()
}

// stop is the session's Settings.Stop: the first stop message ends the
// agent, a second one is told it is ending already.
func (a *running) stop(m protocol.Msg) protocol.Reply {
	select {
	case a.stops <- m:
		return protocol.Reply{OK: true}
	default:
		return protocol.Reply{Error: "the agent is ending already"}
	}
}

// wait returns why the agent ends, and the stop message when one came.
func (a *running) wait() (string, *protocol.Msg) {
	tick := time.NewTicker(WatchInterval)
	defer tick.Stop()
	msgs, last := a.s.Messages(), time.Now()
	for {
		select {
		case m := <-a.stops:
			return ReasonStop, &m
		case sig := <-a.sigs:
			a.log.Printf("%v: ending the job", sig)
			return ReasonSignal, nil
		case now := <-tick.C:
			if !a.o.Watch.Alive(a.o.ProcRoot) {
				a.log.Printf("%s is gone: ending the job", a.o.Watch)
				return ReasonWatched, nil
			}
			if !a.lockKept() {
				if err := a.keepOut(); err != nil {
					a.log.Printf("%s is gone from %s (removed), and could not be made again: %v: ending the job", LockFile, a.state.Out, err)
					return ReasonOutGone, nil
				}
			}
			if n := a.s.Messages(); n != msgs {
				msgs, last = n, now
			} else if a.o.Idle > 0 && now.Sub(last) >= a.o.Idle {
				a.log.Printf("no message for %s: ending the job", a.o.Idle)
				return ReasonIdle, nil
			}
		}
	}
}

// end shuts the session down and records how it ended.
func (a *running) end(reason string, stop *protocol.Msg) int {
	o := session.Outcome{Attrs: []attribute.KeyValue{AttrStopped.Bool(stop != nil), AttrEndReason.String(reason)}}
	if stop != nil {
		o.Result = wire.NormalResult(stop.Result)
		o.Attrs = append(o.Attrs, stop.Attrs...)
	} else {
		o.Result = resultOf(reason)
	}
	// A signal now cuts the export short; a second ends the agent at once.
	ctx, unwatch := supervise.Interruptible(a.sigs, a.log)
	res, err := a.s.Shutdown(ctx, o)
	unwatch()
	code := 0
	if err != nil {
		code = ExitExportIncomplete
	}
	a.state.End = &End{At: time.Now(), Reason: reason, Result: res.Result, Dir: res.Dir, TraceID: res.TraceID.String(), Code: code}
	if err := writeState(a.state); err != nil {
		a.log.Warn(err.Error())
	}
	return code
}

// withoutKey returns env without its entries for key.
func withoutKey(env []string, key string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if _, ok := cutKey(kv, key); !ok {
			out = append(out, kv)
		}
	}
	return out
}

// cutKey returns the value of kv when it is key's entry.
func cutKey(kv, key string) (string, bool) {
	if len(kv) > len(key) && kv[len(key)] == '=' && kv[:len(key)] == key {
		return kv[len(key)+1:], true
	}
	return "", false
}
