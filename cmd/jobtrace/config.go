package main

import (
	"os"

	"github.com/jobtrace/jobtrace/config"
)

const configExamples = `  jobtrace config
  OTEL_EXPORTER_OTLP_ENDPOINT=http://localhost:4318 jobtrace config --out /tmp/jt
  jobtrace config --config ci/jobtrace.yaml

Prints the configuration that 'jobtrace run' would use, as YAML: defaults,
then jobtrace.yaml, then OTEL_* variables, then JOBTRACE_* variables, then
flags. Header values and other secrets are masked. Settings that 'jobtrace
run' would refuse (an endpoint that does not fit the protocol, a header HTTP
cannot send, a certificate file that cannot be used) are refused the same
way: one line, exit status 2.
`

func (c *cli) cmdConfig(args []string) error {
	fs := newFlagSet("config", "jobtrace config [flags]", configExamples)
	fl := config.BindFlags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("config: unexpected argument %q", fs.Arg(0))
	}
	cfg, err := config.Load(c.getenv, fl)
	if err != nil {
		return err
	}
	return cfg.WriteYAML(os.Stdout)
}
