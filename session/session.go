package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/hostmetrics"
	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/internal/readback"
	"github.com/jobtrace/jobtrace/internal/redact"
	"github.com/jobtrace/jobtrace/runmodel"
	"github.com/jobtrace/jobtrace/spans"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/scan"
	"github.com/jobtrace/jobtrace/supervise"
	"github.com/jobtrace/jobtrace/telemetry"
)

// Environment variables a session gives the job.
const (
	EnvSocket    = "JOBTRACE_SOCKET"
	EnvMarkerDir = "JOBTRACE_MARKER_DIR"
)

// OutputSyncTimeout bounds how long a socket message that asks for a reply
// waits for the output the job wrote before it to be scanned, so that a
// marker line printed just before `jobtrace phase begin` is handled first
// and the phase nests under it. The scanner is at most 2 × TapQueueBytes
// behind, which it scans in milliseconds even on a loaded machine; the
// bound is there for a tracker that is held up, and stays below the
// client's socket.RequestTimeout. When it is reached, the message is handled
// anyway, and that is warned about once and counted.
const OutputSyncTimeout = time.Second

// Settings describe one session.
type Settings struct {
	// Name is the task name (span name and cicd.pipeline.task.name).
	Name string
	// RunID is cicd.pipeline.task.run.id; empty means none.
	RunID string
	// Command is the job's command line: its program's base name is
	// process.executable.name, and with RecordArgs the whole line is
	// process.command_args. Empty for a session that runs no command.
	Command    []string
	RecordArgs bool
	// Out is the directory of the local artifacts.
	Out           string
	ExportTimeout time.Duration
	Version       string

	Scan            scan.Options // syntaxes, patterns, MaxLineBytes
	Socket          bool
	MarkerDir       bool
	MaxMessageBytes int
	MaxMarkerFiles  int
	MaxSocketConns  int
	MaxOpenPhases   int

	Sampling SamplingOptions
	// Summary is the end-of-job summary's form: off, text or markdown.
	Summary string

	Resource *sdkresource.Resource
	Export   telemetry.ExportSettings
	// PrometheusListen, when set, is the address where the metrics are
	// served for scraping at /metrics while the session lives.
	PrometheusListen string
	// Env is the environment the session runs in (os.Environ()): the base
	// of JobEnv, and where $GITHUB_STEP_SUMMARY is looked up.
	Env []string
	// Log receives the session's messages; when nil, a supervise.Logger
	// on stderr.
	Log Logger
	// Start is when jobtrace started, for the job's span and its start-up
	// span; time.Now() at New when zero.
	Start time.Time
	// Child says a child process is started after Start and reported with
	// JobStarted or JobNotStarted: its output is scanned for markers
	// (Output), the start-up span ends once it has started, and a socket
	// message that asks for a reply waits until the job's output written
	// before it has been scanned. Start then returns before the first
	// sample, which JobStarting waits for right before the child is
	// started.
	Child bool
	// Cleaned, when set, is called by Shutdown once the job's cgroup and
	// the private directory of the socket and the marker dir are removed.
	Cleaned func()
	// Stop, when set, is given the stop messages (`jobtrace stop`) that
	// reach the socket or the marker dir, and returns the reply: the
	// session's owner then shuts it down. A session without Stop (inside
	// `jobtrace run`, which its job's end ends) refuses them.
	Stop func(protocol.Msg) protocol.Reply

	hooks testHooks
}

// Logger is where a session's messages go. supervise.Logger is one: each
// message one line with a "jobtrace:" prefix, credentials masked, warnings
// past supervise.MaxWarnings counted rather than printed. A Go program may
// give its own, such as one that writes to its structured log.
type Logger interface {
	// Printf writes one message: what the session did (where the
	// artifacts are, what was exported).
	Printf(format string, args ...any)
	// Warn writes one warning: something did not go as it should, and the
	// session went on without it.
	Warn(msg string)
	// Block writes lines the session laid out itself: the summary, as text
	// or Markdown.
	Block(b []byte)
	// FlushWarnings is called at the end of Shutdown, after the last
	// warning: a Logger that holds warnings back says what it held.
	FlushWarnings()
}

