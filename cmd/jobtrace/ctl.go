package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/jobtrace/jobtrace/session"
	"github.com/jobtrace/jobtrace/spans/protocol"
	"github.com/jobtrace/jobtrace/spans/socket"
	"github.com/jobtrace/jobtrace/supervise"
)

// attrFlag collects repeatable --attr key=value flags.
type attrFlag []attribute.KeyValue

func (a *attrFlag) String() string { return "" }
func (a *attrFlag) Set(s string) error {
	k, v, ok := strings.Cut(s, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q is not key=value", s)
	}
	*a = append(*a, attribute.String(k, v))
	return nil
}

var _ flag.Value = (*attrFlag)(nil)

const phaseExamples = `  jobtrace phase begin compile
  make
  jobtrace phase end compile

  jobtrace phase begin deploy --attr env=staging
  ./deploy.sh || { jobtrace phase end deploy --result failure; exit 1; }
  jobtrace phase end deploy

Inside 'jobtrace run' the phase becomes a child span of the innermost open
phase. Outside it, the phase is a span of the trace in TRACEPARENT (or of a
new trace), kept in a state file between begin and end and exported by
'phase end' with the OTEL_* settings.
`

func cmdPhase(args []string) error {
	if len(args) == 0 {
		return usagef("phase: want 'begin' or 'end' (usage: jobtrace phase begin|end NAME)")
	}
	verb := args[0]
	if verb == "-h" || verb == "--help" || verb == "help" {
		newFlagSet("phase", "jobtrace phase begin|end NAME [flags]", phaseExamples).Usage()
		return flag.ErrHelp
	}
	if verb != "begin" && verb != "end" {
		return usagef("phase: unknown action %q: want begin or end", verb)
	}
	fs := newFlagSet("phase", "jobtrace phase "+verb+" NAME [flags]", phaseExamples)
	var attrs attrFlag
	fs.Var(&attrs, "attr", "attribute `key=value` for the phase (repeatable)")
	result := fs.String("result", "", "end: the phase's result: success, failure, error, timeout, cancellation or skip")
	parent := fs.String("parent", "", "begin: the open phase to nest under (default: the innermost)")
	name, rest, err := nameThenFlags(args[1:], "phase "+verb)
	if err != nil {
		return err
	}
	if err := parseFlags(fs, rest); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("phase %s: unexpected argument %q", verb, fs.Arg(0))
	}
	if !protocol.ValidResult(*result) {
		return usagef("phase end: --result %q: want success, failure, error, timeout, cancellation or skip", *result)
	}
	m := protocol.Msg{V: protocol.Version, Name: name, Attrs: attrs, Parent: *parent, Result: *result, Syntax: protocol.SyntaxSocket, Time: time.Now()}
	if verb == "begin" {
		m.Type = protocol.TypeBegin
	} else {
		m.Type = protocol.TypeEnd
	}
	return deliver(m)
}

// nameThenFlags takes the NAME argument that comes first, leaving the flags.
func nameThenFlags(args []string, what string) (string, []string, error) {
	for i, a := range args {
		if a == "-h" || a == "--help" || a == "-help" {
			return "", []string{a}, nil
		}
		if !strings.HasPrefix(a, "-") {
			rest := append(append([]string{}, args[:i]...), args[i+1:]...)
			return a, rest, nil
		}
	}
	return "", nil, usagef("%s: NAME is missing", what)
}

const eventExamples = `  jobtrace event cache-miss --attr key=deps
  jobtrace event retry --attr attempt=2
`

func cmdEvent(args []string) error {
	fs := newFlagSet("event", "jobtrace event NAME [--attr key=value]...", eventExamples)
	var attrs attrFlag
	fs.Var(&attrs, "attr", "attribute `key=value` of the event (repeatable)")
	name, rest, err := nameThenFlags(args, "event")
	if err != nil {
		return err
	}
	if err := parseFlags(fs, rest); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("event: unexpected argument %q", fs.Arg(0))
	}
	return deliver(protocol.Msg{V: protocol.Version, Type: protocol.TypeEvent, Name: name, Attrs: attrs, Syntax: protocol.SyntaxSocket, Time: time.Now()})
}

const counterExamples = `  jobtrace counter tests.failed --value 3
  jobtrace counter cache.hits
`

func cmdCounter(args []string) error {
	fs := newFlagSet("counter", "jobtrace counter NAME [--value N] [--attr key=value]...", counterExamples)
	var attrs attrFlag
	fs.Var(&attrs, "attr", "attribute `key=value` of the data point (repeatable)")
	value := fs.String("value", "1", "the increment, a non-negative number")
	name, rest, err := nameThenFlags(args, "counter")
	if err != nil {
		return err
	}
	if err := parseFlags(fs, rest); err != nil {
		return err
	}
	v, err := strconv.ParseFloat(*value, 64)
	if err != nil || v < 0 {
		return usagef("counter: --value %q is not a non-negative number", *value)
	}
	return deliver(protocol.Msg{V: protocol.Version, Type: protocol.TypeCounter, Name: name, Value: v, Attrs: attrs, Syntax: protocol.SyntaxSocket})
}

// deliver sends m to the enclosing 'jobtrace run', or handles it standalone.
func deliver(m protocol.Msg) error {
	path := getenv(session.EnvSocket)
	if path == "" {
		return standalone(m)
	}
	c, err := socket.Dial(path)
	if err != nil {
		return fmt.Errorf("%s=%s: %v", session.EnvSocket, path, err)
	}
	defer c.Close()
	r, err := c.Request(m)
	if err != nil {
		return fmt.Errorf("%s: %v", session.EnvSocket, err)
	}
	if !r.OK {
		// A warning, not an error: a marker that does not apply must not
		// fail the job's step.
		fmt.Fprintf(os.Stderr, "jobtrace: warning: %s\n", supervise.Line(r.Error))
	}
	return nil
}
