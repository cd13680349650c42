package main

import (
	"os"

	"github.com/jobtrace/jobtrace/agent"
	"github.com/jobtrace/jobtrace/config"
	"github.com/jobtrace/jobtrace/internal/safefile"
	"github.com/jobtrace/jobtrace/session"
)

const runExamples = `  jobtrace run -- ./ci/build.sh
  jobtrace run --name build --out /tmp/jt -- make -j4
  OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 jobtrace run -- ./ci/test.sh
  jobtrace run --markers gitlab --export-timeout 5s -- ./ci/deploy.sh

Inside the job, TRACEPARENT, TRACESTATE and BAGGAGE carry the job's trace
context, JOBTRACE_SOCKET is the socket that 'jobtrace phase|event|exec' talk
to, and JOBTRACE_MARKER_DIR is a directory where any process may append
JSON-lines markers to a file of its own. See docs/markers.md.
`

// parseRun parses the arguments of `jobtrace run`: the job's command line
// and the flags.
func parseRun(args []string) ([]string, *config.Flags, error) {
	fs := newFlagSet("run", "jobtrace run [flags] -- CMD [ARGS...]", runExamples)
	fl := config.BindFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return nil, nil, err
	}
	argv := fs.Args()
	if len(argv) == 0 {
		return nil, nil, usagef("run: no command given (usage: jobtrace run [flags] -- CMD [ARGS...])")
	}
	return argv, fl, nil
}

func (c *cli) cmdRun(args []string) error {
	argv, fl, err := parseRun(args)
	if err != nil {
		return err
	}
	s, err := c.loadSettings(fl)
	if err != nil {
		return err
	}
	var logw *os.File
	if s.cfg.Log != "" {
		logw, err = safefile.OpenLog(s.cfg.Log, 0o644)
		if err != nil {
			return usagef("--log: %v", err)
		}
		defer logw.Close()
	}
	o := agent.Options{
		Session:     c.sessionSettings(s, s.taskName(argv)),
		Args:        argv,
		GracePeriod: s.cfg.GracePeriod,
		Parent:      s.parent(),
		Stdin:       os.Stdin,
		Stdout:      os.Stdout,
		Stderr:      os.Stderr,
		Guard:       true,
	}
	if logw != nil {
		o.Log = logw
	}
	return exitWith(agent.Run(o))
}

// sessionSettings are the settings of the session of `jobtrace run` and
// of the agent of `jobtrace start`, for a job named name.
func (c *cli) sessionSettings(s settings, name string) session.Settings {
	set := session.FromConfig(s.cfg, s.ci, jobtraceVersion())
	set.Name, set.Env, set.Start = name, os.Environ(), c.start
	return set
}

func exitWith(code int) error {
	if code == 0 {
		return nil
	}
	return &exitError{code}
}