// Job is the process a session follows, as supervise.Job is.
type Job interface {
	Pid() int
	// SyncOutput waits, at most timeout, until the taps given by Output
	// have seen every byte the job had written when it was called.
	SyncOutput(timeout time.Duration) bool
	// CgroupErr is why the job could not be started in the cgroup of
	// CgroupFD; nil when it was, or none was asked for.
	CgroupErr() error
}

// Session is one traced run: started, fed phase messages from any source
// (the job's output, the socket, the marker dir, Go calls), sampled, and
// shut down with the job's outcome, after which every artifact is written.
type Session struct {
	set Settings
	log Logger

	pipe    *telemetry.Pipeline
	tracer  trace.Tracer
	rootCtx context.Context
	root    trace.Span
	startup trace.Span
	steps   []startStep
	res     *resources
	tracker *spans.Tracker
	srcs    *sources
	env     map[string]string // what the job is given besides Settings.Env
	scanners

	job     atomic.Pointer[Job]
	started chan struct{} // closed once job is set, or the job failed to start
	once    sync.Once
	// firstOnce waits for the first sample once (JobStarting).
	firstOnce sync.Once
	late      atomic.Uint64 // socket messages handled before the output before them
	shut      atomic.Bool

	cmdMu  sync.Mutex
	cmdPid int // the command followed (CommandStarted), 0 for none
}

// startStep is a step of start-up, an event of the start-up span.
type startStep struct {
	name string
	at   time.Time
}

// scanners are the taps of the job's stdout and stderr.
type scanners struct {
	outScan, errScan *scan.Scanner
	outTap, errTap   io.Writer
}

// New returns a session of set; nothing is started before Start.
func New(set Settings) *Session {
	if set.Start.IsZero() {
		set.Start = time.Now()
	}
	if set.Log == nil {
		set.Log = supervise.NewLogger(os.Stderr)
	}
	if set.Name == "" {
		set.Name = "job"
	}
	// The task name, the run id and the command come from the user, the
	// CI system or the job: cleaned (cleantext) before they go in a span.
	set.Name, set.RunID = cleantext.String(set.Name), cleantext.String(set.RunID)
	return &Session{set: set, log: set.Log, started: make(chan struct{})}
}

// Start sets up the telemetry, starts the job's span as a child of the span
// context in ctx (which may also carry baggage; its cancellation is not
// the session's), starts sampling, and starts listening on the socket and
// the marker dir. An error means the session has no telemetry, and nothing
// it started is left running; a source that cannot be set up costs that
// source, with a warning.
func (s *Session) Start(ctx context.Context) error {
	if s.pipe != nil {
		return errors.New("session: started twice")
	}
	s.mark("configuration loaded")
	// The first sample is read by the sampling goroutine while the
	// telemetry, the socket, the marker dir and the scanners are set up;
	// it reaches the sinks that need the telemetry once they are made, and
	// is waited for before Start returns, or, with a child, by JobStarting:
	// it is taken before the job starts.
	s.res = newResources(s.set.Sampling, s.set.Child, s.set.hooks.source, s.log)
	if s.res != nil {
		s.res.start(s.set.Sampling.Interval, s.log)
		s.mark("resource sampling ready")
	}
	exp := s.set.Export
	exp.PrometheusListen = s.set.PrometheusListen
	pipe, err := telemetry.New(s.set.Out, s.set.Resource, exp, s.log.Warn)
	s.mark("telemetry ready")
	if err != nil {
		if s.res != nil {
			s.res.abandon(s.log)
		}
		return err
	}
	s.pipe = pipe
	s.tracer = pipe.TracerProvider.Tracer("jobtrace", trace.WithInstrumentationVersion(s.set.Version))
	if addr := pipe.PrometheusAddr(); addr != "" {
		s.log.Printf("serving metrics for Prometheus at http://%s%s", addr, telemetry.PrometheusPath)
	}
	s.rootCtx, s.root = s.tracer.Start(context.WithoutCancel(ctx), s.set.Name, trace.WithTimestamp(s.set.Start),
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(s.rootAttrs()...))
	_, s.startup = s.tracer.Start(s.rootCtx, "jobtrace startup", trace.WithTimestamp(s.set.Start))

	var observer spans.PhaseObserver
	if s.res != nil {
		observer = s.res.phases
	}
	s.tracker = spans.NewTracker(s.rootCtx, s.tracer, spans.TrackerOptions{
		Meter: pipe.Meter, Warn: s.log.Warn, MaxOpenPhases: s.set.MaxOpenPhases, Observer: observer,
		Start: s.set.Start,
	})
	if s.res != nil {
		s.res.phases.root = s.root
		s.res.late.give(s.res.sinks(pipe, s.tracker, s.log))
	}
	s.env = spans.InjectEnv(s.rootCtx)
	s.srcs, err = startSources(s.set, s.handleSocket, s.log, s.env)
	s.mark("socket and marker dir ready")
	if err != nil {
		s.log.Warn(err.Error())
	}
	scanOpts := s.set.Scan
	scanOpts.Warn = s.log.Warn
	s.outScan = scan.New(scanOpts, func(m protocol.Msg) { s.tracker.Handle(m) })
	s.errScan = scan.New(scanOpts, func(m protocol.Msg) { s.tracker.Handle(m) })
	s.outTap, s.errTap = s.outScan, s.errScan
	if s.set.hooks.tap != nil {
		s.outTap, s.errTap = heldTap{s.outScan, s.set.hooks.tap}, heldTap{s.errScan, s.set.hooks.tap}
	}
	if !s.set.Child {
		s.JobStarting()
		s.jobDone(nil)
	}
	return nil
}

