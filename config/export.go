package config

import (
	"errors"

	"github.com/jobtrace/jobtrace/exporters/otlp"
)

// Export returns the OTLP export that Load resolved: a nil signal has no
// endpoint, or sdk_disabled or its exporter (none) turned it off.
func (c Config) Export() otlp.Export { return c.export }

// signals are the signals c exports, if they have an endpoint.
func (c Config) signals() otlp.Signals {
	if c.SDKDisabled {
		return otlp.Signals{}
	}
	return otlp.Signals{
		Traces:  c.TracesExporter == otlp.ExporterOTLP,
		Metrics: c.MetricsExporter == otlp.ExporterOTLP,
	}
}

// resolveExport resolves c.OTLP into c.export through the one resolver,
// otlp.Resolve, reading the TLS files of the signals that are exported.
// Load calls it after validate, so `jobtrace run`, `config` and `replay`
// refuse the same settings with the same line.
func (c *Config) resolveExport() *fieldError {
	exp, err := otlp.Resolve(c.OTLP, c.signals())
	if err != nil {
		return otlpError(err)
	}
	c.export = exp
	return nil
}

// otlpError is a refusal of the resolver as a bad value of a key of the
// otlp section.
func otlpError(err error) *fieldError {
	var se *otlp.SettingError
	if !errors.As(err, &se) {
		return bad("otlp", "%v", err)
	}
	fe := &fieldError{key: "otlp." + se.Key, msg: se.Msg}
	if se.Entry != "" {
		fe.at = "otlp." + se.Entry
	}
	return fe
}
