package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/internal/safefile"
	"github.com/jobtrace/jobtrace/spans"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/wire"
	"github.com/jobtrace/jobtrace/supervise"
	"github.com/jobtrace/jobtrace/telemetry"
)

// standaloneRun is the telemetry of one 'jobtrace phase|event|exec' outside
// 'jobtrace run': spans are spooled to a private directory, sent with the
// OTEL_* settings, and what was not delivered (everything, when no
// collector is configured) is appended to the spool in --out, where
// 'jobtrace replay' finds it.
type standaloneRun struct {
	s    settings
	log  *supervise.Logger
	dir  string
	pipe *telemetry.Pipeline
	// sigs receives the signals that stop the export (see close), caught
	// from before the private directory exists, so that none comes between
	// a span spooled there and the export unseen, killing jobtrace and
	// leaving the directory.
	sigs chan os.Signal
}

// openStandalone makes the private spool and the telemetry of a marker
// command outside a run.
func openStandalone(s settings, log *supervise.Logger, opts ...sdktrace.TracerProviderOption) (r *standaloneRun, err error) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, supervise.ForwardedSignals()...)
	defer func() {
		if err != nil {
			signal.Stop(sigs)
		}
	}()
	// A private spool in the temporary directory, which must be one where
	// nobody else can move it away (safefile.SafeParent).
	if err := safefile.SafeParent(os.TempDir()); err != nil {
		return nil, fmt.Errorf("temporary directory: %w", err)
	}
	dir, err := os.MkdirTemp("", "jobtrace-spool-")
	if err != nil {
		return nil, err
	}
	pipe, err := telemetry.New(dir, s.resource(), s.exportSettings(), log.Warn, opts...)
	if err != nil {
		_ = telemetry.RemoveDir(dir)
		return nil, err
	}
	return &standaloneRun{s: s, log: log, dir: dir, pipe: pipe, sigs: sigs}, nil
}

// forgetSignals drops the signals caught so far: `jobtrace exec` calls it
// once its child has ended, the signals before that being the child's
// (supervise.Run forwards them), not a stop of the export.
func (r *standaloneRun) forgetSignals() {
	for {
		select {
		case <-r.sigs:
		default:
			return
		}
	}
}

func (r *standaloneRun) close(sampled bool) {
	// A signal while the export waits for the collector stops the wait:
	// what was not sent is kept in --out, and the private directory is
	// removed, rather than left behind by a killed jobtrace.
	defer signal.Stop(r.sigs)
	ctx, unwatch := supervise.Interruptible(r.sigs, r.log)
	res := r.pipe.Shutdown(ctx, r.s.cfg.ExportTimeout, sampled)
	unwatch()
	defer func() {
		if err := telemetry.RemoveDir(r.dir); err != nil {
			r.log.Warn(fmt.Sprintf("the private spool %s could not be removed: %v", r.dir, err))
		}
	}()
	if res.Rejected > 0 {
		// The private directory goes away: what the collector rejected is
		// kept beside the spool in --out.
		kept := filepath.Join(r.s.cfg.Out, spool.TracesFile+spool.RejectedSuffix)
		if data, err := os.ReadFile(r.pipe.SpoolPath() + spool.RejectedSuffix); err != nil {
			r.log.Warn(fmt.Sprintf("spans rejected by the collector could not be kept: %v", err))
		} else if _, err := appendLines(data, kept); err != nil {
			r.log.Warn(fmt.Sprintf("spans rejected by the collector could not be kept in %s: %v", kept, err))
		} else {
			r.log.Warn(fmt.Sprintf("%d spans rejected by the collector as invalid: kept in %s", res.Rejected, kept))
		}
	}
	if res.Exported && res.Pending == 0 && res.Err == nil {
		return
	}
	n, err := keepPending(r.pipe.SpoolPath(), r.s.cfg.Out)
	switch {
	case err != nil:
		r.log.Warn(fmt.Sprintf("spans could not be kept in %s: %v", r.s.cfg.Out, err))
	case res.Exported && n > 0:
		r.log.Warn(fmt.Sprintf("export failed; %d spans kept in %s: send them with `jobtrace replay %s`", n, filepath.Join(r.s.cfg.Out, spool.TracesFile), r.s.cfg.Out))
	}
}

// keepPending appends the lines of the spool at src that were not delivered
// to the spool in dir. A spool never written (a counter makes no span) has
// none.
func keepPending(src, dir string) (int, error) {
	sent, err := spool.ReadSent(src)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		sent = 0
	}
	data, err := os.ReadFile(src)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if sent > int64(len(data)) {
		sent = 0
	}
	return appendLines(data[sent:], filepath.Join(dir, spool.TracesFile))
}

