package session

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	sdkresource "go.opentelemetry.io/otel/sdk/resource"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagemetrics"
	"github.com/jobtrace/jobtrace/internal/cleantext"
	"github.com/jobtrace/jobtrace/internal/redact"
	"github.com/jobtrace/jobtrace/internal/safefile"
	"github.com/jobtrace/jobtrace/spans"
	"github.com/jobtrace/jobtrace/spans/markerdir"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/scan"
	"github.com/jobtrace/jobtrace/spans/socket"
	"github.com/jobtrace/jobtrace/supervise"
	"github.com/jobtrace/jobtrace/supervise/guard"
	"github.com/jobtrace/jobtrace/telemetry"
)

// Environment variables jobtrace sets for the job.
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
	Args []string
	// Name is the task name (span name and cicd.pipeline.task.name).
	Name string
	// RunID is cicd.pipeline.task.run.id; empty means none.
	RunID string
	// Out is the directory of the local artifacts.
	Out           string
	ExportTimeout time.Duration
	GracePeriod   time.Duration
	RecordArgs    bool
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
	// served for scraping at /metrics while the job runs.
	PrometheusListen string
	// Parent is the context the job's span joins (from TRACEPARENT, or a
	// trace id derived from the CI run); context.Background() for none.
	Parent context.Context
	// Env is the job's base environment (os.Environ()).
	Env []string

	Stdin, Stdout, Stderr *os.File
	// Log, when set, receives jobtrace's messages instead of stderr.
	Log io.Writer
	// Start is when jobtrace started, for its start-up span.
	Start time.Time
	// Guard starts a guard process that kills the job if jobtrace dies
	// before it (see package guard). The binary must run guard.Main when
	// started with guard.Arg, as cmd/jobtrace does.
	Guard bool

	hooks testHooks
}

