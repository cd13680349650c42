// Package agent is `jobtrace run`: a session (package session) and the
// job, a child process it supervises (package supervise).
package agent

import (
	"context"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"time"

	"github.com/jobtrace/jobtrace/exporters/otlp"
	"github.com/jobtrace/jobtrace/session"
	"github.com/jobtrace/jobtrace/supervise"
	"github.com/jobtrace/jobtrace/supervise/guard"
)

// MemoryLimit is the soft limit of the Go heap set for the agent (unless
// GOMEMLIMIT says otherwise). Everything the agent holds is bounded (the
// spool queue, the boundaries waiting for a sample, the spans the report and
// the profile read back), which keeps the live heap well under it; the limit
// makes the garbage collector keep the heap near that live size under a
// flood, instead of letting it grow to twice it (GOGC=100), so the agent
// stays within its 200 MiB budget whatever a job sends.
const MemoryLimit = 128 << 20

// Options describe one `jobtrace run`.
type Options struct {
	// Session describes the session; Run sets its Command, Log, Child and
	// Cleaned. Its Env is the job's base environment (os.Environ()).
	Session session.Settings
	// Args is the job's command line.
	Args        []string
	GracePeriod time.Duration
	// Parent is the context the job's span joins (from TRACEPARENT, or a
	// trace id derived from the CI run); context.Background() for none.
	Parent context.Context

	Stdin, Stdout, Stderr *os.File
	// Log, when set, receives jobtrace's messages instead of stderr.
	Log io.Writer
	// Guard starts a guard process that kills the job if jobtrace dies
	// before it (see package guard). The binary must run guard.Main when
	// started with guard.Arg, as cmd/jobtrace does.
	Guard bool
}

// Run supervises one job from start to end and returns the exit code
// jobtrace must exit with: the job's own.
func Run(o Options) int {
	// Held until the job has started: it starts even when jobtrace's own
	// files have used up the descriptors (runChild).
	spare := supervise.HoldSpare()
	defer spare.Free()
	out := openOutput(o)
	defer out.finish()
	grd := startGuard(o, out.log)
	defer grd.Close()
	// Notified for the whole run and never stopped: while the job runs
	// they are forwarded to it; once it has ended, one cuts the end of the
	// run short (supervise.Interruptible) instead of killing jobtrace with
	// the job's exit code lost and the end of the run unsaid.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, supervise.ForwardedSignals()...)
	s := session.New(o.settings(out.log, grd))
	if err := s.Start(o.parent()); err != nil {
		// jobtrace cannot record, but the job still runs and its result stands.
		out.log.Printf("%v: running the job without telemetry", err)
		return runChild(o, out, nil, grd, sigs, spare).Code
	}
	end := runChild(o, out, s, grd, sigs, spare)
	ctx, stop := supervise.Interruptible(sigs, out.log)
	defer stop()
	s.Shutdown(ctx, end)
	return end.Code
}

// settings are the session's: o.Session, with the command, the log, and
// the guard told of orphans and released once the job's cgroup and private
// directory are gone.
func (o Options) settings(log *supervise.Logger, grd *guard.Guard) session.Settings {
	set := o.Session
	set.Command, set.Log, set.Child, set.Cleaned = o.Args, log, true, grd.Release
	// The guard is a child of jobtrace, not of the job; the job's orphans
	// re-parented to jobtrace are the guard's to kill too.
	set.Sampling.NotJob, set.Sampling.Orphan = grd.IsGuard, grd.Orphan
	return set
}

// parent is the context the job's span joins.
func (o Options) parent() context.Context {
	if o.Parent == nil {
		return context.Background()
	}
	return o.Parent
}

// output is where the job's output and jobtrace's messages go: gates that
// keep jobtrace's lines out of the job's, one per destination.
type output struct {
	stdout, stderr *supervise.Gate
	log            *supervise.Logger
}

