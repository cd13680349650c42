package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/jobtrace/jobtrace/exporters/spool"
	"github.com/jobtrace/jobtrace/exporters/usagecsv"
	"github.com/jobtrace/jobtrace/rundiff"
	"github.com/jobtrace/jobtrace/runmodel"
	"github.com/jobtrace/jobtrace/supervise"
)

const diffUsage = "jobtrace diff [flags] OLD NEW\n  jobtrace diff [flags] --baseline DIR... -- NEW"

const diffExamples = `  jobtrace diff base-out jobtrace-out
  jobtrace diff --format markdown base-out jobtrace-out >> "$GITHUB_STEP_SUMMARY"
  jobtrace diff --baseline runs/1 runs/2 runs/3 -- jobtrace-out
  jobtrace diff --fail-if-slower 20% base-out jobtrace-out

Compares the run whose artifacts are in NEW with the run in OLD, or with
the median of the --baseline runs (the directories after --baseline, up
to --), phase by phase: duration, CPU time, CPUs busy, peak memory and
disk IO, each change with its most likely cause. Phases are matched by
their path from the job down; a change under the noise rule is "same".
Exit status: 0; 1 when --fail-if-slower is given and the job or a phase
is slower by more; 2 for a usage error or a directory that holds no
whole run. See docs/diff.md.
`

// baselineFlag is the flag that takes several directories.
const baselineFlag = "baseline"

// cutBaselines takes the --baseline directories out of args: each
// --baseline (or --baseline=DIR) is followed by directories up to "--" or
// the next flag. It returns them and the other arguments, "--" kept. A
// "--" before any --baseline ends the flags: the rest is kept as it is.
func cutBaselines(cmd string, args []string) (bases, rest []string, err error) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return bases, append(rest, args[i:]...), nil
		}
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if !strings.HasPrefix(a, "-") || name != baselineFlag {
			rest = append(rest, a)
			continue
		}
		n := len(bases)
		if hasVal {
			bases = append(bases, val)
		}
		for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
			bases = append(bases, args[i])
		}
		if len(bases) == n {
			return nil, nil, usagef("%s: --baseline wants one or more directories (usage: %s)", cmd, "jobtrace "+cmd+" --baseline DIR... -- "+map[string]string{"diff": "NEW", "report": "DIR"}[cmd])
		}
	}
	return bases, rest, nil
}

func (c *cli) cmdDiff(args []string) error {
	bases, rest, err := cutBaselines("diff", args)
	if err != nil {
		return err
	}
	fs := newFlagSet("diff", diffUsage, diffExamples)
	fs.Func(baselineFlag, "the base runs' directories, several, ended by -- (compared with their median)", func(string) error { return nil })
	format := fs.String("format", "text", "output: text, markdown (a pull-request comment) or json")
	failIf := fs.String("fail-if-slower", "", "exit 1 when the job or a phase is slower than its base by more than this: a percentage (20%) or a duration (30s)")
	if err := parseFlags(fs, rest); err != nil {
		return err
	}
	write := map[string]func(io.Writer, *rundiff.Diff, rundiff.Labels) error{
		"text": rundiff.WriteText, "markdown": rundiff.WriteMarkdown, "md": rundiff.WriteMarkdown, "json": rundiff.WriteJSON,
	}[*format]
	if write == nil {
		return usagef("diff: --format %q: want text, markdown or json", *format)
	}
	if *format == "text" && colourTerminal(os.Stdout, c.getenv) {
		write = rundiff.WriteColourText
	}
	var limit rundiff.Limit
	if *failIf != "" {
		if limit, err = rundiff.ParseLimit(*failIf); err != nil {
			return usagef("diff: --fail-if-slower: %v", err)
		}
	}
	pos := fs.Args()
	for _, a := range pos {
		if strings.HasPrefix(a, "-") {
			return usagef("diff: %q after the directories: flags go before them (usage: jobtrace diff [flags] OLD NEW)", a)
		}
	}
	switch {
	case len(bases) > 0 && len(pos) == 0:
		return usagef("diff: no run to compare with the baselines: end them with -- and give the new run after it (jobtrace diff --baseline D1 D2 -- NEW)")
	case len(bases) > 0 && len(pos) > 1:
		return usagef("diff: %d directories after the baselines: want one, the new run (jobtrace diff --baseline D1 D2 -- NEW)", len(pos))
	case len(bases) == 0 && len(pos) > 2:
		return usagef("diff: %d directories: want two, OLD NEW, or several base runs as --baseline D1 D2 -- NEW", len(pos))
	case len(bases) == 0 && len(pos) < 2:
		return usagef("diff: want two directories, OLD NEW (or --baseline DIR... -- NEW)")
	case len(bases) == 0:
		bases, pos = pos[:1], pos[1:]
	}

	log := supervise.NewLogger(os.Stderr)
	baseRuns, err := readRuns("diff", bases, log)
	if err != nil {
		return err
	}
	run, err := readRun("diff", pos[0], log)
	if err != nil {
		return err
	}
	noteOtherJobs(log, "diff", bases, baseRuns, pos[0], run)
	d := rundiff.Compare(baseRuns, run)
	if err := write(os.Stdout, d, rundiff.Labels{Base: bases, Run: pos[0]}); err != nil {
		return err
	}
	if *failIf == "" {
		return nil
	}
	slow := d.SlowerThan(limit)
	if len(slow) == 0 {
		return nil
	}
	names := make([]string, len(slow))
	for i, r := range slow {
		name := "job"
		if r != &d.Job {
			name = fmt.Sprintf("phase %q", strings.Join(r.Path, "/"))
		}
		names[i] = name + " " + rundiff.ChangeText(r)
	}
	log.Printf("diff: slower than --fail-if-slower %s: %s", limit, strings.Join(names, ", "))
	return &exitError{code: 1}
}

