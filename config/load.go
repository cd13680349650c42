package config

import (
	"errors"
	"io/fs"
	"os"
	"reflect"

	"github.com/jobtrace/jobtrace/internal/cleantext"
)

// DefaultFile is the configuration file looked for in the current working
// directory when neither --config nor $JOBTRACE_CONFIG names one. The
// working directory, rather than the job's, since jobtrace runs where the CI
// system starts the job.
const DefaultFile = "jobtrace.yaml"

// Load builds the effective configuration, each layer overriding the one
// before:
//
//  1. Default();
//  2. the file: --config, else $JOBTRACE_CONFIG, else ./jobtrace.yaml if it
//     exists, else none (--config "" means none);
//  3. the OTEL_* variables;
//  4. the JOBTRACE_* variables;
//  5. the flags in fl that were set on the command line.
//
// getenv is usually os.Getenv (nil means os.Getenv); an empty value counts as
// unset. fl may be nil. The result is validated and its OTLP export
// resolved (TLS files read, see Export); the error, which wraps ErrConfig,
// is one line naming the file and line, variable or flag that holds the bad
// value.
func Load(getenv func(string) string, fl *Flags) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	c := Default()

	path, given := fl.configFile()
	if !given {
		path = getenv("JOBTRACE_CONFIG")
	}
	if path == "" && !given {
		switch _, err := os.Stat(DefaultFile); {
		case err == nil:
			path = DefaultFile
		case !errors.Is(err, fs.ErrNotExist):
			return Config{}, fileError(DefaultFile, err)
		}
	}
	if path != "" {
		if err := readFile(path, &c); err != nil {
			return Config{}, err
		}
	}
	if err := applyOTELEnv(getenv, &c); err != nil {
		return Config{}, err
	}
	if err := applyJobtraceEnv(getenv, &c); err != nil {
		return Config{}, err
	}
	if fl != nil {
		if err := fl.apply(&c); err != nil {
			return Config{}, err
		}
	}
	return c.Resolve()
}

// LoadEnv is the configuration of a program that embeds jobtrace and sets
// everything else itself: Default with the OTEL_* variables seen through
// getenv applied (nil means os.Getenv), without a file or the JOBTRACE_*
// variables, validated and resolved as Load does.
func LoadEnv(getenv func(string) string) (Config, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	c := Default()
	if err := applyOTELEnv(getenv, &c); err != nil {
		return Config{}, err
	}
	return c.Resolve()
}

// Resolve cleans and validates c and resolves its OTLP export (see
// Export), as Load does once its layers are applied: what a program that
// sets a Config itself calls before using it. The error wraps ErrConfig.
func (c Config) Resolve() (Config, error) {
	for i := range c.Markers.Patterns {
		if p := &c.Markers.Patterns[i]; p.Event == "" {
			p.Event = p.Regex
		}
	}
	c.cleanText()
	if fe := c.validate(); fe != nil {
		return Config{}, c.locate(fe)
	}
	if fe := controlChars(reflect.ValueOf(c), ""); fe != nil {
		return Config{}, c.locate(fe)
	}
	if fe := c.resolveExport(); fe != nil {
		return Config{}, c.locate(fe)
	}
	return c, nil
}

// locate puts where the bad value came from in front of fe: the file and
// line with the key, or just the variable or flag, which names the key.
func (c Config) locate(fe *fieldError) error {
	at := fe.key
	if fe.at != "" {
		at = fe.at
	}
	o, ok := c.originOf(at)
	switch {
	case !ok:
		return errorf("%s", fe.Error())
	case o.kind == "file":
		return errorf("%s: %s: %s", o.where, fe.key, fe.msg)
	default:
		return errorf("%s: %s", o.where, fe.msg)
	}
}

// cleanText cleans the settings that are free text and end up in spans and
// the resource (the job's name, the service name, the host type, resource
// attributes) where they come in, as the job's own text is (package
// cleantext): invalid UTF-8 and control characters become U+FFFD, so that
// what `jobtrace config` prints is what is used, and loads as itself.
func (c *Config) cleanText() {
	c.Name = cleantext.String(c.Name)
	c.ServiceName = cleantext.String(c.ServiceName)
	c.HostType = cleantext.String(c.HostType)
	if len(c.ResourceAttributes) > 0 {
		clean := make(map[string]string, len(c.ResourceAttributes))
		for k, v := range c.ResourceAttributes {
			clean[cleantext.String(k)] = cleantext.String(v)
		}
		c.ResourceAttributes = clean
	}
}