// openOutput sets what `jobtrace run` sets for the whole process (the
// memory limit, the handling of a broken stdout, where OpenTelemetry's
// errors go) and makes the gates and the logger.
func openOutput(o Options) *output {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryLimit)
	}
	supervise.SurviveBrokenOutput()
	out := &output{stdout: supervise.NewGate(o.Stdout)}
	out.stderr = out.stdout
	if !supervise.SameFile(o.Stdout, o.Stderr) {
		out.stderr = supervise.NewGate(o.Stderr)
	}
	var logw io.Writer = out.stderr
	if o.Log != nil {
		logw = o.Log
	}
	out.log = supervise.NewLogger(logw)
	// OpenTelemetry's and gRPC's errors are jobtrace's to say, never the
	// job's output: set once here, for the whole process.
	otlp.RouteErrors(out.log.Warn)
	return out
}

// finish writes the messages still held back by the gates.
func (out *output) finish() {
	out.stderr.Finish()
	out.stdout.Finish()
}

// runChild starts the job and supervises it to its end, forwarding it the
// signals from sigs: with the session's environment, taps and cgroup, or,
// when s is nil (the session could not start), with passthrough and
// signals only. When jobtrace cannot set the job up (its output, or
// descriptors or memory used up), spare is freed and the job started
// again on jobtrace's own stdout and stderr, unobserved: the job runs and
// its result stands (supervise.RetryDirect).
func runChild(o Options, out *output, s *session.Session, grd *guard.Guard, sigs <-chan os.Signal, spare *supervise.Spare) session.Outcome {
	opts := supervise.Options{
		Args: o.Args, Env: o.Session.Env,
		Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr,
		WriteStdout: out.stdout, WriteStderr: out.stderr,
		GracePeriod: o.GracePeriod, Warn: out.log.Warn,
	}
	if s != nil {
		guardSession(grd, s)
		opts.Env, opts.BaseEnv = s.JobEnv(opts.Env), opts.Env
		opts.OutStdout, opts.OutStderr = s.Output()
		opts.CgroupFD, opts.OnExit = s.CgroupFD(), s.JobExited
		opts.BeforeFork = s.JobStarting
	}
	job, err := supervise.Start(opts)
	if supervise.RetryDirect(err) {
		out.log.Printf("%v: running the job on jobtrace's own output, unobserved: its output is not scanned and its usage not measured", err)
		if s != nil {
			s.JobNotStarted()
			s = nil
		}
		spare.Free()
		job, err = supervise.Start(supervise.Options{
			Args: o.Args, Env: o.Session.Env, Direct: true,
			Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr,
			GracePeriod: o.GracePeriod, Warn: out.log.Warn,
		})
	}
	spare.Free()
	if err != nil {
		if s != nil {
			s.JobNotStarted()
		}
		out.log.Printf("%v", err)
		code, _ := supervise.StartCode(err)
		return session.Outcome{Code: code, Err: err, Ended: time.Now()}
	}
	if s != nil {
		s.JobStarted(job)
	}
	grd.Job(job.Pid())
	grd.Arm(guard.Delay)
	code := job.Supervise(sigs, o.GracePeriod, out.log)
	grd.Disarm()
	return session.Outcome{Code: code, LostOutput: job.OutputLost(), Ended: time.Now()}
}

// startGuard starts the guard process when o asks for one. It writes to
// jobtrace's log file when there is one, else to its stderr.
func startGuard(o Options, log *supervise.Logger) *guard.Guard {
	if !o.Guard {
		return nil
	}
	stderr := o.Stderr
	if f, ok := o.Log.(*os.File); ok {
		stderr = f
	}
	return guard.Start(guard.Options{Stderr: stderr, Warn: log.Warn})
}

// guardSession tells the guard what to clean up if jobtrace dies: the
// job's cgroup and the session's private directory, and the environment
// entries by which it finds the job's processes.
func guardSession(grd *guard.Guard, s *session.Session) {
	grd.Cgroup(s.Cgroup())
	grd.Dir(s.PrivateDir())
	grd.Env(s.GuardEnv()...)
}