// appendLines appends whole spool lines to the file at dst, creating it and
// its directory, and returns how many lines they were.
func appendLines(lines []byte, dst string) (int, error) {
	if len(lines) == 0 {
		return 0, nil
	}
	if err := safefile.OwnLink(filepath.Dir(dst)); err != nil {
		return 0, err
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return 0, err
	}
	f, err := safefile.Append(dst, 0o644)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var before int64
	if fi, err := f.Stat(); err == nil {
		before = fi.Size()
	}
	// One write: O_APPEND keeps concurrent writers' lines whole; lines
	// that partly reached a full disk are cut off again.
	if w, err := f.Write(lines); err != nil {
		safefile.CutTorn(f, before, int64(w))
		return 0, err
	}
	return bytes.Count(lines, []byte("\n")), nil
}

// phaseState is what 'phase begin' leaves for 'phase end' outside a run.
type phaseState struct {
	TraceID string            `json:"trace_id"`
	SpanID  string            `json:"span_id"`
	Parent  string            `json:"parent,omitempty"` // traceparent of the parent, if any
	Start   time.Time         `json:"start"`
	Attrs   map[string]string `json:"attrs,omitempty"`
}

// EnvStateDir names the directory of standalone phases' state.
const EnvStateDir = "JOBTRACE_STATE_DIR"

// stateDir holds standalone phases between begin and end: private to the
// user, as the attributes may be. It is $JOBTRACE_STATE_DIR when set, else
// jobtrace-state in $XDG_RUNTIME_DIR when that is the user's own private
// directory, else jobtrace-state-<uid> in the temporary directory. These two
// must be a directory (not a link) owned by the user with mode 0700, made so
// when missing: one that another user made first is refused, not used.
// $JOBTRACE_STATE_DIR must be the user's and not writable by others.
func (c *cli) stateDir() (string, error) {
	if dir := c.getenv(EnvStateDir); dir != "" {
		// The user's own choice: it may already exist with mode 0755; the
		// files in it are made with mode 0600.
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return "", fmt.Errorf("state dir: %w", err)
		}
		if err := safefile.UserDir(dir); err != nil {
			return "", fmt.Errorf("state dir: %w", err)
		}
		return dir, nil
	}
	var dir string
	switch {
	case c.getenv("XDG_RUNTIME_DIR") != "" && safefile.CheckPrivate(c.getenv("XDG_RUNTIME_DIR")) == nil:
		dir = filepath.Join(c.getenv("XDG_RUNTIME_DIR"), "jobtrace-state")
	default:
		tmp := c.getenv("TMPDIR")
		if tmp == "" {
			tmp = os.TempDir()
		}
		dir = filepath.Join(tmp, "jobtrace-state-"+strconv.Itoa(os.Geteuid()))
	}
	if err := safefile.PrivateDir(dir); err != nil {
		return "", fmt.Errorf("state dir: %w (remove it, or set %s to a directory of your own)", err, EnvStateDir)
	}
	return dir, nil
}

// maxStateBytes bounds a state file read back: one phase's ids, start and at
// most protocol.MaxAttrs attributes.
const maxStateBytes = 1 << 20

// readState reads a state file without following a link, FIFO or device
// there, and at most maxStateBytes of it.
func readState(path string) ([]byte, error) {
	f, err := safefile.Open(path, os.O_RDONLY, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxStateBytes+1))
	if err == nil && len(data) > maxStateBytes {
		err = fmt.Errorf("%s: longer than %d bytes", path, maxStateBytes)
	}
	return data, err
}

func stateFile(dir, traceparent, name string) string {
	h := sha256.Sum256([]byte(traceparent + "\x00" + name))
	return filepath.Join(dir, hex.EncodeToString(h[:10])+".json")
}

// fixedIDs makes the SDK use ids chosen beforehand: the span begun by one
// process and ended by another keeps the id its children already use.
type fixedIDs struct {
	traceID trace.TraceID
	spanID  trace.SpanID
}

func (f fixedIDs) NewIDs(context.Context) (trace.TraceID, trace.SpanID) { return f.traceID, f.spanID }
func (f fixedIDs) NewSpanID(context.Context, trace.TraceID) trace.SpanID {
	return f.spanID
}

