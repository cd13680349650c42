package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/cmd/jobtrace/internal/fastpath"
	"github.com/jobtrace/jobtrace/session"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/socket"
	"github.com/jobtrace/jobtrace/supervise"
)

// attrFlag collects repeatable --attr key=value flags (of exec, whose other
// flags are the configuration's), by the marker commands' own rule.
type attrFlag []attribute.KeyValue

func (a *attrFlag) String() string { return "" }
func (a *attrFlag) Set(s string) error {
	k, v, ok := fastpath.ParseAttr(s)
	if !ok {
		return fmt.Errorf("%q is not key=value", s)
	}
	*a = append(*a, attribute.String(k, v))
	return nil
}

var _ flag.Value = (*attrFlag)(nil)

const attrHelp = `  --attr key=value
        attribute of the %s (repeatable)
`

const phaseUsage = `Usage:
  jobtrace phase begin|end NAME [flags]
  jobtrace phase add NAME --start TIME --end TIME [flags]

Flags:
` + attrHelp + `  --parent NAME
        begin: the open phase to nest under (default: the innermost);
        add: the open phase (name or span id) to add it under (default: the job)
  --result RESULT
        end, add: the phase's result: success, failure, error, timeout, cancellation or skip
  --start TIME, --end TIME
        add: when the phase began and ended, RFC 3339 (2006-01-02T15:04:05.999Z)

Examples:
  jobtrace phase begin compile
  make
  jobtrace phase end compile

  jobtrace phase begin deploy --attr env=staging
  ./deploy.sh || { jobtrace phase end deploy --result failure; exit 1; }
  jobtrace phase end deploy

  jobtrace phase add checkout --start 2026-11-29T12:00:01Z --end 2026-11-29T12:00:04Z

'phase add' adds a phase that has ended already, with its times, under the
job: its resource usage is computed from the samples taken around it.

Inside 'jobtrace run' the phase becomes a child span of the innermost open
phase; in the command of 'jobtrace exec', of the innermost open phase of
that step (its TRACEPARENT), whatever steps run beside it. Outside it, the phase is a span of the trace in TRACEPARENT (or of a
new trace), kept in a state file between begin and end and exported by
'phase end' with the OTEL_* settings.
`

const eventUsage = `Usage:
  jobtrace event NAME [--attr key=value]...

Flags:
` + attrHelp + `
Examples:
  jobtrace event cache-miss --attr key=deps
  jobtrace event retry --attr attempt=2
`

const counterUsage = `Usage:
  jobtrace counter NAME [--value N] [--attr key=value]...

Flags:
` + attrHelp + `  --value N
        the increment, a non-negative number (default 1)

Examples:
  jobtrace counter tests.failed --value 3
  jobtrace counter cache.hits
`

func (c *cli) cmdPhase(args []string) error {
	return c.marker("phase", phaseUsage, "phase", args)
}

func (c *cli) cmdEvent(args []string) error {
	return c.marker("event", eventUsage, "event", args)
}

func (c *cli) cmdCounter(args []string) error {
	return c.marker("counter", counterUsage, "data point", args)
}

// marker parses a marker command (with the parser the fast path uses) and
// delivers its message.
func (c *cli) marker(cmd, usage, of string, args []string) error {
	r, err := fastpath.Parse(append([]string{cmd}, args...))
	switch {
	case errors.Is(err, fastpath.ErrHelp):
		fmt.Fprintf(os.Stdout, usage, of)
		return flag.ErrHelp
	case err != nil:
		return usagef("%v", err)
	}
	// The message the fast path sends (Request.AppendLine).
	m := protocol.FromWire(r.Msg(time.Now(), c.getenv("TRACEPARENT")))
	m.Syntax = protocol.SyntaxSocket
	for _, kv := range r.Attrs {
		m.Attrs = append(m.Attrs, attribute.String(kv[0], kv[1]))
	}
	return c.deliver(m, r.What())
}

// deliver sends m (what, as fastpath.Request.What names it) to the
// enclosing 'jobtrace run', or handles it standalone. An agent that cannot
// be reached or does not answer (it was killed, the run that set
// JOBTRACE_SOCKET has ended) is warned about, not an error: a marker never
// fails the job's step, as `jobtrace exec` runs its command without a
// phase then.
func (c *cli) deliver(m protocol.Msg, what string) error {
	path := c.getenv(session.EnvSocket)
	if path == "" {
		return c.standalone(m, what)
	}
	conn, err := socket.Dial(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, supervise.Line(fastpath.Unreached(path, err.Error(), what, false)))
		return nil
	}
	defer conn.Close()
	r, err := conn.Request(m)
	if err != nil {
		fmt.Fprintln(os.Stderr, supervise.Line(fastpath.Unreached(path, err.Error(), what, true)))
		return nil
	}
	if !r.OK {
		// A warning, not an error: a marker that does not apply must not
		// fail the job's step.
		fmt.Fprintf(os.Stderr, "jobtrace: warning: %s\n", supervise.Line(r.Error))
	}
	return nil
}
