package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"runtime"
	"strings"

	"github.com/jobtrace/jobtrace/kstat"
)

const debugKstatUsage = "jobtrace debug kstat [--headers] [module[:instance[:name]]]"

const debugKstatExamples = `  jobtrace debug kstat unix:0:system_misc  # load averages, ncpus, boot time
  jobtrace debug kstat cpu::sys            # CPU time per mode, every CPU
  jobtrace debug kstat --headers           # every kstat's header, no values
  jobtrace debug kstat sd                  # the I/O counters of sd disks

A selector part that is empty or '*' matches anything. Named kstats print
their values, I/O kstats their counters; other types are listed only.
kstat is illumos-only: elsewhere this exits 1.
`

// cmdDebug prints what jobtrace reads from the system, so that a reader can
// be checked on a machine where its tests do not run.
func (c *cli) cmdDebug(args []string) error {
	if len(args) == 0 {
		return usagef("debug: want a subcommand: kstat (usage: %s)", debugKstatUsage)
	}
	switch args[0] {
	case "-h", "--help", "-help", "help":
		fmt.Printf("Usage:\n  jobtrace debug <subcommand> [flags] [arguments]\n\n"+
			"Subcommands:\n  kstat    print the illumos kstats jobtrace reads: headers, then values\n\n"+
			"Examples:\n%s\nRun 'jobtrace debug kstat --help' for its flags.\n", debugKstatExamples)
		return flag.ErrHelp
	case "kstat":
		return c.cmdDebugKstat(args[1:])
	}
	return usagef("debug: unknown subcommand %q: want kstat", args[0])
}

func (c *cli) cmdDebugKstat(args []string) error {
	fs := newFlagSet("debug kstat", debugKstatUsage, debugKstatExamples)
	headersOnly := fs.Bool("headers", false, "print the matching kstats' headers only, not their values")
	// The selector may come before or after the flags.
	var flags, selectors []string
	for _, a := range args {
		if strings.HasPrefix(a, "-") {
			flags = append(flags, a)
		} else {
			selectors = append(selectors, a)
		}
	}
	if err := parseFlags(fs, flags); err != nil {
		return err
	}
	if len(selectors) > 1 {
		return usagef("debug kstat: one selector at most, got %q", selectors)
	}
	sel := kstat.SelectAll()
	if len(selectors) == 1 {
		var err error
		if sel, err = kstat.ParseSelector(selectors[0]); err != nil {
			return usagef("debug kstat: %v", err)
		}
	}
	tok, err := kstat.Open()
	if errors.Is(err, kstat.ErrUnsupported) {
		return fmt.Errorf("debug kstat: kstat is illumos-only; this is %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	if err != nil {
		return fmt.Errorf("debug kstat: %w", err)
	}
	defer tok.Close()
	if err := tok.Dump(os.Stdout, sel, *headersOnly); err != nil {
		return fmt.Errorf("debug kstat: some kstats could not be read (see above): %w", err)
	}
	if len(tok.Find(sel.Match)) == 0 {
		return fmt.Errorf("debug kstat: no kstat matches %s", sel)
	}
	return nil
}
