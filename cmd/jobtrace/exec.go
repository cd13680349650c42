package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/jobtrace/jobtrace/config"
	"github.com/jobtrace/jobtrace/session"
	"github.com/jobtrace/jobtrace/spans"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/socket"
	"github.com/jobtrace/jobtrace/supervise"
)

const execExamples = `  jobtrace exec test -- go test ./...
  jobtrace exec --attr suite=unit unit-tests -- make test
  jobtrace exec upload -- aws s3 cp dist/ s3://bucket/ --recursive

CMD runs as a child phase: inside 'jobtrace run' a child span of the
innermost open phase; outside it, a span of the trace in TRACEPARENT (or of
a new trace), exported with the OTEL_* settings. CMD gets TRACEPARENT set to
that span. The exit code is CMD's (128+N if killed by signal N; 127 if not
found, 126 if not executable).
`

// execLine is a `jobtrace exec` command line.
type execLine struct {
	name  string
	argv  []string
	attrs attrFlag
	fl    *config.Flags
}

// parseExec parses the arguments of `jobtrace exec`.
func parseExec(args []string) (execLine, error) {
	var l execLine
	fs := newFlagSet("exec", "jobtrace exec [flags] NAME -- CMD [ARGS...]", execExamples)
	fs.Var(&l.attrs, "attr", "attribute `key=value` of the phase (repeatable)")
	l.fl = config.BindFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return l, err
	}
	rest := fs.Args()
	if len(rest) == 0 {
		return l, usagef("exec: NAME is missing (usage: jobtrace exec NAME -- CMD [ARGS...])")
	}
	if flagsEndedAtDash(args, rest) && !slices.Contains(rest, "--") {
		// `jobtrace exec --name compile -- make`: the first word of the
		// command would be taken for the phase's name.
		return l, usagef("exec: NAME is missing before -- (usage: jobtrace exec NAME -- CMD [ARGS...]; --name is the job's name)")
	}
	l.name, l.argv = rest[0], rest[1:]
	if len(l.argv) > 0 && l.argv[0] == "--" {
		l.argv = l.argv[1:]
	}
	if len(l.argv) == 0 {
		return l, usagef("exec: no command given (usage: jobtrace exec NAME -- CMD [ARGS...])")
	}
	return l, nil
}

// flagsEndedAtDash reports whether the flags of args, of which rest was
// left once they were parsed, ended with "--".
func flagsEndedAtDash(args, rest []string) bool {
	n := len(args) - len(rest)
	return n > 0 && args[n-1] == "--"
}

func (c *cli) cmdExec(args []string) error {
	l, err := parseExec(args)
	if err != nil {
		return err
	}
	// Held until the command has started: it starts even when jobtrace's
	// own files have used up the descriptors (supervise.Run).
	spare := supervise.HoldSpare()
	defer spare.Free()
	log := supervise.NewLogger(os.Stderr)
	if path := c.getenv(session.EnvSocket); path != "" {
		s, err := c.loadLocalSettings(l.fl)
		if err != nil {
			return err
		}
		return c.execInRun(path, l, s, log, spare)
	}
	s, err := c.loadSettings(l.fl)
	if err != nil {
		return err
	}
	return c.execStandalone(l, s, log, spare)
}

// begin is the begin message of the step under parent (the TRACEPARENT it
// was started with, inside a run), cleaned and checked as a message on a
// run's socket is (protocol.Clean, protocol.Validate), inside a run and
// outside one alike: a step whose name or attributes break a rule runs
// without a phase.
func (l execLine) begin(parent string) (protocol.Msg, error) {
	m := protocol.Msg{V: protocol.Version, Type: protocol.TypeBegin, Name: l.name, Syntax: protocol.SyntaxExec,
		Parent: parent,
		Attrs: append(append([]attribute.KeyValue(nil), l.attrs...), semconv.ProcessExecutableName(filepath.Base(l.argv[0])),
			spans.AttrPhaseSource.String(protocol.SyntaxExec))}
	m.Clean()
	return m, protocol.Validate(&m)
}

// execInRun asks the enclosing 'jobtrace run' for the phase, so it nests
// with the job's other phases, and runs CMD under it. A begin the run
// refuses is warned about, and CMD runs without a phase: no end is sent,
// which could end another open phase of that name.
func (c *cli) execInRun(path string, l execLine, s settings, log *supervise.Logger, spare *supervise.Spare) error {
	name, argv := l.name, l.argv
	env := os.Environ()
	var conn *socket.Client
	var reply protocol.Reply
	begin, err := l.begin(c.getenv("TRACEPARENT"))
	if err == nil {
		if conn, err = socket.Dial(path); err == nil {
			defer conn.Close()
			reply, err = conn.Request(begin)
			if err == nil && !reply.OK {
				err = errors.New(reply.Error)
			}
		}
		if err != nil {
			err = fmt.Errorf("%s: %w", session.EnvSocket, err)
		}
	}
	if err != nil {
		log.Warn(fmt.Sprintf("%v: running %s without a phase", err, name))
	} else if reply.Traceparent != "" {
		env = spans.MergeEnv(env, map[string]string{"TRACEPARENT": reply.Traceparent})
	}
	code, startErr := supervise.Run(argv, env, os.Environ(), s.cfg.GracePeriod, log, spare)
	code = startCode(code, startErr, log)
	if err == nil {
		result, status := session.CommandEnd(argv[0], code, startErr)
		end := protocol.Msg{V: protocol.Version, Type: protocol.TypeEnd, Name: begin.Name, Syntax: protocol.SyntaxExec, Span: reply.Traceparent,
			Result: result, Status: status, Attrs: []attribute.KeyValue{semconv.ProcessExitCode(code)}}
		if _, err := conn.Request(end); err != nil {
			log.Warn(fmt.Sprintf("%s: %v", session.EnvSocket, err))
		}
	}
	return exitWith(code)
}

// startCode is code, or, for a command that could not be started (err),
// the shell's code for it (supervise.StartCode), err said on log.
func startCode(code int, err error, log *supervise.Logger) int {
	if err == nil {
		return code
	}
	log.Printf("%v", err)
	code, _ = supervise.StartCode(err)
	return code
}

// execStandalone makes the span itself and exports it.
func (c *cli) execStandalone(l execLine, s settings, log *supervise.Logger, spare *supervise.Spare) error {
	argv := l.argv
	begin, err := l.begin("")
	var sa *standaloneRun
	if err == nil {
		sa, err = openStandalone(s, log)
	}
	if err != nil {
		log.Warn(err.Error() + ": running without a span")
		code, startErr := supervise.Run(argv, os.Environ(), nil, s.cfg.GracePeriod, log, spare)
		return exitWith(startCode(code, startErr, log))
	}
	tracer := sa.pipe.TracerProvider.Tracer("jobtrace")
	ctx, sp := tracer.Start(s.parent(), begin.Name, trace.WithAttributes(begin.Attrs...))
	env := spans.MergeEnv(os.Environ(), spans.InjectEnv(ctx), spans.EnvKeys()...)
	code, startErr := supervise.Run(argv, env, os.Environ(), s.cfg.GracePeriod, log, spare)
	sa.forgetSignals()
	code = startCode(code, startErr, log)
	result, status := session.CommandEnd(argv[0], code, startErr)
	sp.SetAttributes(semconv.ProcessExitCode(code))
	spans.SetResult(sp, result, status)
	sp.End()
	sa.close(sp.SpanContext().IsSampled())
	return exitWith(code)
}