// maxOtherJobsNamed bounds the base runs of another job that
// noteOtherJobs names; the rest are counted.
const maxOtherJobsNamed = 3

// noteOtherJobs says, in one line, when base runs are of another job than
// the run compared (their job spans' names differ): the phases are
// compared by their names all the same, which is seldom what was meant
// (a wrong directory), and a --fail-if-slower check would judge one job
// by another.
func noteOtherJobs(log *supervise.Logger, cmd string, bases []string, baseRuns []*runmodel.Run, dir string, run *runmodel.Run) {
	if !run.HasJob {
		return
	}
	var other []string
	n := 0
	for i, b := range baseRuns {
		if !b.HasJob || b.Job.Name == run.Job.Name {
			continue
		}
		if n++; n <= maxOtherJobsNamed {
			other = append(other, fmt.Sprintf("%s is job %q", bases[i], b.Job.Name))
		}
	}
	if n == 0 {
		return
	}
	if n > maxOtherJobsNamed {
		other = append(other, fmt.Sprintf("and %d more", n-maxOtherJobsNamed))
	}
	log.Printf("%s: %s is job %q, but %s: their phases are compared by name all the same", cmd, dir, run.Job.Name, strings.Join(other, ", "))
}

// colourTerminal reports whether f is a terminal to write colour to: not
// when NO_COLOR is set (no-color.org) or TERM is dumb.
func colourTerminal(f *os.File, getenv func(string) string) bool {
	return term.IsTerminal(int(f.Fd())) && getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
}

// readRuns reads the base runs in dirs (readRun), each slimmed to what a
// comparison reads (runmodel.Run.Slim) before the next is read: many base
// runs cost their figures, not their artifacts.
func readRuns(cmd string, dirs []string, log *supervise.Logger) ([]*runmodel.Run, error) {
	runs := make([]*runmodel.Run, len(dirs))
	for i, dir := range dirs {
		var err error
		if runs[i], err = readRun(cmd, dir, log); err != nil {
			return nil, err
		}
		runs[i].Slim()
	}
	return runs, nil
}

// readRun reads the run whose artifacts are in dir, for a comparison: a
// directory that is missing, holds no artifacts, or holds a run without
// its job's span (an agent killed before the job ended) is a usage error
// (exit 2) that says what was read. Unreadable lines are skipped and
// counted in a message.
func readRun(cmd, dir string, log *supervise.Logger) (*runmodel.Run, error) {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, usagef("%s: %s: no such directory", cmd, dir)
	case err != nil:
		return nil, usagef("%s: %v", cmd, err)
	case !st.IsDir():
		return nil, usagef("%s: %s: not a directory", cmd, dir)
	}
	run, warn, err := runmodel.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, usagef("%s: %s: no run there: neither %s nor %s", cmd, dir, spool.TracesFile, usagecsv.FileName)
	case err != nil:
		return nil, usagef("%s: %s: %v", cmd, dir, err)
	}
	if warn != nil {
		log.Printf("%s: %s: %s", cmd, dir, artifactWarning(warn))
	}
	if !run.HasJob {
		return nil, usagef("%s: %s: no job span: the run did not end (was its agent killed?); read %d phases and %d usage rows", cmd, dir, len(run.Phases), len(run.Rows))
	}
	return run, nil
}