// JobStarting waits until the first sample has been taken, which the job
// must follow: a session with a child (Settings.Child) returns from Start
// before it, and its program calls JobStarting right before it starts the
// job (supervise.Options.BeforeFork), so that what it does between the two
// (finding the program, its pipes, the signals) is done while the sample
// is read. JobStarted and JobNotStarted wait for it too when it was not
// called. It returns at once without resource sampling.
func (s *Session) JobStarting() {
	if s.res == nil {
		return
	}
	s.firstOnce.Do(func() {
		s.res.sampler.FirstTaken()
		s.mark("first sample taken")
	})
}

func (s *Session) rootAttrs() []attribute.KeyValue {
	attrs := []attribute.KeyValue{semconv.CICDPipelineTaskName(s.set.Name)}
	if len(s.set.Command) > 0 {
		attrs = append(attrs, semconv.ProcessExecutableName(cleantext.String(filepath.Base(s.set.Command[0]))))
	}
	if s.set.RunID != "" {
		attrs = append(attrs, semconv.CICDPipelineTaskRunID(s.set.RunID))
	}
	if s.set.RecordArgs && len(s.set.Command) > 0 {
		// Recorded on request, but a URL's credentials stay out.
		args := make([]string, len(s.set.Command))
		for i, a := range s.set.Command {
			args[i] = cleantext.String(redact.String(a))
		}
		attrs = append(attrs, semconv.ProcessCommandArgs(args...))
	}
	return attrs
}

// mark records a step of start-up, an event of the start-up span.
func (s *Session) mark(what string) {
	s.steps = append(s.steps, startStep{what, time.Now()})
}

// Output returns the taps of the job's stdout and stderr (see
// supervise.Options.OutStdout): the marker scanners.
func (s *Session) Output() (stdout, stderr io.Writer) { return s.outTap, s.errTap }

// JobEnv is the job's environment: base with the job's trace context
// (TRACEPARENT, TRACESTATE, BAGGAGE), the socket and the marker dir, and,
// when this binary is named jobtrace, its directory at the end of PATH.
func (s *Session) JobEnv(base []string) []string {
	env := spans.MergeEnv(base, s.env, append(spans.EnvKeys(), EnvSocket, EnvMarkerDir)...)
	if s.srcs.bin == "" {
		return env
	}
	return spans.MergeEnv(env, map[string]string{"PATH": appendPath(envValue(base, "PATH"), s.srcs.bin)})
}

