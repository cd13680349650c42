package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/jobtrace/jobtrace/agent/background"
	"github.com/jobtrace/jobtrace/config"
	"github.com/jobtrace/jobtrace/internal/safefile"
	"github.com/jobtrace/jobtrace/supervise"
)

const startExamples = `  eval "$(jobtrace start --shell)"       # any POSIX shell: the steps that follow join the job
  jobtrace start                          # GitHub Actions: later steps get the environment from $GITHUB_ENV
  jobtrace start --dotenv jobtrace.env    # GitLab: artifacts:reports:dotenv
  jobtrace exec build -- make
  jobtrace stop --result "$CI_JOB_STATUS"

Starts the agent in the background for the rest of the job, with the job's
span open, and returns as soon as it listens. It prints the environment the
steps need (TRACEPARENT, TRACESTATE, JOBTRACE_SOCKET, JOBTRACE_MARKER_DIR),
one KEY=VALUE a line, and appends it to $GITHUB_ENV when that is set. Steps
use 'jobtrace exec|phase|event' as inside 'jobtrace run'; 'jobtrace stop'
ends the job. The agent ends by itself when the process it watches is gone
(--watch-pid) or after --idle without a message. One agent per --out
directory. Takes the configuration of 'jobtrace run' (docs/configuration.md);
see docs/steps.md.
`

// startOptions are the flags of `jobtrace start` besides the configuration.
type startOptions struct {
	shell    bool
	dotenv   string
	idle     time.Duration
	watchPid int
}

// childOnly are configuration flags that apply to the command of `jobtrace
// run`, which a job started by `jobtrace start` does not have.
var childOnly = []string{"grace-period", "record-args", "markers"}

// startFlags makes the flag set of `jobtrace start`, which the agent
// parses again.
func startFlags() (*flag.FlagSet, *config.Flags, *startOptions) {
	fs := newFlagSet("start", "jobtrace start [flags]", startExamples)
	fl := config.BindFlags(fs)
	so := &startOptions{}
	fs.BoolVar(&so.shell, "shell", false, "print export KEY='VALUE' lines, for eval in a POSIX shell")
	fs.StringVar(&so.dotenv, "dotenv", "", "also write the environment to `file` as KEY=VALUE lines (GitLab's dotenv report)")
	fs.DurationVar(&so.idle, "idle", background.DefaultIdle, "end the job after this long without a message from a step; 0 never")
	fs.IntVar(&so.watchPid, "watch-pid", -1, "end the job when this process is gone; 0 none (default: found as docs/steps.md says)")
	return fs, fl, so
}

// parseStart parses the arguments of `jobtrace start`.
func parseStart(args []string) (*flag.FlagSet, *config.Flags, *startOptions, error) {
	fs, fl, so := startFlags()
	if err := parseFlags(fs, args); err != nil {
		return nil, nil, nil, err
	}
	if fs.NArg() > 0 {
		return nil, nil, nil, usagef("start: unexpected argument %q (the steps run apart: see 'jobtrace start --help')", fs.Arg(0))
	}
	var bad error
	fs.Visit(func(f *flag.Flag) {
		for _, name := range childOnly {
			if f.Name == name && bad == nil {
				bad = usagef("start: --%s applies to the command of 'jobtrace run'; the job of 'jobtrace start' has none", name)
			}
		}
	})
	if bad != nil {
		return nil, nil, nil, bad
	}
	if so.idle < 0 {
		return nil, nil, nil, usagef("start: --idle %s is negative", so.idle)
	}
	return fs, fl, so, nil
}

func (c *cli) cmdStart(args []string) error {
	_, _, so, err := parseStart(args)
	if err != nil {
		return err
	}
	st, err := background.Spawn(args)
	var se *background.StartError
	if errors.As(err, &se) {
		if se.Code == 2 {
			return usagef("%s", se.Msg)
		}
		return errors.New(se.Msg)
	}
	if err != nil {
		return err
	}
	return c.printStartEnv(st.Env, so)
}

// printStartEnv prints the steps' environment, appends it to $GITHUB_ENV
// when set, and writes it to the --dotenv file.
func (c *cli) printStartEnv(env []string, so *startOptions) error {
	var plain, shell strings.Builder
	for _, kv := range env {
		if strings.ContainsAny(kv, "\n\r") {
			return fmt.Errorf("start: %q holds a line break: it cannot be passed to the steps", kv)
		}
		k, v, _ := strings.Cut(kv, "=")
		plain.WriteString(kv + "\n")
		shell.WriteString("export " + k + "='" + strings.ReplaceAll(v, "'", `'\''`) + "'\n")
	}
	// The files first: a reader of stdout that is gone (a closed pipe,
	// `| head -1` done early) must not keep the environment from the steps.
	passed := false
	if path := c.getenv("GITHUB_ENV"); path != "" {
		if err := appendFile(path, plain.String()); err != nil {
			return fmt.Errorf("start: $GITHUB_ENV: %v", err)
		}
		passed = true
	}
	if so.dotenv != "" {
		if err := safefile.WriteFile(so.dotenv, []byte(plain.String()), 0o644); err != nil {
			return fmt.Errorf("start: --dotenv: %v", err)
		}
		passed = true
	}
	out := plain.String()
	if so.shell {
		out = shell.String()
	}
	supervise.SurviveBrokenOutput()
	if _, err := io.WriteString(os.Stdout, out); err != nil {
		if passed {
			supervise.NewLogger(os.Stderr).Warn(fmt.Sprintf("start: the environment was not printed (%v); the steps have it from the file", err))
			return nil
		}
		return fmt.Errorf("start: the environment could not be printed (%v): the steps will not join the job, which `jobtrace stop` ends", err)
	}
	return nil
}

// appendFile appends s to the file at path.
func appendFile(path, s string) error {
	f, err := safefile.Append(path, 0o644)
	if err != nil {
		return err
	}
	_, err = io.WriteString(f, s)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// cmdAgent is the background agent that `jobtrace start` starts, with
// start's arguments.
func (c *cli) cmdAgent(args []string) error {
	ready := os.NewFile(background.ReadyFD, "ready")
	_, fl, so, err := parseStart(args)
	if err != nil {
		background.Fail(ready, 2, err)
		return exitWith(2)
	}
	s, err := c.loadSettings(fl)
	if err != nil {
		background.Fail(ready, 2, err)
		return exitWith(2)
	}
	var watch background.Process
	switch {
	case so.watchPid > 0:
		watch, err = background.LookupProcess(s.cfg.Sampling.ProcRoot, so.watchPid)
		if err != nil {
			background.Fail(ready, 2, fmt.Errorf("--watch-pid: %v", err))
			return exitWith(2)
		}
	case so.watchPid < 0:
		// Found from `jobtrace start`, the agent's parent until it is ready.
		watch = background.DefaultWatch(s.cfg.Sampling.ProcRoot, os.Getppid())
	}
	set := c.sessionSettings(s, s.taskName(nil))
	// The steps are not the agent's children: the job's processes are the
	// tree of the process it watches, which starts them.
	set.Sampling.NoSubreaper, set.Sampling.Tree = true, watch.Pid
	return exitWith(background.Run(background.Options{
		Session:  set,
		Parent:   s.parent(),
		Log:      s.cfg.Log,
		Idle:     so.idle,
		Watch:    watch,
		ProcRoot: s.cfg.Sampling.ProcRoot,
		Ready:    ready,
	}))
}