// testHooks let a test hold a run at a point of its choosing.
type testHooks struct {
	// sync is called when a socket message starts waiting for the output
	// before it.
	sync func()
	// started is called once the job has started, before the socket
	// handler is told of it.
	started func()
	// tap is called before each chunk of output is given to a scanner: it
	// can hold the scanner back.
	tap func()
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

// Run supervises one job from start to end and returns the exit code
// jobtrace must exit with: the job's own.
func Run(o Options) int {
	if o.Start.IsZero() {
		o.Start = time.Now()
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(MemoryLimit)
	}
	if o.Parent == nil {
		o.Parent = context.Background()
	}
	supervise.SurviveBrokenOutput()
	stdoutGate := supervise.NewGate(o.Stdout)
	stderrGate := stdoutGate
	if !supervise.SameFile(o.Stdout, o.Stderr) {
		stderrGate = supervise.NewGate(o.Stderr)
	}
	var logw io.Writer = stderrGate
	if o.Log != nil {
		logw = o.Log
	}
	log := supervise.NewLogger(logw)
	defer stderrGate.Finish()
	defer stdoutGate.Finish()
	grd := startGuard(o, log)

	// Steps of jobtrace's start-up, recorded as events of its span.
	var steps []trace.EventOption
	var stepNames []string
	mark := func(what string) {
		steps = append(steps, trace.WithTimestamp(time.Now()))
		stepNames = append(stepNames, what)
	}
	mark("configuration loaded")
	exp := o.Export
	exp.PrometheusListen = o.PrometheusListen
	pipe, err := telemetry.New(o.Out, o.Resource, exp, log.Warn)
	mark("telemetry ready")
	if err != nil {
		// jobtrace cannot record, but the job still runs and its result stands.
		log.Printf("%v: running the job without telemetry", err)
		return runBare(o, log, stdoutGate, stderrGate, grd)
	}
	tracer := pipe.TracerProvider.Tracer("jobtrace", trace.WithInstrumentationVersion(o.Version))
	if addr := pipe.PrometheusAddr(); addr != "" {
		log.Printf("serving metrics for Prometheus at http://%s%s", addr, telemetry.PrometheusPath)
	}

	// The task name, the run id and the command come from the user, the
	// CI system or the job: cleaned (cleantext) before they go in a span.
	o.Name, o.RunID = cleantext.String(o.Name), cleantext.String(o.RunID)
	rootAttrs := []attribute.KeyValue{
		semconv.CICDPipelineTaskName(o.Name),
		semconv.ProcessExecutableName(cleantext.String(filepath.Base(o.Args[0]))),
	}
	if o.RunID != "" {
		rootAttrs = append(rootAttrs, semconv.CICDPipelineTaskRunID(o.RunID))
	}
	if o.RecordArgs {
		// Recorded on request, but a URL's credentials stay out.
		args := make([]string, len(o.Args))
		for i, a := range o.Args {
			args[i] = cleantext.String(redact.String(a))
		}
		rootAttrs = append(rootAttrs, semconv.ProcessCommandArgs(args...))
	}
	rootCtx, root := tracer.Start(o.Parent, o.Name, trace.WithTimestamp(o.Start),
		trace.WithSpanKind(trace.SpanKindInternal), trace.WithAttributes(rootAttrs...))
	_, startup := tracer.Start(rootCtx, "jobtrace startup", trace.WithTimestamp(o.Start))
	sampled := root.SpanContext().IsSampled()

	sampling := o.Sampling
	sampling.NotJob, sampling.Orphan = grd.IsGuard, grd.Orphan
	res := newResources(sampling, log)
	var observer spans.PhaseObserver
	if res != nil {
		observer = res.phases
		grd.Cgroup(res.jobCg.dir())
		mark("resource sampling ready")
	}
	tracker := spans.NewTracker(rootCtx, tracer, spans.TrackerOptions{
		Meter: pipe.Meter, Warn: log.Warn, MaxOpenPhases: o.MaxOpenPhases, Observer: observer,
		Start: o.Start,
	})
	var running atomic.Pointer[supervise.Job]
	// started is closed once running is set, or the job failed to start:
	// a step of the job can talk to the socket before StartJob has
	// returned, and its output must be synced all the same.
	started := make(chan struct{})
	var startedOnce sync.Once
	jobStarted := func() { startedOnce.Do(func() { close(started) }) }
	defer jobStarted()
	var lateSyncs atomic.Uint64
	handle := func(m protocol.Msg) protocol.Reply {
		if m.Ack {
			// A client that waits for the reply is a step of the job:
			// what the job printed before it must come first.
			if o.hooks.sync != nil {
				o.hooks.sync()
			}
			wait := time.NewTimer(OutputSyncTimeout)
			select {
			case <-started:
			case <-wait.C:
			}
			wait.Stop()
			if !running.Load().SyncOutput(OutputSyncTimeout) && lateSyncs.Add(1) == 1 {
				log.Warn(fmt.Sprintf("%s %q handled before the output the job printed before it had been scanned (waited %v): it may nest under the wrong phase; further ones are counted",
					m.Type, m.Name, OutputSyncTimeout))
			}
		}
		return tracker.Handle(m)
	}

	env := spans.InjectEnv(rootCtx)
	srcs, err := startSources(o, handle, log, env)
	mark("socket and marker dir ready")
	if err != nil {
		log.Warn(err.Error())
	}
	grd.Dir(srcs.dir)
	for _, k := range []string{"TRACEPARENT", EnvSocket, EnvMarkerDir} {
		if v := env[k]; v != "" {
			grd.Env(k + "=" + v)
		}
	}

	scanOpts := o.Scan
	outScan := scan.New(scanOpts, func(m protocol.Msg) { tracker.Handle(m) })
	errScan := scan.New(scanOpts, func(m protocol.Msg) { tracker.Handle(m) })
	var outTap, errTap io.Writer = outScan, errScan
	if o.hooks.tap != nil {
		outTap, errTap = heldTap{outScan, o.hooks.tap}, heldTap{errScan, o.hooks.tap}
	}
	jobEnv := spans.MergeEnv(o.Env, env, append(spans.EnvKeys, EnvSocket, EnvMarkerDir)...)
	if srcs.bin != "" {
		base := ""
		for _, kv := range o.Env {
			if strings.HasPrefix(kv, "PATH=") {
				base = kv[len("PATH="):]
			}
		}
		jobEnv = spans.MergeEnv(jobEnv, map[string]string{"PATH": appendPath(base, srcs.bin)})
	}

	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, supervise.ForwardedSignals...)
	defer signal.Stop(sigs)

	cgroupFD := 0
	var onExit func(*os.ProcessState)
	if res != nil {
		onExit = res.jobExited
		res.start(o.Sampling.Interval, rootCtx, res.sinks(pipe, tracker, log), log)
		cgroupFD = res.jobCg.cgroupFD()
		mark("first sample taken")
	}
	job, err := supervise.Start(supervise.Options{
		Args: o.Args, Env: jobEnv,
		Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr,
		WriteStdout: stdoutGate, WriteStderr: stderrGate,
		OutStdout: outTap, OutStderr: errTap,
		GracePeriod: o.GracePeriod, Warn: log.Warn,
		CgroupFD: cgroupFD, OnExit: onExit,
	})
	if err == nil {
		if o.hooks.started != nil {
			o.hooks.started()
		}
		running.Store(job)
	}
	jobStarted()
	mark("job started")
	if err == nil {
		grd.Job(job.Pid())
		grd.Arm(guard.Delay)
	}
	if res != nil && err == nil {
		res.jobStarted(job, log)
	}
	for i, name := range stepNames {
		startup.AddEvent(name, steps[i])
	}
	if res != nil {
		for _, n := range res.notes {
			startup.AddEvent("resource sampling: " + n)
		}
	}
	startup.End()
	code := 0
	var jobErr error
	if err != nil {
		var se *supervise.StartError
		code = 1
		if errors.As(err, &se) {
			code = se.Code
		}
		jobErr = err
		log.Printf("%v", err)
	} else {
		root.SetAttributes(semconv.ProcessPID(job.Pid()))
		code = job.Supervise(sigs, o.GracePeriod, log)
		grd.Disarm()
	}
	ended := time.Now()

	_, shutdown := tracer.Start(rootCtx, "jobtrace shutdown")
	outScan.Close()
	errScan.Close()
	srcs.stop()
	result := "success"
	switch {
	case jobErr != nil:
		result = "error"
	case code > supervise.ExitSignalBase && code <= supervise.ExitSignalBase+64:
		result = "cancellation"
	case code != 0:
		result = "failure"
	}
	if left := tracker.Close(result); len(left) > 0 {
		log.Warn(fmt.Sprintf("phases still open when the job ended: %s", strings.Join(left, ", ")))
	}
	root.SetAttributes(
		semconv.CICDPipelineTaskRunResultKey.String(result),
		semconv.ProcessExitCode(code),
	)
	var lostOutput uint64
	if job != nil {
		lostOutput = job.OutputLost()
	}
	statAttrs, lost := srcs.statsAttrs(outScan, errScan, tracker, lostOutput, log, pipe.Meter)
	root.SetAttributes(statAttrs...)
	if n := lateSyncs.Load(); n > 0 {
		root.SetAttributes(attribute.Int64("jobtrace.output.late_syncs", int64(n)))
	}
	var notes []string
	if len(lost) > 0 {
		notes = append(notes, "not turned into spans: "+strings.Join(lost, "; "))
	}
	if result != "success" {
		desc := fmt.Sprintf("job exited with code %d", code)
		if jobErr != nil {
			desc = jobErr.Error()
		}
		root.SetStatus(codes.Error, cleantext.String(desc))
	}
	end := jobEnd{code: code, result: result, took: ended.Sub(o.Start), notes: notes}
	if res != nil {
		end.usage, end.hasUsage = res.finish(log), true
		end.series = res.series
	}
	// The job has ended and its cgroup and private directory are gone:
	// nothing is left for the guard to do.
	grd.Release()
	shutdown.End()
	root.End()

	if res != nil && res.csv != nil {
		pipe.Artifacts = func(dir string) {
			end.run = model(pipe, dir, log)
			telemetry.WriteViews(dir, end.run, log.Warn)
		}
	}
	sr := pipe.Shutdown(o.ExportTimeout, sampled)
	report(log, o, sr, pipe, root.SpanContext(), end, sampled)
	return code
}

