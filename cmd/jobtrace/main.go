// Command jobtrace makes CI jobs observable the OpenTelemetry way: it wraps a
// job, turns its phases into spans, and exports them over OTLP while always
// writing local artifacts.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/jobtrace/jobtrace/agent/background"
	"github.com/jobtrace/jobtrace/internal/poller"
	"github.com/jobtrace/jobtrace/internal/redact"
	"github.com/jobtrace/jobtrace/supervise"

	// Answers 'jobtrace phase|event|counter' inside a run before the
	// exporter stack is initialized; see its package comment.
	_ "github.com/jobtrace/jobtrace/cmd/jobtrace/internal/fastpath"
	// Runs the guard process of 'jobtrace run' before the rest of
	// jobtrace is initialized; see its package comment.
	_ "github.com/jobtrace/jobtrace/cmd/jobtrace/internal/guardmain"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = ""

func jobtraceVersion() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

// usageError is a bad command line: exit code 2 and a one-line reason.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// exitError carries an exit code without a message of its own.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

type command struct {
	name    string
	summary string
	run     func(args []string) error
}

// cli is one invocation of jobtrace: what its commands run with.
type cli struct {
	start  time.Time // when the process started, for the start-up span
	getenv func(string) string
}

// commands are jobtrace's commands, in the order the usage lists them.
func (c *cli) commands() []command {
	return []command{
		{"run", "wrap a job: its phases become spans; artifacts in --out", c.cmdRun},
		{"start", "start tracing a job whose steps run apart (GitHub Actions, GitLab, Buildkite)", c.cmdStart},
		{"stop", "end the job that start began: artifacts, export, summary", c.cmdStop},
		{"phase", "open or close a phase from inside a job (phase begin|end NAME), or add one that has ended (phase add)", c.cmdPhase},
		{"event", "record an event on the current phase", c.cmdEvent},
		{"counter", "add to a named counter", c.cmdCounter},
		{"exec", "run one step as a child phase (exec NAME -- CMD...)", c.cmdExec},
		{"replay", "send spooled spans that were not delivered to a collector", c.cmdReplay},
		{"report", "write DIR/report.html and DIR/usage.svg from a run's artifacts", c.cmdReport},
		{"profile", "write DIR/profile.json for the Firefox Profiler from a run's artifacts", c.cmdProfile},
		{"diff", "compare two runs' artifacts phase by phase (diff OLD NEW), or a run with the median of --baseline runs", c.cmdDiff},
		{"config", "print the effective configuration, secrets masked", c.cmdConfig},
		{"debug", "print what jobtrace reads from the system (debug kstat: illumos kstats)", c.cmdDebug},
		{"version", "print jobtrace's version", c.cmdVersion},
	}
}

const mainUsage = `jobtrace makes CI jobs observable the OpenTelemetry way.

Usage:
  jobtrace <command> [flags] [arguments]

Commands:
%s
Examples:
  jobtrace run -- ./ci/build.sh
  jobtrace phase begin compile && make && jobtrace phase end compile
  jobtrace exec test -- go test ./...
  jobtrace replay jobtrace-out

Run 'jobtrace <command> --help' for a command's flags and examples.
Documentation: README.md and docs/ in jobtrace's source.
`

func printMainUsage(w io.Writer, commands []command) {
	var b strings.Builder
	for _, c := range commands {
		fmt.Fprintf(&b, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintf(w, mainUsage, b.String())
}

func main() {
	c := &cli{start: time.Now(), getenv: os.Getenv}
	if code, done := c.stepAside(os.Args[1:]); done {
		os.Exit(code)
	}
	poller.Start()
	os.Exit(c.dispatch(os.Args[1:]))
}

func (c *cli) dispatch(args []string) int {
	if len(args) == 0 {
		printMainUsage(os.Stderr, c.commands())
		return 2
	}
	name := args[0]
	switch name {
	case background.Arg:
		return exitCode(c.cmdAgent(args[1:]))
	case "-h", "--help", "-help", "help":
		if len(args) > 1 {
			return c.dispatch([]string{args[1], "--help"})
		}
		printMainUsage(os.Stdout, c.commands())
		return 0
	case "--version", "-version":
		name = "version"
	}
	for _, cmd := range c.commands() {
		if cmd.name == name {
			return exitCode(cmd.run(args[1:]))
		}
	}
	fmt.Fprintf(os.Stderr, "jobtrace: unknown command %q (run 'jobtrace help' for the list)\n", name)
	return 2
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	fmt.Fprintf(os.Stderr, "jobtrace: %s\n", supervise.Line(redact.String(firstLine(err.Error()))))
	var ue *usageError
	if errors.As(err, &ue) || isConfigError(err) {
		return 2
	}
	return 1
}

// artifactWarning says what ReadDir could not read of a run's artifacts
// and skipped (its warn, errors joined, some joined in turn: a row's bad
// figures): how many, each leaf counted once, and the first. Only joins
// (errors.Join) are taken apart: an error with a message of its own that
// wraps several (a spool line's: what is wrong, where, and the decoder's
// error) is one part, said whole.
func artifactWarning(warn error) string {
	var leaves []error
	var walk func(error)
	walk = func(err error) {
		if j, ok := err.(interface{ Unwrap() []error }); ok && isJoin(err, j.Unwrap()) {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		leaves = append(leaves, err)
	}
	walk(warn)
	if len(leaves) == 0 {
		return ""
	}
	first := firstLine(leaves[0].Error())
	if len(leaves) == 1 {
		return "could not read part of the artifacts, skipped it: " + first
	}
	return fmt.Sprintf("could not read %d parts of the artifacts, skipped them (first: %s)", len(leaves), first)
}

// isJoin reports whether err is parts joined as errors.Join joins them:
// its message is theirs, one a line.
func isJoin(err error, parts []error) bool {
	var b strings.Builder
	for i, e := range parts {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return err.Error() == b.String()
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// newFlagSet makes a flag set whose errors are returned as usage errors and
// whose --help prints usage and examples.
func newFlagSet(name, usage, examples string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {
		w := os.Stdout
		fmt.Fprintf(w, "Usage:\n  %s\n\nFlags:\n", usage)
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
		if examples != "" {
			fmt.Fprintf(w, "\nExamples:\n%s", examples)
		}
	}
	return fs
}

// parseFlags parses args, turning flag errors into one-line usage errors.
// The flag package itself calls Usage on -help and on a bad flag: it is
// silenced during Parse, so the usage is printed once, for -help only.
func parseFlags(fs *flag.FlagSet, args []string) error {
	usage := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = usage
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fs.Usage()
			return flag.ErrHelp
		}
		return usagef("%s: %v (see 'jobtrace %s --help')", fs.Name(), err, fs.Name())
	}
	return nil
}

func (c *cli) cmdVersion(args []string) error {
	fs := newFlagSet("version", "jobtrace version", "")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	fmt.Println("jobtrace", jobtraceVersion())
	return nil
}