// StepEnv are the entries of JobEnv that a step started apart from the
// session needs to join it (what `jobtrace start` prints): the trace
// context, the socket and the marker dir.
func (s *Session) StepEnv() []string {
	var out []string
	for _, k := range slices.Concat(spans.EnvKeys(), []string{EnvSocket, EnvMarkerDir}) {
		if v := s.env[k]; v != "" {
			out = append(out, k+"="+v)
		}
	}
	return out
}

// Messages counts the messages the socket and the marker dir have taken,
// and the socket's connections: it grows while steps talk to the session.
func (s *Session) Messages() uint64 {
	var n uint64
	if s.srcs.server != nil {
		st := s.srcs.server.Stats()
		n += st.Conns + st.Messages
	}
	if s.srcs.reader != nil {
		n += s.srcs.reader.Stats().Messages
	}
	return n
}

// GuardEnv are the entries of JobEnv that only the job has: its trace
// context, the socket and the marker dir.
func (s *Session) GuardEnv() []string {
	var out []string
	for _, k := range []string{"TRACEPARENT", EnvSocket, EnvMarkerDir} {
		if v := s.env[k]; v != "" {
			out = append(out, k+"="+v)
		}
	}
	return out
}

// PrivateDir is the directory of the socket and the marker dir, "" when
// there is none; Shutdown removes it.
func (s *Session) PrivateDir() string { return s.srcs.dir }

// Cgroup is the job's own cgroup directory, "" when it has none; CgroupFD
// is a descriptor of it to start the job in (0 when none).
func (s *Session) Cgroup() string {
	if s.res == nil {
		return ""
	}
	return s.res.jobCg.dir()
}

// CgroupFD: see Cgroup.
func (s *Session) CgroupFD() int {
	if s.res == nil {
		return 0
	}
	return s.res.jobCg.cgroupFD()
}

// JobStarted tells the session the job has started: it follows its
// processes, and socket messages wait for its output from now on.
func (s *Session) JobStarted(j Job) {
	if s.set.hooks.started != nil {
		s.set.hooks.started()
	}
	s.job.Store(&j)
	s.jobDone(j)
}

// JobNotStarted tells the session the job could not be started.
func (s *Session) JobNotStarted() { s.jobDone(nil) }

// JobExited gives the session the job's resource usage, as soon as it is
// reaped (supervise.Options.OnExit), and has the job's last sample read
// then, in the sampling goroutine, while what is left of the job's output
// is read and Shutdown begins (hostmetrics.Sampler.ReadAhead): Shutdown
// takes that sample as the job's last one unless a sample is taken after
// it (a phase still open, ended by Shutdown with a sample of its own).
func (s *Session) JobExited(u hostmetrics.ExitUsage) {
	if s.res != nil {
		s.res.jobExited(u)
		s.res.sampler.ReadAhead()
	}
}

// CommandStarted tells a session without a child (Settings.Child unset)
// that its program has started a command of the job, pid: the command and
// its descendants are measured as the job's processes until CommandExited,
// so the phases around it get its usage. The job's commands are followed
// one at a time, and their usage adds up in the job's. While one is
// followed, another is refused: it runs all the same, unmeasured. Without
// sampling there is nothing to measure and nothing is refused.
func (s *Session) CommandStarted(pid int) error {
	s.cmdMu.Lock()
	defer s.cmdMu.Unlock()
	switch {
	case s.set.Child:
		return fmt.Errorf("%w: command %d: the session's job is its child", ErrRefused, pid)
	case s.shut.Load():
		return fmt.Errorf("%w: command %d: the session is shut down", ErrRefused, pid)
	case s.cmdPid != 0:
		return fmt.Errorf("%w: command %d: command %d is still followed", ErrRefused, pid, s.cmdPid)
	case s.res == nil || pid <= 0:
		return nil
	}
	s.cmdPid = pid
	s.res.src.SetJob(pid)
	return nil
}