// runBare runs the job with passthrough and signals only: what jobtrace
// does when it cannot set up its telemetry.
func runBare(o Options, log *supervise.Logger, out, errw io.Writer, grd *guard.Guard) int {
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, supervise.ForwardedSignals...)
	defer signal.Stop(sigs)
	defer grd.Release()
	job, err := supervise.Start(supervise.Options{Args: o.Args, Env: o.Env, Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr,
		WriteStdout: out, WriteStderr: errw, GracePeriod: o.GracePeriod, Warn: log.Warn})
	if err != nil {
		log.Printf("%v", err)
		var se *supervise.StartError
		if errors.As(err, &se) {
			return se.Code
		}
		return 1
	}
	grd.Job(job.Pid())
	grd.Arm(guard.Delay)
	return job.Supervise(sigs, o.GracePeriod, log)
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

// sources are the socket and the marker dir.
type sources struct {
	dir    string
	lock   io.Closer // held while the run lives (see newPrivateDir)
	bin    string    // the directory of this binary, named jobtrace
	server *socket.Server
	served chan struct{}
	reader *markerdir.Reader
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// startSources makes a private directory for the socket and the marker
// dir, starts reading them, and adds their paths to env.
func startSources(o Options, h func(protocol.Msg) protocol.Reply, log *supervise.Logger, env map[string]string) (*sources, error) {
	s := &sources{}
	if !o.Socket && !o.MarkerDir {
		return s, nil
	}
	dir, lock, removed, err := makePrivateDir()
	switch {
	case removed == 1:
		log.Printf("removed the private directory of a jobtrace run that was killed")
	case removed > 1:
		log.Printf("removed the private directories of %d jobtrace runs that were killed", removed)
	}
	if err != nil {
		return s, fmt.Errorf("no socket or marker dir for the job: %v", err)
	}
	s.dir, s.lock = dir, lock // MkdirTemp makes it 0700: private to the job's user
	var errs []error
	if o.Socket {
		path := filepath.Join(dir, "sock")
		srv, err := socket.Listen(path, socket.Handler(h), socket.Options{
			MaxConns: o.MaxSocketConns, MaxMessageBytes: o.MaxMessageBytes, Warn: log.Warn,
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("no socket for the job: %v", err))
		} else {
			s.server = srv
			s.served = make(chan struct{})
			go func() { defer close(s.served); srv.Serve() }()
			env[EnvSocket] = path
		}
	}
	if o.MarkerDir {
		md := filepath.Join(dir, "markers")
		if err := os.Mkdir(md, 0o700); err != nil {
			errs = append(errs, fmt.Errorf("no marker dir for the job: %v", err))
		} else {
			s.reader = markerdir.New(md, func(m protocol.Msg) { h(m) }, markerdir.Options{
				MaxFiles: o.MaxMarkerFiles, MaxMessageBytes: o.MaxMessageBytes, Warn: log.Warn,
			})
			ctx, cancel := context.WithCancel(context.Background())
			s.cancel = cancel
			s.done = make(chan struct{})
			go func() { defer close(s.done); s.reader.Run(ctx) }()
			env[EnvMarkerDir] = md
		}
	}
	if exe, err := os.Executable(); err == nil && filepath.Base(exe) == "jobtrace" {
		// 'jobtrace phase|event|exec' work inside the job even when
		// jobtrace is not installed on PATH (go run, a binary in the
		// workspace): the directory of this very binary is put at the
		// end of PATH, so an installed jobtrace still wins.
		s.bin = filepath.Dir(exe)
	}
	return s, errors.Join(errs...)
}

// makePrivateDir makes the job's private directory (mode 0700) in
// $XDG_RUNTIME_DIR, the per-user home of sockets, else in /dev/shm where it
// exists, else in the temporary directory. The first two are in memory,
// which matters: creating and removing the socket and the marker dir on a
// disk costs about a millisecond per job on a virtual machine, on a tmpfs a
// few microseconds.
//
// A parent is only used when nobody else can move or replace what is made
// in it: $XDG_RUNTIME_DIR must be the user's own private directory, the
// others owned by the user or root and sticky when open to others
// (safefile.SafeParent). The new directory is checked to be the user's and
// private after it is made. It is locked while the run lives; the private
// directories that dead runs left in the same parent are removed (see
// newPrivateDir).
func makePrivateDir() (dir string, lock io.Closer, removed int, err error) {
	var errs []error
	try := func(parent string, check func(string) error) bool {
		if err := check(parent); err != nil {
			errs = append(errs, err)
			return false
		}
		var n int
		var err error
		dir, lock, n, err = newPrivateDir(parent)
		removed += n
		if err == nil {
			err = safefile.CheckPrivate(dir)
			if err == nil {
				return true
			}
			lock.Close()
			os.Remove(dir)
		}
		errs = append(errs, err)
		return false
	}
	if x := os.Getenv("XDG_RUNTIME_DIR"); x != "" {
		if try(x, safefile.CheckPrivate) {
			return dir, lock, removed, nil
		}
	}
	if _, err := os.Stat("/dev/shm"); err == nil {
		if try("/dev/shm", safefile.SafeParent) {
			return dir, lock, removed, nil
		}
	}
	if try(os.TempDir(), safefile.SafeParent) {
		return dir, lock, removed, nil
	}
	return "", nil, removed, errors.Join(errs...)
}

func appendPath(path, dir string) string {
	if path == "" {
		return dir
	}
	return path + string(os.PathListSeparator) + dir
}

// stop reads what is left in the sources, then removes their directory.
func (s *sources) stop() {
	s.once.Do(func() {
		if s.server != nil {
			s.server.Close()
			<-s.served
		}
		if s.reader != nil {
			s.cancel()
			<-s.done
			s.reader.Final()
		}
		if s.dir != "" {
			os.RemoveAll(s.dir)
			s.lock.Close()
		}
	})
}

// statsAttrs reports on the job span what the sources dropped at a bound,
// warns about it, adds what was not turned into spans to the
// jobtrace.dropped metric, and returns the phrases for the summary.
func (s *sources) statsAttrs(out, errs *scan.Scanner, t *spans.Tracker, lostOutput uint64, log *supervise.Logger, meter metric.Meter) ([]attribute.KeyValue, []string) {
	long := out.Stats().LongLines + errs.Stats().LongLines
	attrs := []attribute.KeyValue{}
	var lost []string
	dropped, err := usagemetrics.NewDropped(meter)
	if err != nil {
		log.Warn(fmt.Sprintf("no jobtrace.dropped metric: %v", err))
	}
	add := func(key string, n uint64, what, short string) {
		if n == 0 {
			return
		}
		attrs = append(attrs, attribute.Int64(key, int64(n)))
		log.Printf("%d %s", n, what)
		if short != "" {
			lost = append(lost, fmt.Sprintf("%d %s", n, short))
			if dropped != nil {
				dropped.Add(context.Background(), int64(n), metric.WithAttributes(
					usagemetrics.AttrDroppedWhat.String(strings.TrimPrefix(key, "jobtrace.dropped."))))
			}
		}
	}
	add("jobtrace.dropped.output_bytes", lostOutput, "bytes of the job's output could not be written to jobtrace's stdout or stderr and were dropped", "")
	add("jobtrace.dropped.long_lines", long, "output lines were longer than max_line_bytes and were not scanned for markers", "output lines too long to scan")
	if un := unscanned(out, errs); un.UnscannedLines > 0 || un.UnscannedBytes > 0 {
		attrs = append(attrs, attribute.Int64("jobtrace.dropped.unscanned_lines", int64(un.UnscannedLines)),
			attribute.Int64("jobtrace.dropped.unscanned_bytes", int64(un.UnscannedBytes)))
		log.Printf("%d output lines (%d bytes) were not scanned for markers: the scanner fell behind the job's output, which it never holds up",
			un.UnscannedLines, un.UnscannedBytes)
		lost = append(lost, fmt.Sprintf("%d output lines not scanned (the scanner fell behind)", un.UnscannedLines))
		if dropped != nil {
			dropped.Add(context.Background(), int64(un.UnscannedLines), metric.WithAttributes(usagemetrics.AttrDroppedWhat.String("unscanned_lines")))
		}
	}
	if s.server != nil {
		st := s.server.Stats()
		add("jobtrace.dropped.socket_messages", st.Rejected+st.TooLong, "socket messages were malformed or too long and were dropped", "socket messages malformed or too long")
		add("jobtrace.dropped.socket_connections", st.RefusedConns, "socket connections were refused (limit max_socket_conns)", "socket connections refused")
	}
	if s.reader != nil {
		st := s.reader.Stats()
		add("jobtrace.dropped.marker_messages", st.Rejected+st.TooLong, "marker-dir lines were malformed or too long and were dropped", "marker-dir lines malformed or too long")
		add("jobtrace.dropped.marker_files", st.IgnoredFiles, "files in the marker dir were ignored", "marker-dir files ignored")
	}
	ts := t.Stats()
	add("jobtrace.dropped.messages", ts.Refused, "phase messages were refused at a limit", "messages refused at a limit")
	add("jobtrace.unmatched_ends", ts.Unmatched, "phase ends had no open phase of that name", "")
	add("jobtrace.ignored_timestamps", ts.BadTimes, "messages had a ts outside the job's time: the time received was used instead", "")
	return attrs, lost
}

// unscanned adds up what the output scanners skipped.
func unscanned(scanners ...*scan.Scanner) scan.Stats {
	var st scan.Stats
	for _, s := range scanners {
		u := s.Stats()
		st.UnscannedLines += u.UnscannedLines
		st.UnscannedBytes += u.UnscannedBytes
	}
	return st
}

// report prints the end-of-job lines: the phases, where the artifacts are,
// and what happened to the export.
func report(log *supervise.Logger, o Options, res telemetry.ShutdownResult, pipe *telemetry.Pipeline, root trace.SpanContext, end jobEnd, sampled bool) {
	if res.Dropped > 0 {
		end.notes = append(end.notes, fmt.Sprintf("not turned into spans: %d spans not written to the spool (disk stalled)", res.Dropped))
	}
	if res.Lost > 0 {
		end.notes = append(end.notes, fmt.Sprintf("not turned into spans: %d spans lost to failed writes of the spool", res.Lost))
	}
	if end.run == nil {
		end.run = model(pipe, pipe.Dir(), log)
	}
	writeSummary(log, o, end)
	log.Printf("job %q exited with code %d after %s; trace %s", o.Name, end.code, fmtDuration(end.took), root.TraceID())
	if res.Lost > 0 {
		log.Printf("%d spans written to %s, %d lost: the spool could not be written", res.Spans, pipe.SpoolPath(), res.Lost)
	} else {
		log.Printf("%d spans written to %s", res.Spans, pipe.SpoolPath())
	}
	if res.Dropped > 0 {
		log.Printf("%d spans not written to the spool: the disk took nothing for %s", res.Dropped, spool.StallTimeout)
	}
	switch {
	case !res.Exported && pipe.Exports() && !sampled:
		log.Printf("the parent trace is not sampled: nothing exported")
	case !res.Exported:
		// No endpoint configured: local artifacts only.
	case res.Pending == 0 && res.Err == nil:
		log.Printf("exported to %s in %s", res.Endpoint, fmtDuration(res.Took))
	default:
		reason := ""
		if res.Err != nil {
			reason = ": " + firstLine(res.Err.Error())
		}
		log.Printf("export to %s incomplete after %s%s; %d spans pending: send them with `jobtrace replay %s`",
			res.Endpoint, fmtDuration(res.Took), reason, res.Pending, pipe.Dir())
	}
	telemetry.ExportNotes(log.Printf, res.Rejected, res.Discarded, res.Uncertain, res.Resent, pipe.SpoolPath())
	if res.MetricsErr != nil {
		log.Warn("metrics were not accepted (OTEL_METRICS_EXPORTER=none turns them off): " + firstLine(res.MetricsErr.Error()))
	}
	if n := log.Suppressed(); n > 0 {
		log.Printf("%d more warnings not shown (limit %d)", n, supervise.MaxWarnings)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return s
}

var _ supervise.Tap = (*scan.Scanner)(nil)