// standalone records m, a marker command's message outside a run (what,
// as fastpath.Request.What names it). It is cleaned and checked as a
// message on a run's socket is (protocol.Clean, protocol.Validate): one
// that breaks a rule records nothing and is warned about, and the command
// exits 0, as after a run's refusal.
func (c *cli) standalone(m protocol.Msg, what string) error {
	m.Clean() // names and attributes from the command line
	log := supervise.NewLogger(os.Stderr)
	if err := protocol.Validate(&m); err != nil {
		log.Warn(fmt.Sprintf("%v: %s not recorded", err, what))
		return nil
	}
	s, err := c.loadSettings(nil)
	if err != nil {
		return err
	}
	parent := s.parent()
	tp := spans.Traceparent(trace.SpanContextFromContext(parent))
	switch m.Type {
	case protocol.TypeBegin:
		return c.standaloneBegin(m, tp)
	case protocol.TypeEnd:
		return c.standaloneEnd(s, log, m, tp)
	case protocol.TypeAdd:
		sa, err := openStandalone(s, log)
		if err != nil {
			return err
		}
		_, sp := sa.pipe.TracerProvider.Tracer("jobtrace").Start(parent, m.Name,
			trace.WithTimestamp(m.Start), trace.WithAttributes(spans.AttrPhaseSource.String("standalone")))
		endStandalone(sp, m, m.End)
		sa.close(sp.SpanContext().IsSampled())
		return nil
	case protocol.TypeEvent:
		sa, err := openStandalone(s, log)
		if err != nil {
			return err
		}
		_, sp := sa.pipe.TracerProvider.Tracer("jobtrace").Start(parent, m.Name,
			trace.WithAttributes(spans.AttrPhaseSource.String("event")))
		sp.AddEvent(m.Name, trace.WithAttributes(m.Attrs...))
		sp.End()
		sa.close(sp.SpanContext().IsSampled())
		return nil
	case protocol.TypeCounter:
		sa, err := openStandalone(s, log)
		if err != nil {
			return err
		}
		ctr, err := sa.pipe.Meter.Float64Counter(spans.CounterPrefix + m.Name)
		if err == nil {
			ctr.Add(context.Background(), m.Value)
		}
		if s.exportSettings().Metrics == nil {
			log.Warn("counter outside 'jobtrace run' with no collector configured: not recorded")
		}
		sa.close(true)
		return nil
	}
	return fmt.Errorf("unsupported message type %q", m.Type)
}

func (c *cli) standaloneBegin(m protocol.Msg, parentTP string) error {
	dir, err := c.stateDir()
	if err != nil {
		return err
	}
	st := phaseState{Parent: parentTP, Start: m.Time, Attrs: map[string]string{}}
	var sid trace.SpanID
	var tid trace.TraceID
	rand.Read(sid[:])
	if sc, ok := spans.ParseTraceparent(parentTP); ok {
		tid = sc.TraceID()
	} else {
		rand.Read(tid[:])
	}
	st.TraceID, st.SpanID = tid.String(), sid.String()
	for _, kv := range m.Attrs {
		st.Attrs[string(kv.Key)] = kv.Value.String()
	}
	data, _ := json.Marshal(st)
	return safefile.WriteFile(stateFile(dir, parentTP, m.Name), data, 0o600)
}

func (c *cli) standaloneEnd(s settings, log *supervise.Logger, m protocol.Msg, parentTP string) error {
	dir, err := c.stateDir()
	if err != nil {
		return err
	}
	path := stateFile(dir, parentTP, m.Name)
	data, err := readState(path)
	if errors.Is(err, fs.ErrNotExist) {
		log.Warn(fmt.Sprintf("end of phase %q, but no phase of that name was begun here: ignored", m.Name))
		return nil
	}
	if err != nil {
		log.Warn(fmt.Sprintf("end of phase %q: state: %v: ignored", m.Name, err))
		os.Remove(path)
		return nil
	}
	os.Remove(path)
	var st phaseState
	if err := json.Unmarshal(data, &st); err != nil {
		return fmt.Errorf("phase state %s: %v", path, err)
	}
	var ids fixedIDs
	if _, err := hex.Decode(ids.traceID[:], []byte(st.TraceID)); err != nil {
		return fmt.Errorf("phase state %s: bad trace id", path)
	}
	if _, err := hex.Decode(ids.spanID[:], []byte(st.SpanID)); err != nil {
		return fmt.Errorf("phase state %s: bad span id", path)
	}
	sa, err := openStandalone(s, log, sdktrace.WithIDGenerator(ids))
	if err != nil {
		return err
	}
	ctx := context.Background()
	if sc, ok := spans.ParseTraceparent(st.Parent); ok {
		ctx = trace.ContextWithRemoteSpanContext(ctx, sc)
	}
	attrs := []attribute.KeyValue{spans.AttrPhaseSource.String("standalone")}
	for k, v := range st.Attrs {
		attrs = append(attrs, attribute.String(k, v))
	}
	_, sp := sa.pipe.TracerProvider.Tracer("jobtrace").Start(ctx, m.Name,
		trace.WithTimestamp(st.Start), trace.WithAttributes(attrs...))
	endStandalone(sp, m, m.Time)
	sa.close(sp.SpanContext().IsSampled())
	return nil
}

// endStandalone ends a standalone phase's span at end with the attributes
// and the result of m.
func endStandalone(sp trace.Span, m protocol.Msg, end time.Time) {
	sp.SetAttributes(m.Attrs...)
	spans.SetResult(sp, wire.NormalResult(m.Result), m.Status)
	sp.End(trace.WithTimestamp(end))
}