// CommandExited gives the session the usage of the command CommandStarted
// was told of, as it was reaped (ps), which ends following it.
func (s *Session) CommandExited(ps *os.ProcessState) {
	s.cmdMu.Lock()
	defer s.cmdMu.Unlock()
	if ps == nil || s.cmdPid == 0 || ps.Pid() != s.cmdPid {
		return
	}
	s.cmdPid = 0
	s.res.jobExited(hostmetrics.ExitUsageOf(ps))
}

// jobDone ends start-up: the job has started (j), or failed to, or there
// is none.
func (s *Session) jobDone(j Job) {
	s.JobStarting()
	s.once.Do(func() {
		close(s.started)
		if s.set.Child {
			s.mark("job started")
		}
		if s.res != nil && j != nil {
			s.res.jobStarted(j, s.log)
		}
		for _, st := range s.steps {
			s.startup.AddEvent(st.name, trace.WithTimestamp(st.at))
		}
		if s.res != nil {
			s.root.SetAttributes(runmodel.AttrSamplingInterval.Float64(readback.SecondsOf(s.set.Sampling.Interval)))
			// One name for every note, the note as an attribute: a name
			// holds no path, pid or error text.
			for _, n := range s.res.notes {
				s.startup.AddEvent("resource sampling", trace.WithAttributes(attrSamplingNote.String(n)))
			}
		}
		s.startup.End()
		if j != nil {
			s.root.SetAttributes(semconv.ProcessPID(j.Pid()))
		}
	})
}

// handleSocket handles a message from the socket or the marker dir. A
// client that waits for the reply is a step of the job: what the job
// printed before it is scanned first.
func (s *Session) handleSocket(m protocol.Msg) protocol.Reply {
	if m.Type == protocol.TypeStop {
		if s.set.Stop == nil {
			return protocol.Reply{Error: "stop: this job ends when its command exits (jobtrace run); stop is for jobtrace start"}
		}
		return s.set.Stop(m)
	}
	if m.Ack {
		if s.set.hooks.sync != nil {
			s.set.hooks.sync()
		}
		wait := time.NewTimer(OutputSyncTimeout)
		select {
		case <-s.started:
		case <-wait.C:
		}
		wait.Stop()
		if j := s.job.Load(); j != nil && !(*j).SyncOutput(OutputSyncTimeout) && s.late.Add(1) == 1 {
			s.log.Warn(fmt.Sprintf("%s %q handled before the output the job printed before it had been scanned (waited %v): it may nest under the wrong phase; further ones are counted",
				m.Type, m.Name, OutputSyncTimeout))
		}
	}
	return s.tracker.Handle(m)
}

// Handle applies one phase message from any source (a counter, attributes
// of a phase or the job) and returns the reply a socket client would get.
// The message is checked as a socket's is (protocol.Validate), and one that
// breaks the rules refused with its error; it is not cleaned: a caller
// that builds one itself cleans it first (protocol.Msg.Clean), as every
// source does; Begin, End and Event do so.
func (s *Session) Handle(m protocol.Msg) protocol.Reply {
	if err := protocol.Validate(&m); err != nil {
		return protocol.Reply{Error: err.Error()}
	}
	return s.tracker.Handle(m)
}

// ErrRefused wraps the reason a session did not apply a Go call.
var ErrRefused = errors.New("session")

// Begin opens a phase named name under the innermost open phase, with
// attrs, as `jobtrace phase begin` does: the phase's first sample is taken
// before Begin returns.
func (s *Session) Begin(name string, attrs ...attribute.KeyValue) error {
	_, err := s.call(protocol.Msg{Type: protocol.TypeBegin, Name: name, Attrs: attrs})
	return err
}

// BeginContext is Begin that also returns ctx with the phase's span
// context, so that what the program traces itself during the phase
// (OpenTelemetry instrumentation, the TRACEPARENT of a command it runs)
// nests under the phase.
func (s *Session) BeginContext(ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, error) {
	r, err := s.call(protocol.Msg{Type: protocol.TypeBegin, Name: name, Attrs: attrs})
	if err != nil {
		return ctx, err
	}
	return spans.ExtractEnv(ctx, func(k string) string {
		switch k {
		case "TRACEPARENT":
			return r.Traceparent
		case "TRACESTATE":
			return s.env["TRACESTATE"]
		}
		return ""
	}), nil
}

// End ends the innermost open phase named name with result (one of the
// protocol.Result* values; "" is success), as `jobtrace phase end` does.
func (s *Session) End(name, result string, attrs ...attribute.KeyValue) error {
	_, err := s.call(protocol.Msg{Type: protocol.TypeEnd, Name: name, Result: result, Attrs: attrs})
	return err
}

// EndCommand ends the innermost open phase named name as the phase of a
// command that exited with code, or could not be started (startErr), what
// naming it (its argv[0]), as `jobtrace exec` ends a step: with its result
// and the description of its status (CommandEnd), process.exit.code and
// attrs.
func (s *Session) EndCommand(name, what string, code int, startErr error, attrs ...attribute.KeyValue) error {
	result, status := CommandEnd(what, code, startErr)
	_, err := s.call(protocol.Msg{Type: protocol.TypeEnd, Name: name, Result: result, Status: status,
		Attrs: append([]attribute.KeyValue{semconv.ProcessExitCode(code)}, attrs...)})
	return err
}

// Event records an event named name in the innermost open phase.
func (s *Session) Event(name string, attrs ...attribute.KeyValue) error {
	_, err := s.call(protocol.Msg{Type: protocol.TypeEvent, Name: name, Attrs: attrs})
	return err
}

// AddPhase adds a phase that has ended already, as `jobtrace phase add`
// does: a child of the job's span that began at start and ended at end,
// with result (one of the protocol.Result* values; "" is success) and
// attrs. Its usage is computed from the samples the session holds around
// that time (docs/sampling.md); it is set before AddPhase returns, unless
// the sample it waits for takes longer than AckSampleWait.
func (s *Session) AddPhase(name string, start, end time.Time, result string, attrs ...attribute.KeyValue) error {
	_, err := s.call(protocol.Msg{Type: protocol.TypeAdd, Name: name, Result: result, Start: start, End: end, Attrs: attrs})
	return err
}

// call applies a message of a Go call, cleaned and checked as a socket
// message is (protocol.Clean, protocol.Validate).
func (s *Session) call(m protocol.Msg) (protocol.Reply, error) {
	if s.shut.Load() {
		return protocol.Reply{}, fmt.Errorf("%w: %s %q: the session is shut down", ErrRefused, m.Type, m.Name)
	}
	m.V, m.Syntax, m.Ack = protocol.Version, protocol.SyntaxGo, true
	m.Attrs = append([]attribute.KeyValue(nil), m.Attrs...)
	m.Clean()
	if err := protocol.Validate(&m); err != nil {
		return protocol.Reply{}, fmt.Errorf("%w: %s %q: %w", ErrRefused, m.Type, m.Name, err)
	}
	r := s.tracker.Handle(m)
	if !r.OK {
		return r, fmt.Errorf("%w: %s %q: %s", ErrRefused, m.Type, m.Name, r.Error)
	}
	return r, nil
}

// testHooks let a test hold a session at a point of its choosing.
type testHooks struct {
	// sync is called when a socket message starts waiting for the output
	// before it.
	sync func()
	// started is called by JobStarted, before the socket handler is told
	// of the job.
	started func()
	// tap is called before each chunk of output is given to a scanner: it
	// can hold the scanner back.
	tap func()
	// source, when set, is read for samples rather than the system.
	source hostmetrics.Source
}

// heldTap is a scanner that calls hold before it takes each chunk.
type heldTap struct {
	*scan.Scanner
	hold func()
}

func (h heldTap) WriteRead(p []byte, read time.Time) {
	h.hold()
	h.Scanner.WriteRead(p, read)
}

func (h heldTap) Skip(n, lines int64, endsLine bool) {
	h.hold()
	h.Scanner.Skip(n, lines, endsLine)
}

var _ supervise.Tap = (*scan.Scanner)(nil)
